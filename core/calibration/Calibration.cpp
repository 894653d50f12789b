#include "core/calibration/Calibration.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/estimate/Estimate.h"
#include "core/plan/EnumNames.h"
#include "core/plan/PlanFields.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

namespace {

// A figure settles a measurement only if the prediction moves with it: a 10 % change in the
// figure must move the measured quantity by at least 1 % (an elasticity of 0.1). Below that the
// fit would put an arbitrary value in the plan to explain a rounding error.
constexpr double kFigureStep = 0.9;
constexpr double kMinimumElasticity = 0.1;
// The fraction fields' range (PlanFields.cpp: matmul, collective fractions).
constexpr double kLowestFraction = 0.01, kHighestFraction = 1.0;

double exposedCommunication(const PredictedComponents& c)
{
    return c.tpCommunication + c.cpCommunication + c.zeroCommunication + c.epCommunication + c.ppSend + c.dpCommunication;
}

// The fraction in [kLowestFraction, kHighestFraction] at which value(fraction) equals target,
// for a value that falls as the fraction rises (a faster GEMM or link, a shorter time). Bisection
// on the log of the fraction: robust to the step's kinks (the pipeline's critical path changes
// stage). nullopt with `why` when the target lies outside what the range can give.
std::optional<double> solveFraction(const std::function<double(double)>& value, double target, std::string& why)
{
    const double fastest = value(kHighestFraction), slowest = value(kLowestFraction);
    if (target < fastest) {
        why = "the measurement (" + formatSeconds(target) + ") is shorter than the model gives with this figure at 1.0 ("
            + formatSeconds(fastest) + "): something else in the plan is slower than the cluster; check the layout, the batch and "
              "the framework switches against the measured run";
        return std::nullopt;
    }
    if (target > slowest) {
        why = "the measurement (" + formatSeconds(target) + ") is longer than the model gives with this figure at 0.01 ("
            + formatSeconds(slowest) + "): check that the measured run used this layout and batch";
        return std::nullopt;
    }
    double lo = std::log(kLowestFraction), hi = std::log(kHighestFraction);
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (value(std::exp(mid)) > target)
            lo = mid;
        else
            hi = mid;
    }
    return std::exp(0.5 * (lo + hi));
}

void requirePositive(const std::optional<double>& v, const char* path)
{
    if (v && !(std::isfinite(*v) && *v > 0))
        throw PlanError({PlanProblem{path, "must be a finite number above zero"}});
}

std::string titleOf(std::string_view path)
{
    return std::string(planField(path).title);
}

}  // namespace

std::string measuredLayoutText(const Plan& plan)
{
    const LayoutSpec& l = plan.layout;
    std::string out = layoutSizesText(l);
    if (l.virtualStages > 1)
        out += ", " + std::to_string(l.virtualStages) + " virtual stages";
    out += ", micro-batch " + std::to_string(plan.training.microBatchSize) + ", global batch "
        + formatInteger(double(plan.training.globalBatchSequences)) + " sequences, recompute " + std::string(nameOf(kRecomputeNames, l.recompute));
    if (l.zeroStage > 0)
        out += ", ZeRO " + std::to_string(l.zeroStage);
    return out;
}

CalibrationResult calibrate(const Plan& plan, const CalibrationInputs& inputs)
{
    const MeasuredRun& run = inputs.run;
    requirePositive(run.stepSeconds, "measured.step_seconds");
    requirePositive(run.tokensPerSecondPerGpu, "measured.tokens_per_second_per_gpu");
    requirePositive(run.peakMemoryBytes, "measured.peak_memory_gb");
    requirePositive(run.exposedCommunicationSeconds, "measured.exposed_communication_seconds");
    for (const auto& [path, text] : {std::pair<const char*, const std::string*>{"cluster.calibration.framework", &inputs.framework},
             {"cluster.calibration.date", &inputs.date}, {"cluster.calibration.source", &run.source}})
        if (std::string tooLong = textLengthProblem(planField(path), *text); !tooLong.empty())
            throw PlanError({PlanProblem{path, tooLong}});
    const std::string& date = inputs.date;
    const auto digits = [&](size_t from, size_t n) {
        return std::all_of(date.begin() + long(from), date.begin() + long(from + n), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!date.empty() && !(date.size() == 10 && date[4] == '-' && date[7] == '-' && digits(0, 4) && digits(5, 2) && digits(8, 2)))
        throw PlanError({PlanProblem{"cluster.calibration.date", "must be a date as YYYY-MM-DD, got \"" + date.substr(0, 40) + "\""}});
    if (!run.hasThroughput())
        throw PlanError({PlanProblem{"measured.step_seconds", "is missing: a calibration needs the measured step time or tokens per second per GPU"}});

    const Estimate est = estimate(plan);
    if (est.gpusUsed <= 0 || est.time.tokensPerStep <= 0)
        throw PlanError({PlanProblem{"layout", "uses no GPUs or trains no tokens per step: nothing to calibrate"}});
    const double measuredStep = run.stepSeconds ? *run.stepSeconds : est.time.tokensPerStep / (*run.tokensPerSecondPerGpu * est.gpusUsed);
    if (run.stepSeconds && run.tokensPerSecondPerGpu) {
        const double implied = est.time.tokensPerStep / (*run.tokensPerSecondPerGpu * est.gpusUsed);
        if (std::abs(implied / measuredStep - 1.0) > 0.05)
            throw PlanError({PlanProblem{"measured.tokens_per_second_per_gpu",
                "implies a step of " + formatSeconds(implied) + " for this plan's batch and GPUs, but the measured step is "
                    + formatSeconds(measuredStep) + ": give one of the two, or check the plan's batch"}});
    }
    if (run.exposedCommunicationSeconds && *run.exposedCommunicationSeconds >= measuredStep)
        throw PlanError({PlanProblem{"measured.exposed_communication_seconds", "must be shorter than the measured step (" + formatSeconds(measuredStep) + ")"}});
    if (run.peakMemoryBytes && *run.peakMemoryBytes > plan.cluster.memoryBytesPerGpu)
        throw PlanError({PlanProblem{"measured.peak_memory_gb",
            "is more than the GPU holds (" + formatBytes(plan.cluster.memoryBytesPerGpu) + ", cluster.memory_gb)"}});

    CalibrationResult result;
    result.plan = plan;
    Plan& out = result.plan;
    StepTimeOptions options = stepTimeOptionsFor(plan);
    const auto predict = [&](const StepTimeOptions& o) { return predictStep(plan, est, o); };
    const PredictedStep before = predict(options);
    result.tokensPerSecondPerGpuBefore = before.tokensPerSecondPerGpu;
    result.mfuBefore = before.mfu;
    std::vector<std::string> fittedFields;

    // Which figures the measured layout depends on enough to settle them (kMinimumElasticity).
    const double networkField = 0, scaleUpField = 1;  // which collective fraction the communication fit moves
    double commLink = networkField;
    bool fitComm = false, fitGemm = false;
    const std::string network = "cluster.efficiency.network_collective_fraction", scaleUp = "cluster.efficiency.scale_up_collective_fraction";
    const std::string gemm = "cluster.efficiency.matmul_fraction";
    const double commBefore = exposedCommunication(before.components);
    if (run.exposedCommunicationSeconds) {
        StepTimeOptions slowNetwork = options, slowScaleUp = options;
        slowNetwork.efficiency.interNodeCollectiveEfficiency *= kFigureStep;
        slowScaleUp.efficiency.intraNodeCollectiveEfficiency *= kFigureStep;
        const double viaNetwork = exposedCommunication(predict(slowNetwork).components) - commBefore;
        const double viaScaleUp = exposedCommunication(predict(slowScaleUp).components) - commBefore;
        commLink = viaNetwork >= viaScaleUp ? networkField : scaleUpField;
        const double elasticity = commBefore > 0 ? (std::max(viaNetwork, viaScaleUp) / commBefore) / (1.0 / kFigureStep - 1.0) : 0.0;
        fitComm = commBefore > 0 && elasticity >= kMinimumElasticity;
        if (!fitComm)
            result.notFitted.push_back({"the collective efficiencies (" + network + ", " + scaleUp + ")",
                "this layout's exposed communication (" + formatSeconds(commBefore)
                    + " predicted) barely moves with either link's efficiency: the layout has no collectives or hides them, so a "
                      "measured exposed time cannot settle them; measure a layout that waits on the network (larger DP, no overlap)"});
    }
    {
        StepTimeOptions slower = options;
        slower.efficiency.matmulEfficiency *= kFigureStep;
        const double elasticity = (predict(slower).stepSeconds / before.stepSeconds - 1.0) / (1.0 / kFigureStep - 1.0);
        fitGemm = elasticity >= kMinimumElasticity;
        if (!fitGemm)
            result.notFitted.push_back({titleOf(gemm) + " (" + gemm + ")",
                "the GEMMs are too small a part of this layout's step (elasticity " + formatNumber(elasticity, 2)
                    + "): the step is set by communication or fixed costs, so it cannot settle the GEMM rate"});
    }
    const auto linkFigure = [&](StepTimeOptions& o) -> double& {
        return commLink == networkField ? o.efficiency.interNodeCollectiveEfficiency : o.efficiency.intraNodeCollectiveEfficiency;
    };
    const std::string commField = commLink == networkField ? network : scaleUp;
    const double commFigureBefore = linkFigure(options), gemmFigureBefore = options.efficiency.matmulEfficiency;
    // The two fits interact (faster GEMMs leave less backward to hide the gradient reduction
    // under): alternate them until both land, a few rounds at most.
    for (int round = 0; round < 12 && (fitComm || fitGemm); ++round) {
        if (fitComm) {
            std::string why;
            const auto f = solveFraction(
                [&](double x) {
                    StepTimeOptions o = options;
                    linkFigure(o) = x;
                    return exposedCommunication(predict(o).components);
                },
                *run.exposedCommunicationSeconds, why);
            if (f) {
                linkFigure(options) = *f;
            } else {
                result.notFitted.push_back({titleOf(commField) + " (" + commField + ")", why});
                fitComm = false;
            }
        }
        if (fitGemm) {
            std::string why;
            const auto f = solveFraction(
                [&](double x) {
                    StepTimeOptions o = options;
                    o.efficiency.matmulEfficiency = x;
                    return predict(o).stepSeconds;
                },
                measuredStep, why);
            if (f) {
                options.efficiency.matmulEfficiency = *f;
            } else {
                result.notFitted.push_back({titleOf(gemm) + " (" + gemm + ")", why});
                fitGemm = false;
            }
        }
        const PredictedStep now = predict(options);
        const bool stepLands = !fitGemm || std::abs(now.stepSeconds / measuredStep - 1.0) < 1e-5;
        const bool commLands = !fitComm || std::abs(exposedCommunication(now.components) / *run.exposedCommunicationSeconds - 1.0) < 1e-5;
        if (stepLands && commLands)
            break;
    }
    if (fitComm) {
        (commLink == networkField ? out.cluster.efficiency.networkCollective : out.cluster.efficiency.scaleUpCollective) = linkFigure(options);
        fittedFields.push_back(commField);
        result.fitted.push_back({commField, titleOf(commField), commFigureBefore, linkFigure(options),
            "exposed communication " + formatSeconds(*run.exposedCommunicationSeconds) + " measured, " + formatSeconds(commBefore)
                + " predicted; on this layout it moves with the " + (commLink == networkField ? "network" : "scale-up link")});
    }
    if (fitGemm) {
        out.cluster.efficiency.matmul = options.efficiency.matmulEfficiency;
        fittedFields.push_back(gemm);
        result.fitted.push_back({gemm, titleOf(gemm), gemmFigureBefore, options.efficiency.matmulEfficiency,
            "step " + formatSeconds(measuredStep) + " measured, " + formatSeconds(before.stepSeconds) + " predicted"});
    }

    // Peak memory: the allocator's allowance.
    std::optional<CalibratedFigure> memoryFigure;
    if (run.peakMemoryBytes) {
        const std::string field = "training.fragmentation_fraction";
        const MemoryBreakdown& m = est.perGpu;
        // On the measurement's own basis: the allocator's reserve holds neither the CUDA context
        // nor NCCL's buffers (cudaMalloc'd outside it); training.buffer_gb is the plan's own margin.
        const double outside = run.peakIsAllocatorReserved ? m.cudaContext + m.ncclBuffers : 0.0;
        const double beforePeak = m.total - m.extraAllowance - outside;
        const double withoutSlack = beforePeak - m.fragmentation;
        const double fraction = m.modelAndActivations > 0 ? (*run.peakMemoryBytes - withoutSlack) / m.modelAndActivations : -1.0;
        const PlanField& f = planField(field);
        if (fraction < f.min) {
            result.notFitted.push_back({titleOf(field) + " (" + field + ")",
                "the measured peak (" + formatBytes(*run.peakMemoryBytes) + ") is below what the model holds without any allocator slack ("
                    + formatBytes(withoutSlack)
                    + "): the measured run's layout, recompute or micro-batch differs from the plan's, or the figure is not the fullest GPU's"});
        } else if (fraction > f.max) {
            result.notFitted.push_back({titleOf(field) + " (" + field + ")",
                "the measured peak (" + formatBytes(*run.peakMemoryBytes) + ") would need an allocator slack of " + formatPercent(fraction)
                    + " of model state and activations, beyond the field's " + formatPercent(f.max)
                    + ": something the model does not hold is resident (a second model, a cache)"});
        } else {
            out.training.fragmentationFraction = fraction;
            fittedFields.push_back(field);
            result.fitted.push_back({field, titleOf(field), plan.training.fragmentationFraction, fraction,
                "peak " + formatBytes(*run.peakMemoryBytes) + (run.peakIsAllocatorReserved ? " (allocator's max reserved)" : "")
                    + " measured, " + formatBytes(beforePeak) + " predicted"});
        }
        const Estimate after = estimate(out);
        memoryFigure = CalibratedFigure{"peak memory", *run.peakMemoryBytes, beforePeak,
            after.perGpu.total - after.perGpu.extraAllowance - outside, "bytes"};
    }

    result.notFitted.push_back({"the overlap of communication with compute (framework.overlap_grad_reduce, "
                                "framework.overlap_param_gather, framework.tp_comm_overlap)",
        "each is on or off in this model, not a fraction: one step time cannot say which is on; set them from the launch script"});

    const Estimate afterEst = estimate(out);
    const PredictedStep after = predictStep(out, afterEst);
    result.tokensPerSecondPerGpuAfter = after.tokensPerSecondPerGpu;
    result.mfuAfter = after.mfu;
    result.figures.push_back({"step", measuredStep, before.stepSeconds, after.stepSeconds, "s"});
    if (run.exposedCommunicationSeconds)
        result.figures.push_back({"exposed communication", *run.exposedCommunicationSeconds, exposedCommunication(before.components),
            exposedCommunication(after.components), "s"});
    if (memoryFigure)
        result.figures.push_back(*memoryFigure);

    if (!fittedFields.empty()) {
        CalibrationRecord record;
        record.source = run.source.empty() ? "figures entered" : run.source;
        record.accelerator = plan.cluster.accelerator;
        record.framework = inputs.framework;
        record.date = inputs.date;
        record.measuredLayout = measuredLayoutText(plan);
        record.measuredStepSeconds = measuredStep;
        for (size_t i = 0; i < fittedFields.size(); ++i)
            record.fitted += (i ? ", " : "") + fittedFields[i];
        out.cluster.calibration = record;
    }
    return result;
}

nlohmann::json calibrationToJson(const CalibrationResult& r)
{
    using nlohmann::json;
    json doc;
    json figures = json::array();
    for (const auto& f : r.figures)
        figures.push_back({{"name", f.name}, {"unit", f.unit}, {"measured", f.measured}, {"predicted_before", f.before}, {"predicted_after", f.after}});
    doc["figures"] = figures;
    json fitted = json::array();
    for (const auto& f : r.fitted)
        fitted.push_back({{"field", f.field}, {"title", f.title}, {"before", f.before}, {"after", f.after}, {"how", f.how}});
    doc["fitted"] = fitted;
    json notFitted = json::array();
    for (const auto& f : r.notFitted)
        notFitted.push_back({{"what", f.what}, {"why", f.why}});
    doc["not_fitted"] = notFitted;
    doc["tokens_per_second_per_gpu"] = {{"before", r.tokensPerSecondPerGpuBefore}, {"after", r.tokensPerSecondPerGpuAfter}};
    doc["mfu"] = {{"before", r.mfuBefore}, {"after", r.mfuAfter}};
    return doc;
}

std::string calibrationToText(const CalibrationResult& r)
{
    const auto shown = [](const CalibratedFigure& f, double v) { return f.unit == "s" ? formatSeconds(v) : formatBytes(v); };
    std::string out = "Calibration of the plan's own layout (" + measuredLayoutText(r.plan) + ")\n\n";
    for (const auto& f : r.figures)
        out += "  " + f.name + ": measured " + shown(f, f.measured) + "; predicted " + shown(f, f.before) + " before, " + shown(f, f.after)
            + " after\n";
    out += "  tokens per second per GPU: " + formatNumber(r.tokensPerSecondPerGpuBefore) + " before, " + formatNumber(r.tokensPerSecondPerGpuAfter)
        + " after; MFU " + formatPercent(r.mfuBefore) + " before, " + formatPercent(r.mfuAfter) + " after\n\n";
    out += r.fitted.empty() ? "Nothing fitted.\n" : "Fitted:\n";
    for (const auto& f : r.fitted)
        out += "  " + f.title + " (" + f.field + "): " + formatNumber(f.before, 3) + " -> " + formatNumber(f.after, 3) + "  [" + f.how + "]\n";
    out += "\nNot fitted:\n";
    for (const auto& f : r.notFitted)
        out += "  " + f.what + ": " + f.why + "\n";
    return out;
}

}  // namespace trainplan
