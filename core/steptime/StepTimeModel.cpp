// One optimizer step from the per-micro-batch costs: the pipeline, the data-parallel tail and
// the optimizer, with every second assigned to a named component of the reference stage.
#include "core/steptime/StepTimeModel.h"

#include <algorithm>
#include <utility>

#include <cmath>
#include <stdexcept>

#include "core/base/PlanError.h"
#include "core/base/Units.h"
#include "core/estimate/CommunicationModel.h"
#include "core/schedule/DualPipe.h"
#include "core/schedule/ScheduleMemo.h"
#include "core/schedule/SchedulePreconditions.h"
#include "core/steptime/StepTimeCosts.h"

namespace trainplan {

struct StepTimeWorkspace::Scratch {
    MicrobatchCosts microbatch;
    std::uint64_t family = 0;  // what the last predict() was told (StepTimeWorkspace::predict)
    CommunicationGroups groups;  // the last family's: the groups' placement reads neither ZeRO nor recompute
    ScheduleCosts costs;
    ScheduleSimulator simulator;
    ScheduleMemo memo;  // the last simulations big enough to be worth recalling
    ScheduleResult result;
    bool resultHasEvents = false;  // result is a simulation with ScheduleDetail::Events
};

namespace {

// Simulates costs into s.result, or, when no events are wanted, copies a remembered simulation
// of exactly these costs. Only pipelines of at least kRecallOps F and B ops are remembered: below
// that a simulation costs a few microseconds, about what comparing and copying the costs would
// (the layout search's many small, all different pipelines).
void simulateOrRecall(StepTimeWorkspace::Scratch& s, const ScheduleCosts& costs, ScheduleKind kind, ScheduleDetail detail)
{
    constexpr long long kRecallOps = 4096;
    const bool worthRecalling = 2 * costs.m * costs.p * costs.v >= kRecallOps;
    if (worthRecalling && detail == ScheduleDetail::TimesOnly) {
        if (const ScheduleResult* known = s.memo.find(costs, kind)) {
            ScheduleMemo::copyTimes(*known, s.result);
            return;
        }
    }
    s.simulator.simulate(costs, kind, s.result, detail);
    if (worthRecalling)
        s.memo.remember(costs, kind, s.result);
}

// Megatron-Core's default gradient bucket: max(40e6, 1e6 x DP) parameters
// (DistributedDataParallelConfig.bucket_size).
double bucketParameters(const Plan& plan, const FrameworkOptions& fw)
{
    return fw.bucketParameters > 0 ? fw.bucketParameters : std::max(40.0 * units::mega, units::mega * plan.layout.dp);
}

struct DataParallelTimes {
    double gradientTail = 0;   // exposed after the stage's last backward (the simulator's DP sync)
    double paramGather = 0;    // exposed parameter all-gather after the optimizer
    double optimizer = 0;
};

// Per stage: ZeRO-0 all-reduces its gradients, ZeRO-1 reduce-scatters them and all-gathers the
// updated parameters, ZeRO-2 all-gathers only (its reduce-scatters ran per micro-batch), ZeRO-3
// neither (Rajbhandari et al. 2020, Sec. 7; Megatron-Core distributed optimizer), bucket by
// bucket, each bucket a collective over the DP x CP group as it sits on nodes (its latency
// counts once per bucket). With overlap, buckets reduce while the last micro-batch's backward
// still runs, so the exposed tail is what that backward cannot cover, and at least the last
// bucket (Li et al. 2020, PyTorch Distributed, Sec. 3.2.3; Megatron-Core overlap_grad_reduce:
// only the last micro-batch's backward sends, param_and_grad_buffer.py); gathers overlap the
// next forward except the first bucket (overlap_param_gather). Without overlap there is one
// bucket (Megatron) and every collective is exposed.
// Optimizer: a fused Adam step (one multi-tensor kernel) reads and writes the stage's whole
// model state once and the gradient-norm pass reads the gradients again: about 2 x (bytes of
// state) per parameter it updates (its 1/(DP x CP) shard under ZeRO), at HBM bandwidth.
// PyTorch's foreach AdamW runs each of its element-wise steps (moment updates, bias
// corrections, sqrt, divide, weight decay, update) as its own multi-tensor pass, about three
// times the bytes; one kernel per tensor and op adds a launch per tensor.
constexpr double kForeachOptimizerBytesFactor = 3.0;

constexpr double kPerTensorOptimizerKernelsPerTensor = 12.0;

double bucketedSeconds(Collective kind, double bytes, double buckets, const GroupPlacement& group, const Fabric& fabric)
{
    return buckets * collectiveSeconds(kind, bytes / buckets, group, fabric);
}

bool sameDataParallelWork(const StageEstimate& a, const StageEstimate& b)
{
    return a.parametersPerGpu == b.parametersPerGpu && a.routedExpertParameters == b.routedExpertParameters && a.layers == b.layers;
}

DataParallelTimes dataParallelTimes(const Plan& plan, const Estimate& est, const StepTimeOptions& o, const CommunicationGroups& groups,
                                    const ScheduleCosts& costs)
{
    const auto& l = plan.layout;
    const auto& e = o.efficiency;
    const auto& fw = o.framework;
    const auto state = stateBytesPerParameter(plan.training.precision);
    const double bucket = bucketParameters(plan, fw);
    const double shards = l.zeroStage >= 1 ? double(l.dp) * l.cp : 1.0;
    const double hbm = e.hbmBytesPerSecond * e.hbmEfficiency;
    const double gradientBytes = reducedGradientBytes(plan, fw);
    const double optimizerBytes =
        2.0 * state.total() * (fw.optimizer == OptimizerImplementation::Fused ? 1.0 : kForeachOptimizerBytesFactor);
    // Tensors per layer (about 9 with biases and norms, 6 without) for the per-tensor optimizer.
    const double tensorsPerLayer = plan.model.bias ? 12.0 : 7.0;

    const double optimizerSecondsPerParameter = optimizerBytes / (shards * hbm);
    // Routed experts reduce, and ZeRO shards them, over the expert-data-parallel group instead
    // (Megatron-Core's expert DDP and distributed optimizer over the EDP group).
    const double expertRanks = double(l.ep) * l.etp;
    const double expertShards = l.zeroStage >= 1 ? std::max(1.0, double(l.tp) * l.cp * l.dp / expertRanks) : 1.0;
    const double expertOptimizerSecondsPerParameter = optimizerBytes / (expertShards * hbm);
    const double share = collectiveSmShare(e);
    DataParallelTimes out;
    // Stages of equal size reduce the same bytes: price each size once.
    double pricedParameters = -1.0, reduce = 0.0, gather = 0.0, buckets = 1.0;
    // DualPipe: each rank reduces and updates the two stages it holds (DualPipe.h).
    const bool dualPipe = plan.layout.schedule == Schedule::DualPipe && size_t(costs.p) == est.stages.size();
    for (int i = 0; i < costs.p; ++i) {
        // A stage that holds and runs what the one before does adds nothing to the maxima below
        // (the middle stages of a deep pipeline).
        if (i > 0 && !dualPipe && costs.v == 1 && sameDataParallelWork(est.stages[size_t(i)], est.stages[size_t(i - 1)])
            && costs.stages[size_t(i)].backwardSeconds == costs.stages[size_t(i - 1)].backwardSeconds)
            continue;
        const StageEstimate& mirror = est.stages[size_t(costs.p - 1 - i)];
        const double parameters = est.stages[i].parametersPerGpu + (dualPipe ? mirror.parametersPerGpu : 0.0);
        const double experts = (est.stages[i].routedExpertParameters + (dualPipe ? mirror.routedExpertParameters : 0.0)) / expertRanks;
        const double dense = parameters - experts;
        if (parameters != pricedParameters) {
            pricedParameters = parameters;
            const double whole = double(static_cast<long long>(parameters / bucket));  // ceil without a libm call
            buckets = fw.overlapGradientReduce ? std::max(1.0, whole < parameters / bucket ? whole + 1.0 : whole) : 1.0;
            const double denseBuckets = experts > 0 ? std::max(1.0, buckets * dense / parameters) : buckets;
            const double expertBuckets = std::max(1.0, buckets * experts / parameters);
            const auto bucketed = [&](Collective kind, double bytesPerParameter) {
                double seconds = bucketedSeconds(kind, dense * bytesPerParameter, denseBuckets, groups.dp, groups.fabric);
                if (experts > 0)
                    seconds += bucketedSeconds(kind, experts * bytesPerParameter, expertBuckets, groups.edp, groups.fabric);
                return seconds;
            };
            reduce = gather = 0.0;
            switch (l.zeroStage) {
            case 0: reduce = bucketed(Collective::AllReduce, gradientBytes); break;
            case 1:
                reduce = bucketed(Collective::ReduceScatter, gradientBytes);
                gather = bucketed(Collective::AllGather, state.weights);
                break;
            case 2: gather = bucketed(Collective::AllGather, state.weights); break;
            default: break;
            }
        }
        double lastBackward = 0.0;
        for (int c = 0; c < costs.v; ++c)
            lastBackward += costs.stages[size_t(c) * costs.p + i].backwardSeconds;
        // Overlapped buckets also slow the backward under them by the SMs NCCL occupies.
        const double tail = fw.overlapGradientReduce
            ? std::max(reduce / buckets, reduce - lastBackward) + share * std::min(reduce, lastBackward)
            : reduce;
        out.gradientTail = std::max(out.gradientTail, tail);
        out.paramGather = std::max(out.paramGather, fw.overlapParamGather ? gather / buckets : gather);
        double optimizer = optimizerSecondsPerParameter * dense + expertOptimizerSecondsPerParameter * experts;
        if (fw.optimizer == OptimizerImplementation::PerTensor)
            optimizer += (est.stages[i].layers + (dualPipe ? mirror.layers : 0)) * tensorsPerLayer * kPerTensorOptimizerKernelsPerTensor
                * e.kernelLaunchSeconds;
        out.optimizer = std::max(out.optimizer, optimizer);
    }
    return out;
}

void fillStageCosts(const Plan& plan, const Estimate& est, const MicrobatchCosts& mc, const AcceleratorEfficiency& efficiency,
                    ScheduleKind kind, ScheduleCosts& costs)
{
    const auto& l = plan.layout;
    costs.p = l.pp;
    costs.m = est.pipeline.microbatches;
    costs.v = kind == ScheduleKind::Interleaved ? std::max(1, l.virtualStages) : 1;
    const int p = costs.p, v = costs.v;
    costs.stages.resize(size_t(p) * v);
    // A partial full recompute (layout.recompute_layers) repeats the forward of only some of a
    // stage's layers: its share of each layer's recompute.
    const bool partial = l.recompute == Recompute::Full && l.recomputeLayers > 0;
    // Each kind's layer sums once: the loop below visits up to a stage per layer.
    const int kinds = std::min<int>(int(mc.layers.size()), kMaxLayerKinds);
    double forward[kMaxLayerKinds], backward[kMaxLayerKinds], deferred[kMaxLayerKinds], recompute[kMaxLayerKinds];
    // DualPipe only: each kind's collectives, which its paired chunks overlap (DualPipe.h).
    const bool pairs = kind == ScheduleKind::DualPipe;
    double forwardComm[kMaxLayerKinds] = {}, backwardComm[kMaxLayerKinds] = {};
    costs.pairedCommSlowdown = pairs ? collectiveSmShare(efficiency) : 0.0;
    for (int k = 0; k < kinds; ++k) {
        const LayerTimes& L = mc.layers[size_t(k)];
        forward[k] = L.forward();
        backward[k] = L.backward();
        deferred[k] = L.weightGradMatmul;
        recompute[k] = L.recompute;
        if (pairs) {
            forwardComm[k] = L.forwardTp + L.forwardCp + L.forwardZero + L.forwardAllToAll;
            backwardComm[k] = L.backwardTp + L.backwardCp + L.backwardZero + L.backwardAllToAll;
        }
    }
    const auto addEnds = [&](StageCosts& sc, const StageEstimate& stage, int chunk) {
        if (stage.hasEmbedding && chunk == 0) {
            sc.forwardSeconds += mc.embedding.forward();
            sc.backwardSeconds += mc.embedding.backward();
            sc.forwardCommSeconds += pairs ? mc.embedding.forwardTp : 0.0;
            sc.backwardCommSeconds += pairs ? mc.embedding.backwardTp : 0.0;
        }
        if (stage.hasLmHead && chunk == v - 1) {
            sc.forwardSeconds += mc.lmHead.forward();
            sc.backwardSeconds += mc.lmHead.backward();
            sc.weightGradSeconds += mc.lmHead.weightGradMatmul;
            sc.forwardCommSeconds += pairs ? mc.lmHead.forwardTp : 0.0;
            sc.backwardCommSeconds += pairs ? mc.lmHead.backwardTp : 0.0;
        }
    };
    // The MTP depths (StepTimeCosts.h MicrobatchCosts::mtp) on the last chunk of the stage with the
    // LM head: their blocks, recomputed as the layout recomputes whole layers, then their frames
    // and logits.
    const auto addMtpDepths = [&] {
        const double depths = plan.model.mtpLayers;
        if (depths <= 0 || kinds <= 0 || !est.stages[size_t(p) - 1].hasLmHead)
            return;
        const int k = std::min(mc.mtpKind, kinds - 1);
        StageCosts& sc = costs.stages[size_t(v - 1) * p + size_t(p) - 1];
        sc.forwardSeconds += depths * forward[k] + mc.mtp.forward();
        sc.backwardSeconds += depths * backward[k] + mc.mtp.backward();
        sc.weightGradSeconds += depths * deferred[k] + mc.mtp.weightGradMatmul;
        sc.forwardCommSeconds += pairs ? depths * forwardComm[k] + mc.mtp.forwardTp : 0.0;
        sc.backwardCommSeconds += pairs ? depths * backwardComm[k] + mc.mtp.backwardTp : 0.0;
    };
    // Each stage's layers spread over its v chunks, any remainder on the first chunks; a chunk's
    // layers are consecutive, and each costs what its kind does (StepTimeCosts.h). Each kind's
    // backward on a stage is less the recompute of the layers that stage does not repeat.
    if (kinds == 1 && plan.model.kindCount() == 1) {
        // One kind, without the walk over kinds: the layout search's hot loop.
        for (int i = 0; i < p; ++i) {
            const StageEstimate& stage = est.stages[i];
            const double stageBackward = partial && stage.layers > 0
                ? backward[0] - recompute[0] * (1.0 - double(recomputedLayers(l, stage.layers)) / stage.layers)
                : backward[0];
            for (int c = 0; c < v; ++c) {
                const double layers = stage.layers / v + (c < stage.layers % v ? 1 : 0);
                StageCosts& sc = costs.stages[size_t(c) * p + i];
                sc.forwardSeconds = layers * forward[0];
                sc.backwardSeconds = layers * stageBackward;
                sc.weightGradSeconds = layers * deferred[0];
                sc.forwardCommSeconds = layers * forwardComm[0];
                sc.backwardCommSeconds = layers * backwardComm[0];
                addEnds(sc, stage, c);
            }
        }
        addMtpDepths();
        return;
    }
    double stageBackward[kMaxLayerKinds];
    // Without interleaving a stage is one chunk, and the estimate kept its layers by kind; a
    // middle stage with the same layers as the one before costs what it does (a deep pipeline's
    // middle stages, up to one per layer in the search, are priced once).
    const bool kindsKept = v == 1 && est.stageKinds.size() == size_t(p);
    for (int i = 0; i < p; ++i) {
        const StageEstimate& stage = est.stages[i];
        if (kindsKept && i >= 2 && !stage.hasLmHead && stage.layers == est.stages[i - 1].layers
            && est.stageKinds[size_t(i)] == est.stageKinds[size_t(i - 1)]) {
            costs.stages[i] = costs.stages[i - 1];
            continue;
        }
        const double unrecomputed = partial && stage.layers > 0 ? 1.0 - double(recomputedLayers(l, stage.layers)) / stage.layers : 0.0;
        for (int k = 0; k < kinds; ++k)
            stageBackward[k] = partial && stage.layers > 0 ? backward[k] - recompute[k] * unrecomputed : backward[k];
        int chunkFirst = stage.firstLayer;
        for (int c = 0; c < v; ++c) {
            const int layers = stage.layers / v + (c < stage.layers % v ? 1 : 0);
            StageCosts& sc = costs.stages[size_t(c) * p + i];
            sc.forwardSeconds = sc.backwardSeconds = sc.weightGradSeconds = 0.0;
            sc.forwardCommSeconds = sc.backwardCommSeconds = 0.0;
            const auto add = [&](int k, int count) {
                if (k >= kinds)
                    return;
                sc.forwardSeconds += double(count) * forward[k];
                sc.backwardSeconds += double(count) * stageBackward[k];
                sc.weightGradSeconds += double(count) * deferred[k];
                sc.forwardCommSeconds += double(count) * forwardComm[k];
                sc.backwardCommSeconds += double(count) * backwardComm[k];
            };
            if (kindsKept) {
                const KindCounts& counts = est.stageKinds[size_t(i)];
                for (int k = 0; k < counts.kinds; ++k)
                    if (counts.count[k] > 0)
                        add(k, counts.count[k]);
            } else {
                forEachKindIn(plan.model, chunkFirst, layers, add);
            }
            chunkFirst += layers;
            addEnds(sc, stage, c);
        }
    }
    addMtpDepths();
}

// One stage-to-stage send: the activation (1/t of it with sequence parallelism) to the next
// stage's GPU, priced on the PP group's placement.
double sendSeconds(const Plan& plan, const Estimate& est, const CommunicationGroups& groups)
{
    if (plan.layout.pp <= 1)
        return 0.0;
    GroupPlacement pair = groups.pp;
    pair.ranks = 2;
    pair.perNode = groups.pp.nodes > 1 ? 1 : 2;
    pair.nodes = groups.pp.nodes > 1 ? 2 : 1;
    return collectiveSeconds(Collective::SendRecv, est.communication.ppBytesPerMicrobatch, pair, groups.fabric);
}

// The reference stage's busy time by component, over the step's m micro-batches.
PredictedComponents busyComponents(const Plan& plan, const StageEstimate& stage, const MicrobatchCosts& mc, double m)
{
    // Under full recompute only the recomputed layers of the stage repeat their forward; each kind
    // takes its share of them.
    const bool full = plan.layout.recompute == Recompute::Full && stage.layers > 0;
    const double recomputed = full ? double(recomputedLayers(plan.layout, stage.layers)) : 0.0;
    PredictedComponents c;
    // n layers of kind k; `repeats` of them recompute their forward.
    const auto addLayers = [&](int k, double n, double repeats) {
        const LayerTimes& L = mc.layers[size_t(k)];
        c.forwardCompute += n * (L.forwardMatmul + L.forwardAttention);
        c.backwardCompute += n * (L.backwardMatmul + L.backwardAttention);
        c.memoryBound += n * (L.forwardMemory + L.backwardMemory);
        c.kernelOverhead += n * (L.forwardFixed + L.backwardFixed);
        c.recompute += repeats * L.recompute;
        c.tpCommunication += n * (L.forwardTp + L.backwardTp);
        c.cpCommunication += n * (L.forwardCp + L.backwardCp);
        c.zeroCommunication += n * (L.forwardZero + L.backwardZero);
        c.epCommunication += n * (L.forwardAllToAll + L.backwardAllToAll);
        c.expertImbalance += n * (L.forwardImbalance + L.backwardImbalance);
    };
    forEachKindIn(plan.model, stage.firstLayer, stage.layers, [&](int k, int count) {
        const double n = count;
        addLayers(k, n, full ? n * recomputed / stage.layers : n);
    });
    // The MTP depths' blocks on the last stage (StepTimeCosts.h MicrobatchCosts::mtp), recomputed
    // as the layout recomputes whole layers.
    const double mtpDepths = stage.hasLmHead ? plan.model.mtpLayers : 0;
    if (mtpDepths > 0 && !mc.layers.empty())
        addLayers(std::min<int>(mc.mtpKind, int(mc.layers.size()) - 1), mtpDepths, mtpDepths);
    const auto addEnd = [&](const EndCosts& end) {
        c.forwardCompute += end.forwardMatmul;
        c.backwardCompute += end.backwardMatmul;
        c.memoryBound += end.forwardMemory + end.backwardMemory;
        c.tpCommunication += end.forwardTp + end.backwardTp;
        c.kernelOverhead += end.forwardFixed + end.backwardFixed;
    };
    if (stage.hasEmbedding)
        addEnd(mc.embedding);
    if (stage.hasLmHead) {
        addEnd(mc.lmHead);
        addEnd(mc.mtp);
    }
    for (double* part : {&c.forwardCompute, &c.backwardCompute, &c.memoryBound, &c.recompute, &c.tpCommunication,
                         &c.cpCommunication, &c.zeroCommunication, &c.epCommunication, &c.expertImbalance, &c.kernelOverhead})
        *part *= m;
    return c;
}

// DualPipe: rank r runs stage r for half the micro-batches and stage p - 1 - r for the other half.
PredictedComponents dualPipeComponents(const Plan& plan, const Estimate& est, const MicrobatchCosts& mc, int rank, const ScheduleCosts& costs)
{
    const double half = 0.5 * double(costs.m);
    PredictedComponents c = busyComponents(plan, est.stages[size_t(rank)], mc, half);
    const PredictedComponents mirror = busyComponents(plan, est.stages[size_t(costs.p - 1 - rank)], mc, half);
    for (auto part : {&PredictedComponents::forwardCompute, &PredictedComponents::backwardCompute, &PredictedComponents::memoryBound,
                      &PredictedComponents::recompute, &PredictedComponents::tpCommunication, &PredictedComponents::cpCommunication,
                      &PredictedComponents::zeroCommunication, &PredictedComponents::epCommunication,
                      &PredictedComponents::expertImbalance, &PredictedComponents::kernelOverhead})
        c.*part += mirror.*part;
    return c;
}

// What DualPipe's pairs hide comes off the collectives they overlap, in proportion; returns the
// seconds taken off (never more than those collectives hold).
double hideUnderPairs(PredictedComponents& c, double hidden)
{
    const double communication = c.tpCommunication + c.cpCommunication + c.zeroCommunication + c.epCommunication;
    hidden = std::clamp(hidden, 0.0, communication);
    if (hidden <= 0.0)
        return 0.0;
    const double keep = 1.0 - hidden / communication;
    for (double* part : {&c.tpCommunication, &c.cpCommunication, &c.zeroCommunication, &c.epCommunication})
        *part *= keep;
    return hidden;
}

}  // namespace

StepTimeWorkspace::StepTimeWorkspace() : scratch_(std::make_unique<Scratch>()) {}
StepTimeWorkspace::~StepTimeWorkspace() = default;
StepTimeWorkspace::StepTimeWorkspace(StepTimeWorkspace&&) noexcept = default;
StepTimeWorkspace& StepTimeWorkspace::operator=(StepTimeWorkspace&&) noexcept = default;

void StepTimeWorkspace::swapLastSchedule(ScheduleResult& other)
{
    if (!scratch_->resultHasEvents)
        throw std::logic_error("StepTimeWorkspace::swapLastSchedule: the last predict() simulated no events");
    std::swap(scratch_->result, other);
    scratch_->resultHasEvents = false;
}

void StepTimeWorkspace::predict(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out,
                                std::uint64_t family, ScheduleDetail schedule)
{
    predictInto(plan, est, options, out, family, schedule, true);
}

void StepTimeWorkspace::predictStepOnly(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out)
{
    predictInto(plan, est, options, out, 0, ScheduleDetail::TimesOnly, false);
}

void StepTimeWorkspace::predictInto(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out,
                                    std::uint64_t family, ScheduleDetail schedule, bool splitSendsFromBubble)
{
    Scratch& s = *scratch_;
    s.resultHasEvents = false;
    const auto& l = plan.layout;
    const bool sameFamily = family != 0 && family == s.family;
    s.family = family;
    if (!sameFamily)
        s.groups = communicationGroups(plan, est, options.efficiency);
    const CommunicationGroups& groups = s.groups;
    MicrobatchCosts& mc = s.microbatch;
    microbatchCostsInto(plan, est, options, groups, mc, sameFamily);
    const ScheduleKind kind = scheduleKindOf(l.schedule);
    ScheduleCosts& costs = s.costs;
    fillStageCosts(plan, est, mc, options.efficiency, kind, costs);
    const bool dualPipe = kind == ScheduleKind::DualPipe;
    const double send = sendSeconds(plan, est, groups);
    const DataParallelTimes dp = dataParallelTimes(plan, est, options, groups, costs);

    // The reference stage: the one with the most work per micro-batch (DualPipe: the rank's two
    // stages, each for half the micro-batches).
    int reference = 0;
    double worst = -1.0;
    for (int i = 0; i < costs.p; ++i) {
        double work = 0.0;
        for (int c = 0; c < costs.v; ++c)
            work += costs.stages[size_t(c) * costs.p + i].forwardSeconds + costs.stages[size_t(c) * costs.p + i].backwardSeconds;
        if (dualPipe)
            work += costs.stages[size_t(costs.p - 1 - i)].forwardSeconds + costs.stages[size_t(costs.p - 1 - i)].backwardSeconds;
        if (work > worst) {
            worst = work;
            reference = i;
        }
    }
    PredictedComponents parts = dualPipe ? dualPipeComponents(plan, est, mc, reference, costs) : busyComponents(plan, est.stages[reference], mc, double(costs.m));
    double busy = parts.total();

    // Pipeline: once without sends (bubble = idle of the reference stage), once with them (their
    // cost on the critical path), the second with the DP tail of each stage after its last
    // backward (Schedule.h: exposed part of the sync that ends last). predictStepOnly() skips
    // the first, whose only use is that split.
    double withoutSends = busy, withSends = busy, tail = dp.gradientTail;
    const bool canSimulate = options.pipeline == PipelineMethod::Simulate && costs.p > 1
        && !pipelineProblem(kind, costs.p, costs.m, costs.v);
    out.simulated = canSimulate;
    if (costs.p > 1) {
        if (canSimulate) {
            // DualPipe's pair saving reads both runs, so it always simulates twice.
            const bool runWithoutSends = splitSendsFromBubble || dualPipe;
            if (runWithoutSends) {
                costs.sendSeconds = 0.0;
                costs.dpSyncSeconds = 0.0;
                simulateOrRecall(s, costs, kind, ScheduleDetail::TimesOnly);
                withoutSends = s.result.computeSeconds;
            }
            costs.sendSeconds = send;
            costs.dpSyncSeconds = dp.gradientTail;
            simulateOrRecall(s, costs, kind, schedule);
            s.resultHasEvents = schedule == ScheduleDetail::Events;
            withSends = s.result.computeSeconds;
            if (!runWithoutSends)
                // The bubble takes the sends' share too. The step is the same up to rounding:
                // the run without sends ends no earlier than its reference stage's busy time (that
                // stage runs its ops one after another), so the split only moves seconds between
                // the two parts.
                withoutSends = withSends;
            tail = s.result.dpSyncExposedSeconds;
            if (dualPipe)
                busy -= hideUnderPairs(parts, busy - s.result.stages[size_t(reference)].busySeconds);
        } else {
            // Closed form; the first stage finishes last, so its whole DP tail is exposed.
            costs.sendSeconds = 0.0;
            withoutSends = pipelineComputeSecondsClosedForm(costs, kind);
            costs.sendSeconds = send;
            withSends = pipelineComputeSecondsClosedForm(costs, kind);
            if (dualPipe)
                busy -= hideUnderPairs(parts, dualPipePairSavingSeconds(costs, reference));
        }
    }
    parts.pipelineBubble = std::max(0.0, withoutSends - busy);
    parts.ppSend = std::max(0.0, withSends - withoutSends);
    parts.dpCommunication = tail + dp.paramGather;
    parts.optimizer = dp.optimizer;

    out.components = parts;
    out.stepSeconds = parts.total();
    out.layers.assign(mc.layers.begin(), mc.layers.end());
    out.referenceStage = reference;
    out.matmulEfficiency = mc.matmulEfficiency;
    out.efficiencySource = options.efficiencySource;
    // The bubble is the simulated schedule's (idle share of all stages, sends included) when it
    // ran, so the timeline, `schedule` and the prediction quote one figure; otherwise the
    // reference stage's share from the closed form.
    const double pipelineSeconds = busy + parts.pipelineBubble + parts.ppSend;
    out.bubbleFraction = canSimulate ? s.result.bubbleFraction
                         : pipelineSeconds > 0 ? (parts.pipelineBubble + parts.ppSend) / pipelineSeconds
                                               : 0.0;

    // MFU and HFU in the estimate's conventions (Estimate.h FlopsEstimate: model FLOPs are the
    // matmuls the model needs, hardware FLOPs add what recompute repeats), so both count only
    // work the step performs and neither can pass 1.
    const double gpus = est.gpusUsed;
    const double peak = plan.cluster.peakFlopsPerGpu;
    const double steps = est.time.stepsExact;
    out.modelFlopsPerStep = est.flops.perToken * est.time.tokensPerStep;
    out.hardwareFlopsPerStep = steps > 0 ? est.flops.hardware / steps : 0.0;
    const double denominator = out.stepSeconds * gpus * peak;
    out.mfu = denominator > 0 ? out.modelFlopsPerStep / denominator : 0.0;
    out.hfu = denominator > 0 ? out.hardwareFlopsPerStep / denominator : 0.0;
    out.hfuAtFormatPeak = options.formatPeakFlopsPerGpu > 0 ? out.hfu * peak / options.formatPeakFlopsPerGpu : out.hfu;
    out.tflopsPerGpu = out.mfu * peak / units::TFLOPS;
    out.hardwareTflopsPerGpu = out.hfu * peak / units::TFLOPS;
    out.tokensPerSecondPerGpu = out.stepSeconds > 0 ? est.time.tokensPerStep / (out.stepSeconds * gpus) : 0.0;
    out.totalSeconds = steps * out.stepSeconds;
    out.days = out.totalSeconds / units::secondsPerDay;
    out.gpuHours = out.totalSeconds / units::secondsPerHour * gpus;
    static const std::vector<UnknownEffect> kNothingUnknown;
    setPredictedRange(plan, est, kNothingUnknown, 0, 0u, false, out);
}

ScheduleCosts predictedScheduleCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options)
{
    return predictedScheduleCosts(plan, est, options, scheduleKindOf(plan.layout.schedule));
}

ScheduleCosts predictedScheduleCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options, ScheduleKind kind)
{
    ScheduleCosts costs;
    const CommunicationGroups groups = communicationGroups(plan, est, options.efficiency);
    fillStageCosts(plan, est, microbatchCosts(plan, est, options, groups), options.efficiency, kind, costs);
    costs.sendSeconds = sendSeconds(plan, est, groups);
    costs.dpSyncSeconds = dataParallelTimes(plan, est, options, groups, costs).gradientTail;
    return costs;
}

PredictedStep predictStep(const Plan& plan, const Estimate& est, const StepTimeOptions& options)
{
    StepTimeWorkspace workspace;
    PredictedStep out;
    workspace.predict(plan, est, options, out);
    return out;
}

ScheduleResult simulatePredictedSchedule(const Plan& plan, const Estimate& est)
{
    const ScheduleKind kind = scheduleKindOf(plan.layout.schedule);
    const int v = plan.layout.schedule == Schedule::Interleaved ? plan.layout.virtualStages : 1;
    if (const auto problem = pipelineProblem(kind, plan.layout.pp, est.pipeline.microbatches, v))
        throw PlanError({{problem->field, problem->message}});
    return simulateSchedule(predictedScheduleCosts(plan, est, stepTimeOptionsFor(plan), kind), kind);
}

PredictedStep predictStep(const Plan& plan, const Estimate& est)
{
    return predictStep(plan, est, stepTimeOptionsFor(plan));
}

Plan withPredictedMfu(const Plan& plan, const PredictedStep& predicted)
{
    Plan out = plan;
    if (predicted.mfu > 0)
        out.training.mfu = predicted.mfu;
    return out;
}

}  // namespace trainplan
