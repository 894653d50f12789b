#include "core/interop/ImportReport.h"

#include <nlohmann/json.hpp>

#include "core/plan/PlanIO.h"
#include "core/planfile/PlanFile.h"

namespace trainplan {

namespace {

nlohmann::json keysToJson(const std::vector<ImportedKey>& keys)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& k : keys)
        out.push_back({{"key", k.key}, {"field", k.field.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.field)}, {"note", k.note}});
    return out;
}

}  // namespace

Plan readImportedPlan(const nlohmann::json& document, const std::vector<ImportedKey>& mapped)
{
    try {
        return planFromJson(document);
    } catch (const PlanError& e) {
        std::vector<PlanProblem> problems;
        for (PlanProblem p : e.problems()) {
            for (const auto& k : mapped)
                if (!k.field.empty() && (p.path == k.field || p.path.rfind(k.field + ".", 0) == 0)) {
                    p.path = k.key + " (" + p.path + ")";
                    break;
                }
            problems.push_back(std::move(p));
        }
        throw PlanError(std::move(problems));
    }
}

nlohmann::json importReportToJson(const ImportReport& report)
{
    return {{"format", report.format}, {"plan", planToJson(report.plan)}, {"mapped", keysToJson(report.mapped)},
        {"unmapped", keysToJson(report.unmapped)}, {"assumptions", report.assumptions}};
}

std::string importReportToText(const ImportReport& report)
{
    std::string out = "Imported " + std::string(report.format == "huggingface" ? "a Hugging Face config"
                : report.format == "torchtitan"  ? "a torchtitan config"
                : report.format == "megatron-bridge" ? "a Megatron-Bridge config"
                                                 : "Megatron-LM arguments") + ": "
        + std::to_string(report.mapped.size()) + " keys mapped, " + std::to_string(report.unmapped.size()) + " not.\n";
    // What a person should look at first, one line each; then the keys with no effect, together.
    std::string noEffect;
    for (const auto& k : report.unmapped) {
        if (k.note == kNoEffectNote)
            noEffect += (noEffect.empty() ? "" : ", ") + k.key;
        else
            out += "  not mapped: " + k.key + ": " + k.note + "\n";
    }
    if (!noEffect.empty())
        out += "  not mapped, no effect on the figures: " + noEffect + "\n";
    for (const auto& a : report.assumptions)
        out += "  assumed: " + a + "\n";
    return out;
}

std::string megatronEveryKthLayerNote(int layers, int k)
{
    const int megatron = k > 0 && layers > 0 ? (layers + k - 1) / k : 0;
    const int plan = k > 0 && layers > 0 ? layers / k : 0;
    std::string note = "Megatron-Core makes layers 1, " + std::to_string(k + 1) + ", " + std::to_string(2 * k + 1)
        + "... MoE; the plan's every " + std::to_string(k) + "th layer is layers " + std::to_string(k) + ", " + std::to_string(2 * k)
        + "...: each MoE layer one place later";
    if (plan != megatron)
        note += ", and " + std::to_string(plan) + " MoE layers against Megatron's " + std::to_string(megatron);
    return note;
}

}  // namespace trainplan
