// Published runs as plans (rules in RealityCheck.h) and their predicted-against-measured rows.
#include "core/analysis/RealityCheck.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"
#include "core/base/Units.h"
#include "core/presets/Presets.h"

namespace trainplan {

using nlohmann::json;

namespace {

// A published run to predict; family, accelerator and framework are filled in once all are read.
RealityCase realityCase(std::string id, std::string location, Plan plan, RealityMetric metric, double measured)
{
    RealityCase rc;
    rc.id = std::move(id);
    rc.location = std::move(location);
    rc.plan = std::move(plan);
    rc.metric = metric;
    rc.measured = measured;
    return rc;
}

constexpr int kUnpublishedMicroBatch = 1;  // RealityCheck.h, rule 1

const json* findCase(const json& runs, const std::string& id)
{
    for (const auto& c : runs.at("cases"))
        if (c.at("id") == id)
            return &c;
    return nullptr;
}

int intOr(const json& j, const char* key, int fallback)
{
    return j.contains(key) && j.at(key).is_number() ? j.at(key).get<int>() : fallback;
}

// A Megatron GPT (learned positions, LayerNorm, GeLU 4h FFN, biases, output layer tied to the
// embedding) on Selene's A100s, with 2021-2022 Megatron-LM's layout choices.
Plan seleneGptPlan(const json& model, int gpus)
{
    Plan plan;
    plan.name = "published run";
    applyAccelerator(*findAcceleratorPreset("A100 SXM 80GB"), plan.cluster);
    plan.cluster.gpus = gpus;
    plan.cluster.mtbfSeconds.reset();
    auto& m = plan.model;
    m.name = "GPT";
    m.layers = model.at("layers").get<int>();
    m.hiddenSize = model.at("hidden").get<int>();
    m.attentionHeads = model.at("heads").get<int>();
    m.kvHeads = m.attentionHeads;
    m.headDim = m.hiddenSize / m.attentionHeads;
    m.ffnHiddenSize = model.value("ffn", 4 * m.hiddenSize);
    m.ffnKind = FfnKind::Gelu;
    m.norm = NormKind::LayerNorm;
    m.bias = true;
    m.positionEmbedding = PositionEmbedding::Learned;
    m.tiedEmbeddings = true;
    m.vocabSize = model.value("vocab", 51200);
    m.sequenceLength = model.value("seq_len", 2048);
    plan.training.tokens = 300e9;
    plan.training.precision = PrecisionScheme::Bf16WithFp32MasterAdam;
    auto& l = plan.layout;
    l.cp = 1;
    l.zeroStage = 0;
    l.stageLayers.clear();
    plan.framework = FrameworkSpec{};
    plan.framework.profile = "megatron-lm-2021";
    return plan;
}

// Every parallel dimension at size 1, for a run that states only some of them.
LayoutSpec unitSizes()
{
    LayoutSpec sizes;
    for (ParallelDim d : kParallelDims)
        sizes.size(d) = 1;
    return sizes;
}

// The sizes a published run states under the labels the papers and the table share ("TP", "PP",
// "DP"); a dimension it does not name (CP, which these runs predate) is 1.
LayoutSpec publishedSizes(const json& parallel)
{
    LayoutSpec sizes = unitSizes();
    for (ParallelDim d : kParallelDims) {
        const std::string label(parallelDimLabel(d));
        if (parallel.contains(label))
            sizes.size(d) = parallel.at(label).get<int>();
    }
    return sizes;
}

void setLayout(Plan& plan, const LayoutSpec& sizes, long long batch, int micro, Recompute recompute, bool sp, int v)
{
    auto& l = plan.layout;
    for (ParallelDim d : kParallelDims)
        l.size(d) = sizes.size(d);
    l.recompute = recompute;
    l.sequenceParallel = sp;
    l.schedule = v > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
    l.virtualStages = v;
    plan.training.globalBatchSequences = batch;
    plan.training.microBatchSize = micro;
}

std::string locationOf(const json& c)
{
    const json& source = c.at("source");
    return source.value("ref", std::string()) + ", " + source.value("location", std::string());
}

void addWeakScaling(const json& c, std::vector<RealityCase>& out)
{
    const json& par = c.at("parallel");
    RealityCase rc = realityCase(c.at("id"), locationOf(c), seleneGptPlan(c.at("model"), c.at("hardware").at("count")),
                   RealityMetric::HardwareTflopsPerGpu, c.at("measured").at("tflops_per_gpu").get<double>());
    setLayout(rc.plan, publishedSizes(par), par.at("global_batch_seqs").get<long long>(),
              intOr(par, "micro_batch", kUnpublishedMicroBatch), Recompute::Full, false, 1);
    out.push_back(std::move(rc));
}

void addTable2(const json& runs, const json& c, std::vector<RealityCase>& out)
{
    const json& par = c.at("parallel");
    const double params = c.at("model").at("params_B").get<double>();
    const json* shape = findCase(runs, params < 300 ? "korthikanti22-175B" : "narayanan21-t1-529.6B");
    if (!shape)
        return;
    const int gpus = c.at("hardware").at("count");
    RealityCase rc = realityCase(c.at("id"), locationOf(c), seleneGptPlan(shape->at("model"), gpus), RealityMetric::HardwareTflopsPerGpu,
                   c.at("measured").at("tflops_per_gpu").get<double>());
    const int micro = intOr(par, "micro_batch", kUnpublishedMicroBatch);
    const long long batch = par.at("global_batch_seqs").get<long long>();
    if (par.at("scheme").get<std::string>() == "PTD-P") {
        // PTD-P runs TP 8 inside each node and pipelines the rest of the model-parallel group.
        const int mp = par.at("model_parallel_size_TPxPP").get<int>();
        LayoutSpec sizes = unitSizes();
        sizes.tp = 8;
        sizes.pp = mp / 8;
        sizes.dp = gpus / mp;
        setLayout(rc.plan, sizes, batch, micro, Recompute::Full, false, 1);
    } else {
        LayoutSpec sizes = unitSizes();
        sizes.dp = gpus;
        setLayout(rc.plan, sizes, batch, micro, Recompute::Full, false, 1);
        rc.plan.layout.zeroStage = 3;
        // ZeRO-3 as the DeepSpeed library runs it (Narayanan et al. 2021, Sec. 5.2, integrated it
        // through DeepSpeed): parameters gathered submodule by submodule.
        rc.plan.framework.zero3Gathering = Zero3Gathering::Submodule;
        rc.gated = false;
    }
    out.push_back(std::move(rc));
}

void addKorthikanti(const json& c, std::vector<RealityCase>& out)
{
    const json& par = c.at("parallel");
    const json& measured = c.at("measured");
    const LayoutSpec sizes = publishedSizes(par);
    const long long batch = par.at("global_batch_seqs").get<long long>();
    const int micro = intOr(par, "micro_batch", kUnpublishedMicroBatch);
    const int v = intOr(par, "interleave_stages", 1);
    RealityCase present = realityCase(c.at("id"), locationOf(c), seleneGptPlan(c.at("model"), c.at("hardware").at("count")),
        RealityMetric::Mfu, measured.at("MFU_pct").get<double>() / 100.0);
    setLayout(present.plan, sizes, batch, micro, Recompute::Selective, true, v);
    // The full-recompute baseline (TP without SP): its iteration time, or its MFU for dp8.
    if (measured.contains("iteration_time_s_full_recompute") || measured.contains("MFU_pct_with_full_recompute")) {
        const bool time = measured.contains("iteration_time_s_full_recompute");
        RealityCase full =
            realityCase(present.id + " full", present.location, present.plan, time ? RealityMetric::IterationSeconds : RealityMetric::Mfu,
                time ? measured.at("iteration_time_s_full_recompute").get<double>()
                     : measured.at("MFU_pct_with_full_recompute").get<double>() / 100.0);
        setLayout(full.plan, sizes, batch, micro, Recompute::Full, false, v);
        out.push_back(std::move(present));
        out.push_back(std::move(full));
        return;
    }
    out.push_back(std::move(present));
}

void addLayerTimes(const json& runs, const json& c, std::vector<RealityCase>& out)
{
    // Table 4: one layer of the 22B model (Table 3 shape from the 22B case), TP 8, b = 4.
    const json* shape = findCase(runs, "korthikanti22-22B");
    if (!shape)
        return;
    const json& par = c.at("parallel");
    const json& ms = c.at("measured").at("per_layer_ms");
    const struct {
        const char* key;
        Recompute recompute;
        bool sp;
    } settings[] = {{"baseline_no_recompute", Recompute::None, false},
                    {"sequence_parallel", Recompute::None, true},
                    {"full_recompute", Recompute::Full, false},
                    {"selective_recompute", Recompute::Selective, false},
                    {"selective_plus_sequence", Recompute::Selective, true}};
    const int micro = par.at("micro_batch").get<int>();
    for (const auto& s : settings) {
        if (!ms.contains(s.key))
            continue;
        RealityCase rc = realityCase(c.at("id").get<std::string>() + " " + s.key, locationOf(c),
            seleneGptPlan(shape->at("model"), c.at("hardware").at("count")), RealityMetric::LayerMilliseconds,
            ms.at(s.key).at("total").get<double>());
        LayoutSpec sizes = unitSizes();
        sizes.tp = par.at("TP").get<int>();
        setLayout(rc.plan, sizes, micro, micro, s.recompute, s.sp, 1);
        rc.trainedLayout = false;  // one layer timed, not the whole model trained
        out.push_back(std::move(rc));
    }
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

FrameworkOptions realityCheckFramework()
{
    Plan plan;
    plan.framework.profile = "megatron-lm-2021";
    return frameworkOptionsFor(plan);
}

std::vector<RealityCase> realityCases(const json& runs)
{
    std::vector<RealityCase> out;
    for (const auto& c : runs.at("cases")) {
        const std::string family = c.at("family");
        const size_t before = out.size();
        if (family.find("weak scaling") != std::string::npos)
            addWeakScaling(c, out);
        else if (family.find("vs ZeRO-3") != std::string::npos)
            addTable2(runs, c, out);
        else if (family.find("seq-parallel") != std::string::npos)
            addKorthikanti(c, out);
        else if (family.find("per-layer timing") != std::string::npos)
            addLayerTimes(runs, c, out);
        // Folds by source paper: Narayanan et al. 2021 or Korthikanti et al. 2022.
        const std::string source = c.at("source").value("ref", std::string());
        for (size_t i = before; i < out.size(); ++i) {
            out[i].family = source.rfind("narayanan", 0) == 0 ? "Narayanan et al. 2021" : "Korthikanti et al. 2022";
            out[i].accelerator = "A100 SXM 80GB";
            out[i].framework = out[i].plan.framework.profile;
        }
    }
    return out;
}

bool isThroughputMetric(RealityMetric metric)
{
    return metric == RealityMetric::HardwareTflopsPerGpu || metric == RealityMetric::Mfu || metric == RealityMetric::TokensPerSecondPerGpu;
}

RealityRow evaluateRealityCase(const RealityCase& rc, const CalibrationKnobs& knobs)
{
    StepTimeOptions options = stepTimeOptionsFor(rc.plan);
    options.efficiency.matmulEfficiency *= knobs.matmulScale;
    if (knobs.kernelOverheadSeconds >= 0)
        options.efficiency.kernelOverheadSeconds = knobs.kernelOverheadSeconds;
    const Analysis analysis = analyse(rc.plan, options);
    const PredictedStep& p = analysis.predicted;
    RealityRow row;
    row.id = rc.id;
    row.location = rc.location;
    row.family = rc.family;
    row.metric = rc.metric;
    row.measured = rc.measured;
    row.gated = rc.gated;
    row.fits = analysis.estimate.fits;
    row.trainedLayout = rc.trainedLayout;
    row.memoryFit = analysis.memoryRange.fit;
    // The range ends in the metric's unit: throughput scales as 1 / step, durations as the step.
    const double stepLow = p.range.low.stepSeconds / p.stepSeconds, stepHigh = p.range.high.stepSeconds / p.stepSeconds;
    double slow = 1.0, fast = 1.0;  // factors on the prediction at the pessimistic / optimistic end
    switch (rc.metric) {
    case RealityMetric::HardwareTflopsPerGpu:
        row.predicted = p.hardwareTflopsPerGpu;
        slow = 1.0 / stepLow, fast = 1.0 / stepHigh;
        break;
    case RealityMetric::Mfu:
        row.predicted = p.mfu;
        slow = 1.0 / stepLow, fast = 1.0 / stepHigh;
        break;
    case RealityMetric::IterationSeconds:
        row.predicted = p.stepSeconds;
        slow = stepLow, fast = stepHigh;
        break;
    case RealityMetric::TokensPerSecondPerGpu:
        row.predicted = p.tokensPerSecondPerGpu;
        slow = 1.0 / stepLow, fast = 1.0 / stepHigh;
        break;
    case RealityMetric::LayerMilliseconds:
        // Layer-level reference measurements are of one-kind models: the first kind's layer.
        row.predicted = (p.layers.front().forward() + p.layers.front().backward()) * units::millisecondsPerSecond;
        slow = stepLow, fast = stepHigh;
        break;
    case RealityMetric::PeakMemoryGib:
        row.predicted = analysis.estimate.perGpu.total / double(1ull << 30);
        slow = analysis.memoryRange.lowBytes / analysis.estimate.perGpu.total;
        fast = analysis.memoryRange.highBytes / analysis.estimate.perGpu.total;
        break;
    }
    row.low = row.predicted * std::min(slow, fast);
    row.high = row.predicted * std::max(slow, fast);
    row.inRange = row.measured >= row.low && row.measured <= row.high;
    row.error = (row.predicted - row.measured) / row.measured;
    if (rc.metric != RealityMetric::PeakMemoryGib && p.stepSeconds > 0 && row.predicted > 0) {
        // A throughput is work / step: its predicted / measured is the step's measured / predicted.
        const double ratio = row.predicted / row.measured;
        row.logStepResidual = isThroughputMetric(rc.metric) ? std::log(ratio) : -std::log(ratio);
        row.logStepFastest = -p.range.unknownsLogFaster;
        row.logStepSlowest = p.range.unknownsLogSlower;
    }
    return row;
}

namespace {

// Every case's row, with the median and worst |error| over the gated ones.
RealitySummary summarise(const std::vector<RealityCase>& cases)
{
    RealitySummary s;
    std::vector<double> gated;
    for (const auto& rc : cases) {
        RealityRow row = evaluateRealityCase(rc);
        if (row.gated) {
            gated.push_back(std::abs(row.error));
            if (std::abs(row.error) > s.worstAbsError) {
                s.worstAbsError = std::abs(row.error);
                s.worstId = row.id;
            }
        }
        s.rows.push_back(std::move(row));
    }
    s.gatedCount = int(gated.size());
    s.medianAbsError = median(gated);
    std::vector<StepResidual> steps;
    for (const auto& row : s.rows)
        if (row.gated && row.metric != RealityMetric::PeakMemoryGib)
            steps.push_back(stepResidual(row));
    const RangeScore range = rangeScore(steps, stepErrorBand());
    s.rangeCount = range.count;
    s.rangeCoverage = range.coverage;
    s.medianRangeWidth = range.medianWidth;
    return s;
}

}  // namespace

RealitySummary realityCheck(const json& runs, const json& calibrationRuns)
{
    std::vector<RealityCase> cases = realityCases(runs);
    for (auto& c : calibrationCases(calibrationRuns))
        cases.push_back(std::move(c));
    for (auto& c : calibrationMoeCases(calibrationRuns))
        cases.push_back(std::move(c));
    return summarise(cases);
}

RealitySummary realityCheck(const json& runs)
{
    return summarise(realityCases(runs));
}

const char* realityMetricName(RealityMetric m)
{
    switch (m) {
    case RealityMetric::HardwareTflopsPerGpu: return "tflops_per_gpu_eq3";
    case RealityMetric::Mfu: return "mfu";
    case RealityMetric::IterationSeconds: return "iteration_seconds";
    case RealityMetric::LayerMilliseconds: return "layer_milliseconds";
    case RealityMetric::PeakMemoryGib: return "peak_memory_gib";
    case RealityMetric::TokensPerSecondPerGpu: return "tokens_per_second_per_gpu";
    }
    return "";
}

json realityCheckToJson(const RealitySummary& s)
{
    json rows = json::array();
    for (const auto& r : s.rows)
        rows.push_back({{"id", r.id},
                        {"location", r.location},
                        {"family", r.family},
                        {"low", r.low},
                        {"high", r.high},
                        {"in_range", r.inRange},
                        {"metric", realityMetricName(r.metric)},
                        {"predicted", r.predicted},
                        {"measured", r.measured},
                        {"error", r.error},
                        {"gated", r.gated},
                        {"fits", r.fits},
                        {"trained_layout", r.trainedLayout},
                        {"verdict", memoryFitName(r.memoryFit)}});
    const std::array<int, 3> fitCounts = realityFitCounts(s);
    return json{{"reality_check",
                 {{"gated", s.gatedCount},
                  {"layouts_by_verdict",
                      {{memoryFitName(MemoryFit::Fits), fitCounts[0]}, {memoryFitName(MemoryFit::MayNotFit), fitCounts[1]},
                          {memoryFitName(MemoryFit::DoesNotFit), fitCounts[2]}}},
                  {"median_abs_error", s.medianAbsError},
                  {"worst_abs_error", s.worstAbsError},
                  {"worst_id", s.worstId},
                  {"range_count", s.rangeCount},
                  {"range_coverage", s.rangeCoverage},
                  {"median_range_width", s.medianRangeWidth},
                  {"step_error_band",
                      {{"coverage", stepErrorBand().coverage}, {"log_low", stepErrorBand().logLow}, {"log_high", stepErrorBand().logHigh}}},
                  {"rows", std::move(rows)}}}};
}

std::array<int, 3> realityFitCounts(const RealitySummary& s)
{
    std::array<int, 3> counts{};
    std::vector<std::string> seen;
    for (const auto& r : s.rows) {
        if (!r.trainedLayout || std::find(seen.begin(), seen.end(), r.id) != seen.end())
            continue;
        seen.push_back(r.id);
        ++counts[size_t(r.memoryFit)];
    }
    return counts;
}

}  // namespace trainplan
