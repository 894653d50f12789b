#include "plan/Presets.h"

#include <nlohmann/json.hpp>

#include "plan/PlanIO.h"
#include "plan/Units.h"

namespace trainplan {

namespace embedded {
extern const std::string_view kModelsJson;
extern const std::string_view kAcceleratorsJson;
extern const std::string_view kDefaultPlanJson;
}  // namespace embedded

ModelSpec modelSpecFromJson(const nlohmann::json& modelObject);  // PlanReader.cpp

namespace {

std::vector<ModelPreset> loadModels()
{
    std::vector<ModelPreset> out;
    const auto doc = nlohmann::json::parse(embedded::kModelsJson);
    for (auto entry : doc.at("models")) {
        ModelPreset p;
        p.nominalParameters = entry.value("nominal_parameters", 0.0);
        p.source = entry.value("source", "");
        entry.erase("nominal_parameters");
        entry.erase("source");
        p.model = modelSpecFromJson(entry);
        out.push_back(std::move(p));
    }
    return out;
}

// The step-time model's per-accelerator figures (StepTimeModel.h): the datasheet HBM bandwidth
// and the "step_time" efficiencies; every key is required once "step_time" is present, so a
// typo fails loudly at the first preset lookup.
void readEfficiency(const nlohmann::json& entry, const nlohmann::json& t, AcceleratorPreset& a)
{
    AcceleratorEfficiency& e = a.efficiency;
    e.hbmBytesPerSecond = entry.at("hbm_bandwidth_gb_per_s").get<double>() * units::GB;  // datasheet figure
    e.matmulEfficiency = t.at("matmul_efficiency").get<double>();
    e.smCount = t.at("sm_count").get<int>();
    e.gemmTileM = t.at("gemm_tile").at(0).get<int>();
    e.gemmTileN = t.at("gemm_tile").at(1).get<int>();
    e.gemmKHalf = t.at("gemm_k_half").get<double>();
    e.flashAttentionEfficiency = t.at("flash_attention_efficiency").get<double>();
    e.flash3AttentionEfficiency = t.at("flash_attention_3_efficiency").get<double>();
    e.kernelOverheadSeconds = t.at("kernel_overhead_us").get<double>() * 1e-6;
    e.kernelLaunchSeconds = t.at("kernel_launch_us").get<double>() * 1e-6;
    e.hbmEfficiency = t.at("hbm_efficiency").get<double>();
    e.intraNodeCollectiveEfficiency = t.at("intra_node_collective_efficiency").get<double>();
    e.interNodeCollectiveEfficiency = t.at("inter_node_collective_efficiency").get<double>();
    a.efficiencySource = t.value("source", "");
}

std::vector<AcceleratorPreset> loadAccelerators()
{
    std::vector<AcceleratorPreset> out;
    const auto doc = nlohmann::json::parse(embedded::kAcceleratorsJson);
    for (const auto& e : doc.at("accelerators")) {
        AcceleratorPreset a;
        a.name = e.at("name").get<std::string>();
        a.memoryBytes = e.at("memory_gb").get<double>() * units::GB;
        a.peakBf16FlopsPerSecond = e.at("peak_bf16_tflops").get<double>() * units::TFLOPS;
        a.peakFp8FlopsPerSecond = e.at("peak_fp8_tflops").is_number() ? e.at("peak_fp8_tflops").get<double>() * units::TFLOPS : 0.0;
        a.intraNodeBytesPerSecond = e.at("intra_node_bandwidth_gb_per_s").get<double>() * units::GB;
        a.interNodeBytesPerSecond = e.at("inter_node_bandwidth_gb_per_s").get<double>() * units::GB;
        a.gpusPerNode = e.at("gpus_per_node").get<int>();
        a.source = e.value("source", "");
        a.notes = e.value("notes", "");
        if (e.contains("step_time"))
            readEfficiency(e, e.at("step_time"), a);
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace

const std::vector<ModelPreset>& modelPresets()
{
    static const std::vector<ModelPreset> presets = loadModels();
    return presets;
}

const std::vector<AcceleratorPreset>& acceleratorPresets()
{
    static const std::vector<AcceleratorPreset> presets = loadAccelerators();
    return presets;
}

const ModelPreset* findModelPreset(const std::string& name)
{
    for (const auto& p : modelPresets())
        if (p.model.name == name)
            return &p;
    return nullptr;
}

const AcceleratorPreset* findAcceleratorPreset(const std::string& name)
{
    for (const auto& p : acceleratorPresets())
        if (p.name == name)
            return &p;
    return nullptr;
}

void applyAccelerator(const AcceleratorPreset& a, ClusterSpec& c)
{
    c.accelerator = a.name;
    c.memoryBytesPerGpu = a.memoryBytes;
    c.peakFlopsPerGpu = a.peakBf16FlopsPerSecond;
    c.intraNodeBytesPerSecond = a.intraNodeBytesPerSecond;
    c.interNodeBytesPerSecond = a.interNodeBytesPerSecond;
    c.gpusPerNode = a.gpusPerNode;
}

Plan defaultPlan()
{
    static const Plan plan = planFromText(std::string(embedded::kDefaultPlanJson));
    return plan;
}

}  // namespace trainplan
