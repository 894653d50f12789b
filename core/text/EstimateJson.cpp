#include "core/text/EstimateJson.h"

#include "core/estimate/ComputeOptimal.h"

#include <nlohmann/json.hpp>

#include "core/analysis/MemoryFitSentence.h"
#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"
#include "core/text/Derivation.h"

namespace trainplan {

using nlohmann::json;

namespace {

// "total" includes the runtime reserve; "model_and_activations" is the subtotal before it (the
// figure worked examples quote "plus buffers"); "buffers" is kept as the reserve's older name.
json memoryJson(const MemoryBreakdown& m)
{
    return json{{"weights", m.weights},
                {"gradients", m.gradients},
                {"optimizer", m.optimizer},
                {"activations", m.activations},
                {"sharding_buffers", m.shardingBuffers},
                {"model_and_activations", m.modelAndActivations},
                {"reserve", m.buffers},
                {"reserve_parts",
                 {{"cuda_context", m.cudaContext},
                  {"workspace", m.workspace},
                  {"nccl_buffers", m.ncclBuffers},
                  {"fragmentation", m.fragmentation},
                  {"extra_allowance", m.extraAllowance}}},
                {"buffers", m.buffers},
                {"total", m.total}};
}

// The plan as the analysis used it: layout.dp is the resolved count, with dp_auto saying the
// file asked for "auto" (the plan file itself keeps "auto" so it round-trips).
// Layout fields the plan left out appear with the values the analysis assumed (listed again
// under "assumed"), so the echoed plan reads back as the plan the figures are for.
json resolvedPlanJson(const Plan& plan)
{
    Plan assumed = plan;
    assumed.layout.unknownFields = 0;  // every layout field written, as the analysis settled it
    json out = planToJson(assumed);
    out["layout"]["dp"] = plan.layout.dp;
    out["layout"]["dp_auto"] = plan.layout.dpAuto;
    return out;
}

}  // namespace

json estimateToJson(const Analysis& analysis)
{
    const Plan& plan = analysis.plan;
    const Estimate& e = analysis.estimate;
    json out;
    out["format"] = "trainplan.estimate";
    out["version"] = 1;
    out["plan"] = resolvedPlanJson(plan);
    // What the analysis assumed for the layout fields the plan left out (docs/plan-format.md).
    json assumed = json::object();
    for (const LayoutUnknownField& u : layoutUnknownFields()) {
        if (!(plan.layout.unknownFields & u.bit))
            continue;
        for (const std::string_view path : {u.path, u.companion})
            if (!path.empty())
                assumed[std::string(path)] = out["plan"]["layout"][std::string(planField(path).key())];
    }
    out["assumed"] = std::move(assumed);
    out["gpus_used"] = e.gpusUsed;
    out["nodes"] = e.nodes;

    const auto& p = e.parameters;
    const ModelSpec& model = plan.model;
    out["parameters"] = {
        {"total", p.total}, {"embedding", p.embedding}, {"lm_head", p.lmHead}, {"layers", p.layers},
        {"final_norm", p.finalNorm}, {"per_gpu_mean", e.parametersPerGpuMean}, {"active", p.active},
        // Training tokens per active parameter, against Hoffmann et al. 2022's ~20 (ComputeOptimal.h).
        {"tokens_per_parameter", tokensPerParameter(plan.training.tokens, p)},
        {"compute_optimal_tokens_per_parameter", kChinchillaTokensPerParameter},
    };
    if (p.mtp > 0)
        out["parameters"]["mtp"] = p.mtp;
    // Every layer kind's one layer; a model of one kind also gives them flat, as before kinds.
    json kinds = json::array();
    for (size_t k = 0; k < p.kinds.size() && int(k) < model.kindCount(); ++k) {
        const LayerKind kind = model.kind(int(k));
        const LayerParameters& lp = p.kinds[k];
        kinds.push_back({{"kind", model.kindLabel(int(k))}, {"layers", kind.layers}, {"ffn_hidden_size", kind.ffnHiddenSize},
                         {"ffn_kind", nameOf(kFfnKindNames, kind.ffnKind)}, {"per_layer", lp.total}, {"attention_per_layer", lp.attention},
                         {"ffn_per_layer", lp.ffn}, {"norms_per_layer", lp.norms}, {"moe", kind.moe},
                         {"routed_experts_per_layer", lp.routedExperts}, {"active_per_layer", lp.active}});
    }
    if (p.kinds.size() == 1) {
        out["parameters"]["per_layer"] = p.kinds[0].total;
        out["parameters"]["attention_per_layer"] = p.kinds[0].attention;
        out["parameters"]["ffn_per_layer"] = p.kinds[0].ffn;
        out["parameters"]["norms_per_layer"] = p.kinds[0].norms;
    }
    out["parameters"]["layer_kinds"] = std::move(kinds);
    const auto& f = e.flops;
    out["flops"] = {
        {"model_6nd", f.model6nd},
        {"attention", f.attention},
        {"embedding_lookup", f.embeddingLookup},
        {"total", f.total},
        {"recompute", f.recompute},
        {"hardware", f.hardware},
        {"per_token", f.perToken},
        {"attention_per_token", f.attentionPerToken},
        // Which count model FLOPs (and MFU) use: 6ND + attention for a dense model, Megatron-LM's
        // num_floating_point_operations for MoE, MLA or MTP (MoeArithmetic.h).
        {"count", model.beyondDense() ? "megatron" : "6nd-plus-attention"},
    };
    const auto& t = e.time;
    out["time"] = {
        {"steps", t.steps}, {"steps_exact", t.stepsExact}, {"tokens_per_step", t.tokensPerStep}, {"step_seconds", t.stepSeconds},
        {"total_seconds", t.totalSeconds}, {"days", t.days}, {"gpu_hours", t.gpuHours},
        {"tokens_per_second_per_gpu", t.tokensPerSecondPerGpu}, {"peak_cluster_flops_per_second", t.peakClusterFlopsPerSecond},
        {"effective_flops_per_second", t.effectiveFlopsPerSecond}, {"model_6nd_seconds", t.sixNdSeconds}, {"model_6nd_days", t.sixNdDays},
        {"basis", timeBasisKey(TimeBasis::AssumedMfu)},
    };

    json stages = json::array();
    for (const auto& st : e.stages) {
        json s = memoryJson(st.memory);
        s["stage"] = st.index;
        s["first_layer"] = st.firstLayer;
        s["layers"] = st.layers;
        json byKind = json::array();
        forEachKindIn(model, st.firstLayer, st.layers, [&](int k, int count) {
            byKind.push_back({{"kind", model.kindLabel(k)}, {"layers", count}});
        });
        s["layer_kinds"] = std::move(byKind);
        s["has_embedding"] = st.hasEmbedding;
        s["has_lm_head"] = st.hasLmHead;
        s["parameters"] = st.parameters;
        s["parameters_per_gpu"] = st.parametersPerGpu;
        if (st.routedExpertParameters > 0)
            s["routed_expert_parameters"] = st.routedExpertParameters;
        s["microbatches_in_flight"] = st.microbatchesInFlight;
        s["fits"] = st.fits;
        s["headroom_bytes"] = st.headroomBytes;
        s["within_margin"] = st.withinMargin;
        stages.push_back(std::move(s));
    }
    out["memory"] = {
        {"per_gpu_bytes", memoryJson(e.perGpu)}, {"capacity_bytes", e.capacityBytes}, {"fits", e.fits},
        {"fullest_stage", e.fullestStage}, {"stages", std::move(stages)},
        {"headroom_bytes", e.headroomBytes}, {"margin_bytes", e.marginBytes}, {"has_margin", e.hasMargin},
        {"nccl_communicators", e.ncclCommunicators}, {"nccl_bytes_per_communicator", e.ncclBytesPerCommunicator},
        {"activation_bytes_per_layer_per_microbatch", e.activation.perLayerPerMicrobatch},
        {"range", {{"low_bytes", analysis.memoryRange.lowBytes}, {"high_bytes", analysis.memoryRange.highBytes},
                   {"fits_at_high", analysis.memoryRange.highBytes <= e.capacityBytes},
                   {"fits_at_low", analysis.memoryRange.lowBytes <= e.capacityBytes},
                   {"unknown_framework_switches", analysis.memoryRange.unknownSwitches},
                   {"unknown_layout_fields", layoutUnknownPaths(analysis.memoryRange.unknownLayoutFields)},
                   {"model_error_above", analysis.memoryRange.modelErrorAbove},
                   {"usable_bytes", analysis.memoryRange.usableBytes}}},
        // The range against capacity less the margin (MemoryFit.h); "fits" above stays the point figure's.
        {"verdict", memoryFitName(analysis.memoryRange.fit)},
        {"verdict_reason", memoryFitSentence(analysis.memoryRange)},
    };
    // Money, energy and carbon on both time bases (estimate/CostEnergyModel.h). A figure the plan
    // does not give what it needs for (a price, a power, a grid intensity) is left out, not null.
    constexpr double kJoulesPerMwh = units::MWh, kKgPerTonne = units::kgPerTonne;
    const auto put = [](json& object, const char* key, const std::optional<double>& v, double scale = 1) {
        if (v)
            object[key] = *v * scale;
    };
    const auto costOf = [&](const CostEnergyEstimate& ce, TimeBasis basis) {
        json o = {{"basis", timeBasisKey(basis)}, {"gpu_hours_with_failures", ce.gpuHoursWithFailures}};
        put(o, "usd", ce.usd);
        put(o, "usd_with_failures", ce.usdWithFailures);
        return o;
    };
    const auto energyOf = [&](const CostEnergyEstimate& ce, TimeBasis basis) {
        json o = {{"basis", timeBasisKey(basis)}};
        put(o, "mwh", ce.energyJoules, 1 / kJoulesPerMwh);
        put(o, "mwh_with_failures", ce.energyJoulesWithFailures, 1 / kJoulesPerMwh);
        return o;
    };
    const auto carbonOf = [&](const CostEnergyEstimate& ce, TimeBasis basis) {
        json o = {{"basis", timeBasisKey(basis)}};
        put(o, "tonnes_co2e", ce.carbonKg, 1 / kKgPerTonne);
        put(o, "tonnes_co2e_with_failures", ce.carbonKgWithFailures, 1 / kKgPerTonne);
        return o;
    };
    const CostEnergyEstimate& money = analysis.cost;
    out["cost"] = costOf(money, TimeBasis::AssumedMfu);
    put(out["cost"], "price_per_gpu_hour_usd", money.pricePerGpuHourUsd);
    out["cost"]["predicted"] = costOf(analysis.costAtPredicted, TimeBasis::Predicted);
    out["energy"] = energyOf(money, TimeBasis::AssumedMfu);
    out["energy"]["gpu_power_source"] = money.gpuPowerWatts <= 0 ? "none" : money.gpuPowerFromPreset ? "preset" : "plan";
    if (money.gpuPowerWatts > 0) {
        out["energy"]["gpu_power_watts"] = money.gpuPowerWatts;
        out["energy"]["facility_watts_per_gpu"] = money.facilityWattsPerGpu;
    }
    out["energy"]["server_overhead_fraction"] = plan.cost.serverOverheadFraction;
    out["energy"]["pue"] = plan.cost.pue;
    out["energy"]["predicted"] = energyOf(analysis.costAtPredicted, TimeBasis::Predicted);
    out["carbon"] = carbonOf(money, TimeBasis::AssumedMfu);
    put(out["carbon"], "grid_kg_co2e_per_kwh", plan.cost.gridKgCo2ePerKwh);
    out["carbon"]["predicted"] = carbonOf(analysis.costAtPredicted, TimeBasis::Predicted);
    out["pipeline"] = {
        {"micro_batches", e.pipeline.microbatches}, {"gradient_accumulation", e.pipeline.gradientAccumulation},
        {"bubble_fraction", e.pipeline.bubbleFraction}, {"stages", plan.layout.pp}, {"virtual_stages", plan.layout.virtualStages},
    };
    const auto& c = e.communication;
    out["communication"] = {
        {"tp_message_bytes", c.tpMessageBytes}, {"tp_collectives_per_layer", c.tpCollectivesPerLayer},
        {"tp_seconds_per_collective", c.tpSecondsPerCollective}, {"tp_seconds_per_step", c.tpSecondsPerStep},
        {"tp_crosses_nodes", c.tpCrossesNodes}, {"pp_bytes_per_microbatch", c.ppBytesPerMicrobatch},
        {"pp_seconds_per_send", c.ppSecondsPerSend}, {"pp_seconds_per_step", c.ppSecondsPerStep}, {"pp_crosses_nodes", c.ppCrossesNodes},
        {"dp_bytes_per_gpu", c.dpBytesPerGpu}, {"dp_bytes_per_gpu_mean", c.dpBytesPerGpuMean}, {"dp_group_size", c.dpGroupSize},
        {"dp_seconds", c.dpSeconds}, {"dp_crosses_nodes", c.dpCrossesNodes}, {"dp_backward_window_seconds", c.dpBackwardWindowSeconds},
        {"dp_hidden", c.dpHidden}, {"zero3_allgather_bytes_per_step", c.zero3AllGatherBytesPerStep},
        {"zero3_seconds_per_step", c.zero3SecondsPerStep}, {"cp_bytes_per_layer", c.cpBytesPerLayer},
        {"cp_seconds_per_step", c.cpSecondsPerStep}, {"cp_crosses_nodes", c.cpCrossesNodes},
    };
    const auto& r = e.reliability;
    out["reliability"] = {
        {"failures_modelled", r.failuresModelled}, {"model_state_bytes", r.modelStateBytes},
        {"checkpoint_bytes", r.checkpointBytes}, {"checkpoint_bytes_per_gpu", r.checkpointBytesPerGpu},
        {"checkpoint_write_seconds", r.checkpointWriteSeconds}, {"cluster_mtbf_seconds", r.clusterMtbfSeconds},
        {"checkpoint_interval_seconds", r.checkpointIntervalSeconds}, {"checkpoint_overhead_seconds", r.checkpointOverheadSeconds},
        {"lost_seconds_per_failure", r.lostSecondsPerFailure}, {"expected_failures", r.expectedFailures},
        {"failure_lost_seconds", r.failureLostSeconds}, {"padded_seconds", r.paddedSeconds}, {"padded_days", r.paddedDays},
    };
    json warnings = json::array();
    for (const auto& w : e.warnings) {
        json j = {{"severity", severityName(w.severity)}, {"code", codeName(w.code)}, {"message", describe(w)}, {"field", w.field}};
        if (w.stage >= 0)
            j["stage"] = w.stage;
        warnings.push_back(std::move(j));
    }
    out["warnings"] = std::move(warnings);

    json derivation = json::array();
    for (const auto& section : derive(analysis)) {
        json steps = json::array();
        for (const auto& s : section.steps)
            steps.push_back({{"id", s.id}, {"title", s.title}, {"formula", s.formula}, {"substituted", s.substituted},
                             {"value", s.value}, {"unit", s.unit}, {"result", s.result}, {"source", s.source}, {"note", s.note}});
        derivation.push_back({{"section", section.title}, {"steps", std::move(steps)}});
    }
    out["derivation"] = std::move(derivation);
    // What this layout should reach, from the step-time model, beside the figures at the
    // assumed MFU above; days with failures at the predicted speed come from the same analysis.
    json predicted = predictedToJson(analysis.predicted, analysis.plan.model);
    predicted["basis"] = timeBasisKey(TimeBasis::Predicted);
    predicted["padded_days"] = analysis.atPredictedMfu.reliability.paddedDays;
    predicted["schedule_simulated"] = analysis.hasSchedule();
    out["predicted"] = std::move(predicted);
    return out;
}

}  // namespace trainplan
