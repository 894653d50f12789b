#include "core/analysis/Sensitivity.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/analysis/Analysis.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/base/Format.h"
#include "core/estimate/ActivationModel.h"
#include "core/search/LayoutAdjuster.h"

namespace trainplan {

namespace {

struct Outcome {
    double stepSeconds = 0;
    double days = 0;
};

// The figures every view shows for the basis, read from one analysis of the varied plan.
Outcome evaluate(const Plan& plan, const StepTimeOptions& options, SensitivityBasis basis, Analyser& analyser, Analysis& scratch)
{
    analyser.analyse(plan, options, scratch);
    const TimeBasis time = basis == SensitivityBasis::Assumed ? TimeBasis::AssumedMfu : TimeBasis::Predicted;
    return {scratch.stepSeconds(time), scratch.timeEstimate(time).reliability.paddedDays};
}

// The bar's outcomes at its two ends, and the swings the tornado sorts by.
void setEnds(SensitivityBar& bar, const Outcome& low, const Outcome& high)
{
    bar.stepSecondsLow = low.stepSeconds;
    bar.stepSecondsHigh = high.stepSeconds;
    bar.daysLow = low.days;
    bar.daysHigh = high.days;
    bar.swingDays = std::abs(bar.daysHigh - bar.daysLow);
    bar.swingStepSeconds = std::abs(bar.stepSecondsHigh - bar.stepSecondsLow);
}

// One input: sets it for direction -1 (low) or +1 (high) and returns the value applied, or
// nothing when it cannot move that way.
struct Input {
    const char* label;
    const char* field;
    double base;
    std::function<std::optional<double>(int direction, Plan&, StepTimeOptions&)> vary;
    SensitivityKind kind = SensitivityKind::Continuous;
    const char* symbol = "";  // for a discrete input's change text, e.g. "b"
};

// "b 1 → 2", "B 960 ← 1,024 → 1,088", "s 3,712 ← 4,096": the values a discrete bar moved to.
std::string discreteChange(const char* symbol, double base, double low, double high)
{
    std::string text = std::string(symbol) + " ";
    if (low != base)
        text += formatNumber(low, 6) + " ← ";
    text += formatNumber(base, 6);
    if (high != base)
        text += " → " + formatNumber(high, 6);
    if (low == base && high == base)
        text += " (no valid neighbour)";
    return text;
}

// A continuous input scaled by (1 +- fraction).
Input scaled(const char* label, const char* field, double base, double fraction, std::function<void(Plan&, StepTimeOptions&, double)> set)
{
    return {label, field, base, [=](int direction, Plan& plan, StepTimeOptions& o) -> std::optional<double> {
                const double value = base * (1.0 + direction * fraction);
                set(plan, o, value);
                return value;
            }};
}

// The neighbouring entry of a sorted candidate list (micro-batch sizes).
std::optional<int> neighbour(const std::vector<int>& values, int current, int direction)
{
    const auto it = std::find(values.begin(), values.end(), current);
    if (it == values.end())
        return std::nullopt;
    if (direction < 0)
        return it == values.begin() ? std::nullopt : std::optional<int>(*(it - 1));
    return it + 1 == values.end() ? std::nullopt : std::optional<int>(*(it + 1));
}

std::vector<Input> inputsFor(const Plan& plan, const StepTimeOptions& base, const SensitivityOptions& options)
{
    const double f = options.fraction;
    const auto& cl = plan.cluster;
    const auto& tr = plan.training;
    std::vector<Input> in;
    in.push_back(scaled("Peak FLOP/s per GPU", "cluster.peak_bf16_tflops", cl.peakFlopsPerGpu, f,
                        [](Plan& p, StepTimeOptions&, double v) { p.cluster.peakFlopsPerGpu = v; }));
    in.push_back(scaled("Intra-node bandwidth", "cluster.intra_node_bandwidth_gb_per_s", cl.intraNodeBytesPerSecond, f,
                        [](Plan& p, StepTimeOptions&, double v) { p.cluster.intraNodeBytesPerSecond = v; }));
    in.push_back(scaled("Inter-node bandwidth", "cluster.inter_node_bandwidth_gb_per_s", cl.interNodeBytesPerSecond, f,
                        [](Plan& p, StepTimeOptions&, double v) { p.cluster.interNodeBytesPerSecond = v; }));
    if (options.basis == SensitivityBasis::Predicted) {
        in.push_back(scaled("Matmul efficiency", "step_time.matmul_efficiency", base.efficiency.matmulEfficiency, f,
                            [](Plan&, StepTimeOptions& o, double v) { o.efficiency.matmulEfficiency = v; }));
        if (usesFlashAttention(plan))
            in.push_back(
                scaled("FlashAttention efficiency", "step_time.flash_attention_efficiency", base.efficiency.flashAttentionEfficiency, f,
                    [](Plan&, StepTimeOptions& o, double v) { o.efficiency.flashAttentionEfficiency = v; }));
        in.push_back(scaled("HBM bandwidth", "hbm_bandwidth_gb_per_s", base.efficiency.hbmBytesPerSecond, f,
                            [](Plan&, StepTimeOptions& o, double v) { o.efficiency.hbmBytesPerSecond = v; }));
    } else {
        in.push_back(scaled("MFU (assumed)", "training.mfu", tr.mfu, f, [](Plan& p, StepTimeOptions&, double v) { p.training.mfu = v; }));
    }
    // Global batch: the nearest multiple of DP x micro-batch (x PP when interleaving, which needs
    // whole groups of p micro-batches) to +-fraction, at least one step away.
    const long long unit =
        (long long)plan.layout.dp * tr.microBatchSize * (plan.layout.schedule == Schedule::Interleaved ? plan.layout.pp : 1);
    in.push_back({"Global batch", "training.global_batch_sequences", double(tr.globalBatchSequences),
                  [=](int direction, Plan& p, StepTimeOptions&) -> std::optional<double> {
                      const double target = tr.globalBatchSequences * (1.0 + direction * f);
                      const long long base = tr.globalBatchSequences;
                      long long value = std::llround(target / unit) * unit;
                      // At least one multiple away, on the side asked for: a base that is not
                      // itself a multiple (an invalid batch) can round to the other side.
                      if (direction > 0 && value <= base)
                          value = (base / unit + 1) * unit;
                      if (direction < 0 && value >= base)
                          value = ((base - 1) / unit) * unit;
                      if (value < unit)
                          return std::nullopt;
                      p.training.globalBatchSequences = value;
                      return double(value);
                  },
                  SensitivityKind::Discrete, "B"});
    const std::vector<int> micro = microBatchCandidates(plan);
    in.push_back({"Micro-batch", "training.micro_batch_size", double(tr.microBatchSize),
                  [=](int direction, Plan& p, StepTimeOptions&) -> std::optional<double> {
                      const auto value = neighbour(micro, tr.microBatchSize, direction);
                      if (!value)
                          return std::nullopt;
                      p.training.microBatchSize = *value;
                      return double(*value);
                  },
                  SensitivityKind::Discrete, "b"});
    // Sequence length: a multiple of 64 x CP (even per-rank halves for CP), tokens held fixed.
    const int seqUnit = 64 * plan.layout.cp;
    in.push_back({"Sequence length", "model.sequence_length", double(plan.model.sequenceLength),
                  [=](int direction, Plan& p, StepTimeOptions&) -> std::optional<double> {
                      const double target = plan.model.sequenceLength * (1.0 + direction * f);
                      const long long value = std::max<long long>(seqUnit, std::llround(target / seqUnit) * seqUnit);
                      if (direction * (value - plan.model.sequenceLength) <= 0)
                          return std::nullopt;  // no multiple on that side (or the rounding went back)
                      p.model.sequenceLength = int(value);
                      return double(value);
                  },
                  SensitivityKind::Discrete, "s"});
    if (cl.mtbfSeconds) {
        const double mtbf = *cl.mtbfSeconds;
        in.push_back(scaled("MTBF", cl.mtbfBasis == MtbfBasis::PerNode ? "cluster.mtbf_hours_per_node" : "cluster.mtbf_hours_per_gpu", mtbf,
            f, [](Plan& p, StepTimeOptions&, double v) { p.cluster.mtbfSeconds = v; }));
    }
    const auto& rel = plan.reliability;
    if (rel.checkpointWriteSeconds)
        in.push_back(scaled("Checkpoint write time", "reliability.checkpoint_write_seconds", *rel.checkpointWriteSeconds, f,
                            [](Plan& p, StepTimeOptions&, double v) { p.reliability.checkpointWriteSeconds = v; }));
    in.push_back(scaled("Restart time", "reliability.restart_seconds", rel.restartSeconds, f,
                        [](Plan& p, StepTimeOptions&, double v) { p.reliability.restartSeconds = v; }));
    return in;
}

}  // namespace

SensitivityResult sensitivity(const Plan& plan, const SensitivityOptions& options)
{
    StepTimeOptions base = stepTimeOptionsFor(plan);
    if (options.framework)
        base.framework = *options.framework;
    SensitivityResult out;
    out.basis = options.basis;
    out.fraction = options.fraction;
    out.basisLabel = options.basis == SensitivityBasis::Predicted ? std::string("predicted step time (step-time model)")
                                                                  : "assumed MFU of " + formatPercent(plan.training.mfu, 0);
    const std::string days = plan.cluster.mtbfSeconds ? "padded days" : "compute days";
    out.title = "Sensitivity of " + days + ", " + out.basisLabel + ": continuous inputs ±" + formatPercent(options.fraction, 0) +
                ", whole-number inputs to their neighbouring valid values" +
                (options.basis == SensitivityBasis::Predicted ? ", unknown inputs to their slower and faster values" : "");
    Analyser analyser;
    Analysis scratch;
    const Outcome center = evaluate(plan, base, options.basis, analyser, scratch);
    out.baseStepSeconds = center.stepSeconds;
    out.baseDays = center.days;
    for (const Input& input : inputsFor(plan, base, options)) {
        SensitivityBar bar;
        bar.input = input.label;
        bar.field = input.field;
        bar.kind = input.kind;
        bar.baseValue = input.base;
        Outcome ends[2] = {center, center};
        double values[2] = {input.base, input.base};
        for (int side = 0; side < 2; ++side) {
            Plan varied = plan;
            StepTimeOptions o = base;
            if (const auto value = input.vary(side == 0 ? -1 : 1, varied, o)) {
                values[side] = *value;
                ends[side] = evaluate(varied, o, options.basis, analyser, scratch);
            }
        }
        bar.lowValue = values[0];
        bar.highValue = values[1];
        bar.change = input.kind == SensitivityKind::Discrete ? discreteChange(input.symbol, input.base, values[0], values[1])
                                                             : "±" + formatPercent(options.fraction, 0);
        setEnds(bar, ends[0], ends[1]);
        out.bars.push_back(std::move(bar));
    }
    if (options.basis == SensitivityBasis::Predicted) {
        // The analysis settles an unknown recompute; the unknowns act on the settled plan.
        const Plan settledPlan = withExpectedLayoutUnknowns(plan);
        for (const UnknownInput& unknown : unknownInputs(settledPlan)) {
            SensitivityBar bar;
            bar.input = unknown.label;
            bar.field = unknown.field;
            bar.kind = SensitivityKind::Unknown;
            bar.baseValue = 0.0;
            bar.lowValue = -1.0;
            bar.highValue = 1.0;
            bar.lowText = unknown.slowValue;
            bar.baseText = unknown.expectedValue;
            bar.highText = unknown.fastValue;
            bar.change = "unknown: " + unknown.slowValue + " / " + unknown.fastValue + " (expected " + unknown.expectedValue + ")";
            Outcome ends[2];
            for (int side = 0; side < 2; ++side) {
                Plan varied = settledPlan;
                varied.layout.unknownFields = 0;  // as set here, not settled again
                StepTimeOptions o = base;
                unknown.apply(side == 1, varied, o.framework);
                if (!(varied.cluster.efficiency == settledPlan.cluster.efficiency))
                    o.efficiency = efficiencyFor(varied.cluster);
                ends[side] = evaluate(varied, o, options.basis, analyser, scratch);
            }
            // A value that is usually the faster can be the slower for this plan (fused gradient
            // accumulation adds into main_grad even at one micro-batch): the low end is the slower.
            if (ends[0].stepSeconds < ends[1].stepSeconds) {
                std::swap(ends[0], ends[1]);
                std::swap(bar.lowText, bar.highText);
                bar.change = "unknown: " + bar.lowText + " / " + bar.highText + " (expected " + unknown.expectedValue + ")";
            }
            setEnds(bar, ends[0], ends[1]);
            if (bar.swingStepSeconds > 0)
                out.bars.push_back(std::move(bar));
        }
    }
    std::stable_sort(
        out.bars.begin(), out.bars.end(), [](const SensitivityBar& a, const SensitivityBar& b) { return a.swingDays > b.swingDays; });
    return out;
}

}  // namespace trainplan
