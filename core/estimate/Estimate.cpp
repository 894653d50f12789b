#include "core/estimate/Estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/Units.h"
#include "core/estimate/ActivationModel.h"
#include "core/estimate/CommunicationModel.h"
#include "core/estimate/LayoutChecks.h"
#include "core/estimate/ModelStateModel.h"
#include "core/estimate/ParameterModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/estimate/ReliabilityModel.h"
#include "core/estimate/ReserveModel.h"
#include "core/estimate/ShardingBuffers.h"

namespace trainplan {

namespace {

// Models with experts, latent attention or MTP (ModelSpec::beyondDense): model FLOPs are
// Megatron-LM's count (MoeArithmetic.h, megatronFlopsPerToken), the one MoE runs report MFU on;
// 6ND here is 6 N_active D, and the derivation shows where the two differ.
void estimateFlopsBeyondDense(const Plan& plan, Estimate& est)
{
    const auto& m = plan.model;
    const double tokens = plan.training.tokens;
    const TransformerShape shape = transformerShapeOf(m);
    auto& f = est.flops;
    f.model6nd = 6.0 * est.parameters.active * tokens;
    f.attentionPerToken = megatronAttentionCoreFlopsPerToken(shape);
    f.attention = f.attentionPerToken * tokens;
    f.embeddingLookup = 6.0 * est.parameters.embedding * tokens;
    f.perToken = megatronFlopsPerToken(shape);
    f.total = f.perToken * tokens;
    // Recompute repeats forward work: the attention core (selective), or every recomputed
    // layer's forward, a third of its share of the count (full).
    switch (plan.layout.recompute) {
    case Recompute::None: f.recompute = 0.0; break;
    case Recompute::Selective: f.recompute = f.attention / 3.0; break;
    case Recompute::Full: {
        double recomputed = 0;
        const StageLayerSplit split(plan, &est.parameters);
        for (int i = 0; i < plan.layout.pp; ++i)
            recomputed += recomputedLayers(plan.layout, split.layersOf(i));
        const double layerShare = (f.perToken - 6.0 * m.hiddenSize * double(m.vocabSize) * (m.mtpLayers + 1)) / (m.layers + m.mtpLayers);
        f.recompute = recomputed * layerShare / 3.0 * tokens;
        break;
    }
    }
    f.hardware = f.total + f.recompute;
}

void estimateFlops(const Plan& plan, Estimate& est)
{
    if (plan.model.beyondDense()) {
        estimateFlopsBeyondDense(plan, est);
        return;
    }
    const auto& m = plan.model;
    const double tokens = plan.training.tokens;
    const double n = est.parameters.total;
    const double qDim = double(m.attentionHeads) * m.headDim;
    auto& f = est.flops;
    // 6 N D: 2 N per token forward, 4 N backward (Kaplan et al. 2020, Sec. 2.1).
    f.model6nd = 6.0 * n * tokens;
    // Attention scores and weighted values: 12 L h s per token, forward and backward
    // (PaLM, Chowdhery et al. 2022, App. B).
    // Summed over kinds: a kind's attention is the model's, so this is 12 L h s until kinds differ in it.
    f.attentionPerToken = 0.0;
    for (int k = 0; k < m.kindCount(); ++k)
        f.attentionPerToken += 12.0 * m.layersOfKind(k) * qDim * m.sequenceLength;
    f.attention = f.attentionPerToken * tokens;
    // 6N charges every parameter a multiply-add per token, but an embedding lookup is a
    // gather: the input embedding (and learned positions) does no matmul. Model FLOPs count
    // the layers' matrices, attention and the output layer, as Narayanan et al. 2021, Eq. 3
    // does; a tied embedding's matrix is counted once, as the output layer it also is.
    const double lookupOnly = m.tiedEmbeddings ? est.parameters.embedding - est.parameters.wordEmbedding
                                               : est.parameters.embedding;
    f.embeddingLookup = 6.0 * lookupOnly * tokens;
    f.total = f.model6nd - f.embeddingLookup + f.attention;
    f.perToken = f.total / tokens;
    // Hardware FLOPs: the model's plus the forward work recompute repeats. Selective recompute
    // repeats the attention core's forward (Q K^T and the weighted values, 4 L h s per token,
    // a third of the attention term); Korthikanti et al. 2022, Eq. 8 charges the whole term
    // again, which counts work the step never does. Full recompute repeats every layer's
    // forward: 2 N_layers + 4 L h s per token (Narayanan et al. 2021, Eq. 3's 96 = 4/3 x 72).
    switch (plan.layout.recompute) {
    case Recompute::None: f.recompute = 0.0; break;
    case Recompute::Selective:
        if (selectiveKeepsEveryOtherMatmul(plan)) {
            // torchtitan's op-level checkpointing repeats the matmuls it did not keep (every
            // other one) and no attention core (ActivationModel.h, everyOtherMatmul).
            f.recompute = 0.0;
            for (int k = 0; k < m.kindCount(); ++k)
                f.recompute += everyOtherMatmul(plan, m.kind(k)).recomputedFlopsPerToken * m.layersOfKind(k) * tokens;
        } else {
            f.recompute = f.attention / 3.0;
        }
        break;
    case Recompute::Full: {
        // Only the recomputed layers repeat their forward (layout.recompute_layers; 0: all). A
        // stage recomputes that share of its layers; each kind repeats its share of them.
        double recomputed[kMaxLayerKinds] = {};
        const int kinds = std::min(m.kindCount(), kMaxLayerKinds);
        if (plan.layout.recomputeLayers > 0) {
            const StageLayerSplit split(plan, &est.parameters);
            int first = 0;
            for (int i = 0; i < plan.layout.pp; ++i) {
                const int layers = split.layersOf(i);
                const int r = recomputedLayers(plan.layout, layers);
                forEachKindIn(m, first, layers, [&](int k, int count) {
                    if (k < kMaxLayerKinds)
                        recomputed[k] += double(r) * count / layers;
                });
                first += layers;
            }
        }
        f.recompute = 0.0;
        for (int k = 0; k < kinds; ++k) {
            const int layers = m.layersOfKind(k);
            const double share = plan.layout.recomputeLayers > 0 ? recomputed[k] / layers : 1.0;
            const double attentionPerToken = 12.0 * layers * qDim * m.sequenceLength;
            f.recompute += share * (2.0 * layers * est.parameters.kinds[size_t(k)].total + attentionPerToken / 3.0) * tokens;
        }
        break;
    }
    }
    f.hardware = f.total + f.recompute;
}

void estimateTime(const Plan& plan, Estimate& est)
{
    auto& t = est.time;
    const double tokens = plan.training.tokens;
    t.tokensPerStep = double(plan.training.globalBatchSequences) * plan.model.sequenceLength;
    t.stepsExact = tokens / t.tokensPerStep;
    t.steps = (int64_t)std::ceil(t.stepsExact - 1e-9);
    t.peakClusterFlopsPerSecond = plan.cluster.peakFlopsPerGpu * est.gpusUsed;
    t.effectiveFlopsPerSecond = t.peakClusterFlopsPerSecond * plan.training.mfu;
    // Compute time at the assumed MFU (flops.total / (MFU x peak x GPUs), PaLM App. B's MFU definition).
    t.totalSeconds = est.flops.total / t.effectiveFlopsPerSecond;
    t.days = t.totalSeconds / units::secondsPerDay;
    t.gpuHours = t.totalSeconds / units::secondsPerHour * est.gpusUsed;
    t.stepSeconds = t.totalSeconds / t.stepsExact;
    t.tokensPerSecondPerGpu = tokens / t.totalSeconds / est.gpusUsed;
    t.sixNdSeconds = est.flops.model6nd / t.effectiveFlopsPerSecond;
    t.sixNdDays = t.sixNdSeconds / units::secondsPerDay;
}

// Whether stage i holds the parameters stage i - 1 does (the middle stages of a deep pipeline).
bool holdsLikePrevious(const Estimate& est, int i)
{
    const StageEstimate& st = est.stages[size_t(i)];
    const StageEstimate& before = est.stages[size_t(i - 1)];
    return st.parameters == before.parameters && st.routedExpertParameters == before.routedExpertParameters;
}

// sameStages: est.stages already hold this plan's layers, kinds, parameters (per GPU too) and
// micro-batches in flight (EstimateScope::LayoutSearchSameFamily, MemoryOfSameStages); only what
// ZeRO, recompute and the framework's switches change is redone.
// everyStage: false to leave out the memory of stages that cannot be the fullest (EstimateScope).
void estimateStages(const Plan& plan, Estimate& est, bool sameStages, bool everyStage)
{
    const auto& l = plan.layout;
    const int p = l.pp;
    const StateBytesPerParameter state = modelStateBytesPerParameter(plan);  // FP32 gradients, the FP8 weight copy
    const double shards = double(l.dp) * l.cp;  // ZeRO shards over the DP-CP group
    // Routed experts: split over EP x ETP, their state sharded over the expert-data-parallel group
    // (the stage's TP x CP x DP ranks over EP x ETP; Megatron-Core's parallel folding).
    const double expertRanks = double(l.ep) * l.etp;
    const double expertShards = std::max(1.0, double(l.tp) * l.cp * l.dp / expertRanks);
    const double perLayer = est.activation.perLayerPerMicrobatch;
    // Layers left out of a partial full recompute keep everything: the working set's figure.
    const double workingSet = recomputeWorkingSet(plan);
    const bool partialRecompute = l.recompute == Recompute::Full && l.recomputeLayers > 0;
    const double logits = logitsBytes(plan);
    const FixedReserve reserve = fixedReserve(plan);
    const double capacity = plan.cluster.memoryBytesPerGpu;
    const double margin = plan.training.memoryMarginFraction * capacity;
    est.ncclCommunicators = reserve.communicators;
    est.ncclBytesPerCommunicator = reserve.perCommunicator;
    const double gathered = shardingBuffers(plan, est.parameters.largestLayerPerGpu(l)).bytes();
    const bool gradientsOnlyBackward = gradientsOnlyInBackward(plan, est.pipeline.microbatches);

    // Kinds that store more (or less) than the dense layer per micro-batch: MoE and MLA layers.
    double kindDelta[kMaxLayerKinds] = {};
    const bool beyondDense = plan.model.beyondDense();
    if (beyondDense) {
        const double load = expertLoad(plan.model);
        for (int k = 0; k < std::min(plan.model.kindCount(), kMaxLayerKinds); ++k)
            kindDelta[k] = kindActivationBytesDelta(plan, plan.model.kind(k), load);
    }
    const int lastKind = std::min(plan.model.kindCount(), kMaxLayerKinds) - 1;

    sameStages = sameStages && est.stages.size() == size_t(p) && (!beyondDense || est.stageKinds.size() == size_t(p));
    std::optional<StageLayerSplit> split;
    if (!sameStages) {
        split.emplace(plan, &est.parameters);
        est.stages.resize(p);
        est.stageKinds.resize(beyondDense ? size_t(p) : 0);
    }
    int first = 0;
    KindCounts previousKinds;
    double worst = -1.0;
    double shardedParameters = -1.0;
    ShardedState modelState;
    for (int i = 0; i < p; ++i) {
        StageEstimate& st = est.stages[i];
        if (!sameStages) {
            st.index = i;
            st.firstLayer = first;
            st.layers = split->layersOf(i);
            first += st.layers;
            st.hasEmbedding = i == 0;
            st.hasLmHead = i == p - 1;
            const KindCounts kinds = split->kindsOf(i, st.firstLayer);
            if (beyondDense)
                est.stageKinds[size_t(i)] = kinds;
            // A middle stage with the same layers as the one before holds the same parameters
            // (the search's deep pipelines have up to a stage per layer).
            if (i >= 2 && !st.hasLmHead && st.layers == est.stages[i - 1].layers && kinds == previousKinds) {
                st.parameters = est.stages[i - 1].parameters;
                st.routedExpertParameters = est.stages[i - 1].routedExpertParameters;
            } else {
                st.parameters = stageParameters(est.parameters, kinds, st.hasEmbedding, st.hasLmHead);
                st.routedExpertParameters = stageRoutedExpertParameters(plan.model, est.parameters, kinds, st.hasLmHead);
            }
            previousKinds = kinds;
            st.microbatchesInFlight = microbatchesInFlight(l.schedule, i, p, est.pipeline.microbatches, l.virtualStages);
            // Equal parameters divide alike: the middle stages skip the two divisions. (Kept with
            // the stages: TP, EP and ETP are the same for the whole family.)
            if (i > 0 && holdsLikePrevious(est, i))
                st.parametersPerGpu = est.stages[i - 1].parametersPerGpu;
            else
                st.parametersPerGpu = (st.parameters - st.routedExpertParameters) / l.tp + st.routedExpertParameters / expertRanks;
        }
        if (partialRecompute) {
            const int recomputed = recomputedLayers(l, st.layers);
            st.activationsPerMicrobatch = perLayer * recomputed + workingSet * (st.layers - recomputed);
        } else {
            st.activationsPerMicrobatch = perLayer * st.layers;
        }
        if (beyondDense) {
            const KindCounts& kinds = est.stageKinds[size_t(i)];
            for (int k = 0; k < kinds.kinds; ++k)
                st.activationsPerMicrobatch += kinds.count[k] * kindDelta[k];
            // The MTP depths run on the last stage: a block like the last layer each, and their
            // own logits (DeepSeek-V3 technical report, Sec. 2.2).
            if (st.hasLmHead)
                st.activationsPerMicrobatch += plan.model.mtpLayers * (perLayer + kindDelta[lastKind]);
        }
        st.activationExtras = workingSet + (st.hasLmHead ? logits * (1 + plan.model.mtpLayers) : 0.0);
    }
    // DualPipe: GPU row i holds stage i and stage p - 1 - i, their parameters and each one's
    // micro-batches in flight (DualPipe.h); otherwise a row is its stage.
    const bool dualPipe = l.schedule == Schedule::DualPipe && p >= 2;
    for (int i = 0; i < p; ++i) {
        StageEstimate& st = est.stages[i];
        const StageEstimate* mirror = dualPipe ? &est.stages[size_t(p - 1 - i)] : nullptr;
        double activations = st.microbatchesInFlight * st.activationsPerMicrobatch + st.activationExtras;
        // Middle stages hold the same parameters: shard their state once (pp reaches the layer
        // count in the layout search, so this loop runs up to a stage per layer).
        const bool likePrevious = !mirror && i > 0 && holdsLikePrevious(est, i);
        // The same state, per-micro-batch activations (not negative) and extras as the stage
        // before, no more micro-batches in flight: its activations are no more, and the total
        // only grows with them (the state, sharding buffers and reserve are the same; the
        // fragmentation share and, with gradients made only in the backward, max(G, A) grow with
        // them), so this stage cannot hold more, and the first of equals stays the fullest. Its
        // total is set to NaN so that a reader that should have skipped it cannot pass unseen.
        if (!everyStage && likePrevious) {
            const StageEstimate& before = est.stages[size_t(i - 1)];
            if (st.microbatchesInFlight <= before.microbatchesInFlight && st.activationsPerMicrobatch >= 0.0
                && st.activationsPerMicrobatch == before.activationsPerMicrobatch && st.activationExtras == before.activationExtras) {
                st.memoryEstimated = false;
                st.memory.total = std::numeric_limits<double>::quiet_NaN();
                continue;
            }
        }
        st.memoryEstimated = true;
        double densePerGpu = 0.0, expertsPerGpu = 0.0, heldParameters = shardedParameters;
        if (!likePrevious) {
            densePerGpu = (st.parameters - st.routedExpertParameters) / l.tp;
            expertsPerGpu = st.routedExpertParameters / expertRanks;
            if (mirror) {
                densePerGpu += (mirror->parameters - mirror->routedExpertParameters) / l.tp;
                expertsPerGpu += mirror->routedExpertParameters / expertRanks;
            }
            heldParameters = densePerGpu + expertsPerGpu;
        }
        if (mirror) {
            const DualPipeInFlight held = dualPipeInFlight(i, p);
            activations = held.directionZero * st.activationsPerMicrobatch + held.directionOne * mirror->activationsPerMicrobatch
                + held.eitherStage * std::max(st.activationsPerMicrobatch, mirror->activationsPerMicrobatch)
                + std::max(st.activationExtras, mirror->activationExtras);
        }

        MemoryBreakdown& mem = st.memory;
        if (heldParameters != shardedParameters) {
            shardedParameters = heldParameters;
            modelState = shardModelState(densePerGpu, state, l.zeroStage, shards);
            if (expertsPerGpu > 0) {
                const ShardedState experts = shardModelState(expertsPerGpu, state, l.zeroStage, expertShards);
                modelState.weights += experts.weights;
                modelState.gradients += experts.gradients;
                modelState.optimizer += experts.optimizer;
            }
        }
        mem.weights = modelState.weights;
        mem.gradients = modelState.gradients;
        mem.optimizer = modelState.optimizer;
        mem.activations = activations;
        mem.shardingBuffers = gathered;
        // Gradients made block by block as the backward frees activations: at the peak only what
        // exceeds the freed activations is counted (ModelStateModel.h, gradientsOnlyInBackward).
        if (gradientsOnlyBackward)
            mem.gradients = std::max(0.0, modelState.gradients - mem.activations);
        applyReserve(plan, reserve, mem);
        st.headroomBytes = capacity - mem.total;
        st.fits = mem.total <= capacity;
        st.withinMargin = st.fits && st.headroomBytes < margin;
        if (mem.total > worst) {
            worst = mem.total;
            est.fullestStage = i;
        }
    }
}

}  // namespace

bool Estimate::hasErrors() const
{
    return std::any_of(warnings.begin(), warnings.end(), [](const Warning& w) { return w.severity == Severity::Error; });
}

void estimateInto(const Plan& plan, Estimate& est, EstimateScope scope)
{
    const auto& l = plan.layout;
    est.warnings.clear();
    est.gpusUsed = int(l.gpus());
    est.nodes = (est.gpusUsed + plan.cluster.gpusPerNode - 1) / plan.cluster.gpusPerNode;
    const bool memoryOnly = scope == EstimateScope::MemoryOfSameModel || scope == EstimateScope::MemoryOfSameStages;
    if (scope == EstimateScope::Full || scope == EstimateScope::LayoutSearch)
        countParametersInto(plan.model, est.parameters);
    est.parametersPerGpuMean = est.parameters.total / (double(l.tp) * l.pp);

    if (!memoryOnly) {
        estimateFlops(plan, est);
        estimateTime(plan, est);
    }

    // Micro-batches per replica: B / (DP b); CP and TP ranks share sequences (worked example B,
    // "Build the global batch").
    auto& pipe = est.pipeline;
    pipe.microbatches = std::max<int64_t>(1, plan.training.globalBatchSequences / (int64_t(l.dp) * plan.training.microBatchSize));
    pipe.gradientAccumulation = pipe.microbatches;
    pipe.bubbleFraction = l.pp > 1 ? bubbleFraction(l.schedule, l.pp, pipe.microbatches, l.virtualStages) : 0.0;

    est.activation = activationPerLayer(plan);
    estimateStages(plan, est, scope == EstimateScope::LayoutSearchSameFamily || scope == EstimateScope::MemoryOfSameStages,
                   scope == EstimateScope::Full);
    if (plan.model.moe) {
        // Routed experts split over EP x ETP, not TP: the mean over the stages as they hold them.
        double sum = 0;
        for (const StageEstimate& st : est.stages)
            sum += st.parametersPerGpu;
        est.parametersPerGpuMean = sum / l.pp;
    }
    est.perGpu = est.stages[est.fullestStage].memory;
    est.capacityBytes = plan.cluster.memoryBytesPerGpu;
    est.fits = est.perGpu.total <= est.capacityBytes;
    est.headroomBytes = est.capacityBytes - est.perGpu.total;
    est.marginBytes = plan.training.memoryMarginFraction * est.capacityBytes;
    est.hasMargin = std::none_of(est.stages.begin(), est.stages.end(),
                                 [](const StageEstimate& st) { return st.memoryEstimated && (st.withinMargin || !st.fits); });
    if (memoryOnly)
        return;

    estimateCommunication(plan, est);
    if (scope == EstimateScope::Full) {
        estimateReliability(plan, est);
        checkLayout(plan, est);
    } else {
        est.reliability = ReliabilityEstimate{};
        checkLayoutValidity(plan, est);
    }
}

Estimate estimate(const Plan& plan)
{
    Estimate est;
    estimateInto(plan, est);
    return est;
}

}  // namespace trainplan
