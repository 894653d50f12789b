#include "core/presets/PresetsListing.h"

#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/presets/Presets.h"

namespace trainplan {

using nlohmann::json;

json presetsToJson()
{
    json models = json::array();
    for (const auto& p : modelPresets()) {
        const ModelSpec& m = p.model;
        models.push_back({{"name", m.name},
                          {"nominal_parameters", p.nominalParameters},
                          {"layers", m.layers},
                          {"hidden_size", m.hiddenSize},
                          {"ffn_hidden_size", m.ffnHiddenSize},
                          {"attention_heads", m.attentionHeads},
                          {"kv_heads", m.kvHeads},
                          {"vocab_size", m.vocabSize},
                          {"sequence_length", m.sequenceLength},
                          {"source", p.source}});
        if (m.moe)
            models.back().update({{"nominal_active_parameters", p.nominalActiveParameters},
                                  {"moe", {{"experts", m.moe->experts}, {"top_k", m.moe->topK},
                                           {"expert_ffn_hidden_size", m.moe->expertFfnHiddenSize},
                                           {"shared_experts", m.moe->sharedExperts}, {"dense_layers", m.moe->denseLayers},
                                           {"layer_step", m.moe->step()}}}});
        if (m.mla)
            models.back()["mla"] = {{"q_lora_rank", m.mla->qLoraRank}, {"kv_lora_rank", m.mla->kvLoraRank}};
        if (m.mtpLayers > 0)
            models.back()["mtp_layers"] = m.mtpLayers;
    }
    json accelerators = json::array();
    for (const auto& a : acceleratorPresets()) {
        json entry = {{"name", a.name},
                      {"memory_gb", a.memoryBytes / units::GB},
                      {"peak_bf16_tflops", a.peakBf16FlopsPerSecond / units::TFLOPS},
                      {"peak_fp8_tflops", a.peakFp8FlopsPerSecond / units::TFLOPS},
                      {"intra_node_bandwidth_gb_per_s", a.intraNodeBytesPerSecond / units::GB},
                      {"inter_node_bandwidth_gb_per_s", a.interNodeBytesPerSecond / units::GB},
                      {"gpus_per_node", a.gpusPerNode},
                      {"nvlink_domain", a.nvlinkDomain > 0 ? a.nvlinkDomain : a.gpusPerNode},
                      {"scale_up_link", a.scaleUpLink},
                      {"power_watts", a.powerWatts},
                      {"memory_gib", a.memoryBytes / units::GiB},
                      {"source", a.source},
                      {"notes", a.notes}};
        if (a.peakFp4FlopsPerSecond > 0)
            entry["peak_fp4_tflops"] = a.peakFp4FlopsPerSecond / units::TFLOPS;
        if (a.efficiency.valid()) {
            entry["hbm_bandwidth_gb_per_s"] = a.efficiency.hbmBytesPerSecond / units::GB;
            entry["step_time_source"] = a.efficiencySource;
        }
        accelerators.push_back(std::move(entry));
    }
    return json{{"presets", {{"models", std::move(models)}, {"accelerators", std::move(accelerators)}}}};
}

std::string presetsToText()
{
    std::ostringstream out;
    out << "Models (--model NAME)\n";
    for (const auto& p : modelPresets()) {
        const ModelSpec& m = p.model;
        out << "  " << std::left << std::setw(26) << m.name << std::setw(16) << formatCount(p.nominalParameters)
            << countOf(m.layers, "layer") << ", h " << formatInteger(m.hiddenSize) << ", " << countOf(m.attentionHeads, "head") << " ("
            << formatInteger(m.kvHeads) << " KV), s " << formatInteger(m.sequenceLength)
            << (m.moe ? ", " + std::to_string(m.moe->experts) + " experts top-" + std::to_string(m.moe->topK) + ", "
                            + formatCount(p.nominalActiveParameters) + " active"
                      : std::string())
            << "\n"
            << "      source: " << p.source << "\n";
    }
    out << "\nAccelerators (--gpu NAME)\n";
    for (const auto& a : acceleratorPresets()) {
        const int domain = a.nvlinkDomain > 0 ? a.nvlinkDomain : a.gpusPerNode;
        out << "  " << std::left << std::setw(26) << a.name << formatBytes(a.memoryBytes) << " (" << formatNumber(a.memoryBytes / units::GiB, 4)
            << " GiB), " << formatNumber(a.peakBf16FlopsPerSecond / units::TFLOPS) << " TFLOP/s BF16"
            << (a.peakFp8FlopsPerSecond > 0 ? ", " + formatNumber(a.peakFp8FlopsPerSecond / units::TFLOPS) + " FP8" : std::string())
            << (a.peakFp4FlopsPerSecond > 0 ? ", " + formatNumber(a.peakFp4FlopsPerSecond / units::TFLOPS) + " FP4" : std::string()) << ", "
            << a.scaleUpLink << " " << formatBytes(a.intraNodeBytesPerSecond) << "/s, network " << formatBytes(a.interNodeBytesPerSecond)
            << "/s per GPU, " << formatInteger(a.gpusPerNode) << " per node"
            << (domain != a.gpusPerNode ? ", " + formatInteger(domain) + " per " + a.scaleUpLink + " domain" : std::string()) << ", "
            << formatNumber(a.powerWatts) << " W\n"
            << "      source: " << a.source << "\n";
        if (a.efficiency.valid())
            out << "      step-time figures: " << a.efficiencySource << "\n";
    }
    out << "\nNames match case-insensitively, ignoring spaces and punctuation, by a unique prefix (\"h800\", \"llama 3.1 405\").\n";
    return out.str();
}

}  // namespace trainplan
