// estimate --json "predicted" (docs/plan-format.md, "once the step-time model exists").
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/steptime/StepTimeModel.h"

namespace trainplan {

namespace {

nlohmann::json layerToJson(const LayerTimes& L)
{
    return {
        {"forward_seconds", L.forward()},
        {"backward_seconds", L.backward()},
        {"forward_matmul", L.forwardMatmul},   {"forward_attention", L.forwardAttention},
        {"forward_memory", L.forwardMemory},   {"forward_tp", L.forwardTp},
        {"forward_cp", L.forwardCp},           {"forward_zero", L.forwardZero},
        {"backward_matmul", L.backwardMatmul}, {"backward_attention", L.backwardAttention},
        {"backward_memory", L.backwardMemory}, {"backward_tp", L.backwardTp},
        {"backward_cp", L.backwardCp},         {"backward_zero", L.backwardZero},
        {"forward_fixed", L.forwardFixed},     {"backward_fixed", L.backwardFixed},
        {"recompute", L.recompute},
        {"forward_all_to_all", L.forwardAllToAll}, {"backward_all_to_all", L.backwardAllToAll},
        {"forward_imbalance", L.forwardImbalance}, {"backward_imbalance", L.backwardImbalance},
    };
}

}  // namespace

nlohmann::json predictedToJson(const PredictedStep& p, const ModelSpec& model)
{
    using nlohmann::json;
    const PredictedComponents& c = p.components;
    json out;
    out["step_seconds"] = p.stepSeconds;
    out["mfu"] = p.mfu;
    out["hfu"] = p.hfu;
    out["hfu_at_format_peak"] = p.hfuAtFormatPeak;
    out["tflops_per_gpu"] = p.tflopsPerGpu;
    out["hardware_tflops_per_gpu"] = p.hardwareTflopsPerGpu;
    out["tokens_per_second_per_gpu"] = p.tokensPerSecondPerGpu;
    out["components"] = {
        {"forward_compute", c.forwardCompute},   {"backward_compute", c.backwardCompute},
        {"memory_bound", c.memoryBound},         {"recompute", c.recompute},
        {"tp_communication", c.tpCommunication}, {"cp_communication", c.cpCommunication},
        {"zero_communication", c.zeroCommunication}, {"pp_send", c.ppSend},
        {"pipeline_bubble", c.pipelineBubble},   {"dp_communication", c.dpCommunication},
        {"optimizer", c.optimizer},              {"kernel_overhead", c.kernelOverhead},
        {"ep_communication", c.epCommunication}, {"expert_imbalance", c.expertImbalance},
    };
    const auto figures = [](const PredictedFigures& f) {
        return json{{"step_seconds", f.stepSeconds},
                    {"mfu", f.mfu},
                    {"tflops_per_gpu", f.tflopsPerGpu},
                    {"tokens_per_second_per_gpu", f.tokensPerSecondPerGpu},
                    {"days", f.days},
                    {"gpu_hours", f.gpuHours}};
    };
    json unknownEffects = json::array();
    for (const UnknownEffect& u : p.range.unknownEffects)
        unknownEffects.push_back({{"field", u.field}, {"label", u.label}, {"slower_value", u.slowerValue}, {"faster_value", u.fasterValue},
            {"slower_step_seconds", p.stepSeconds * u.slowerFactor}, {"faster_step_seconds", p.stepSeconds * u.fasterFactor}});
    out["range"] = {{"low", figures(p.range.low)}, {"high", figures(p.range.high)}, {"model_error_slower", p.range.modelErrorSlower},
        {"model_error_faster", p.range.modelErrorFaster}, {"model_error_coverage", p.range.coverage},
        {"unknowns_fast_step_seconds", p.stepSeconds * std::exp(-p.range.unknownsLogFaster)},
        {"unknowns_slow_step_seconds", p.stepSeconds * std::exp(p.range.unknownsLogSlower)}, {"unknowns", unknownEffects},
        {"unknown_framework_switches", p.range.unknownSwitches}, {"unknown_layout_fields", layoutUnknownPaths(p.range.unknownLayoutFields)},
        {"unknown_load_imbalance", p.range.unknownLoadImbalance}, {"unknown_efficiencies", p.range.unknownEfficiencies},
        {"unknown_inputs", p.range.unknownInputs()}};
    out["model_flops_per_step"] = p.modelFlopsPerStep;
    out["hardware_flops_per_step"] = p.hardwareFlopsPerStep;
    out["total_seconds"] = p.totalSeconds;
    out["days"] = p.days;
    out["gpu_hours"] = p.gpuHours;
    out["bubble_fraction"] = p.bubbleFraction;
    out["matmul_efficiency"] = p.matmulEfficiency;
    out["reference_stage"] = p.referenceStage;
    out["pipeline_simulated"] = p.simulated;
    out["efficiency_source"] = p.efficiencySource ? json(p.efficiencySource) : json(nullptr);
    // One layer of each kind; "layer" too when the model has one kind (the shorthand's name).
    json kinds = json::array();
    for (size_t k = 0; k < p.layers.size() && int(k) < model.kindCount(); ++k) {
        json layer = layerToJson(p.layers[k]);
        layer["kind"] = model.kindLabel(int(k));
        layer["layers"] = model.kind(int(k)).layers;
        kinds.push_back(std::move(layer));
    }
    if (p.layers.size() == 1)
        out["layer"] = layerToJson(p.layers[0]);
    out["layer_kinds"] = std::move(kinds);
    return out;
}

}  // namespace trainplan
