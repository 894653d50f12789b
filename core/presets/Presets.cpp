#include "core/presets/Presets.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>

#include <nlohmann/json.hpp>

#include "core/base/Units.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

namespace embedded {
extern const std::string_view kModelsJson;
extern const std::string_view kAcceleratorsJson;
}  // namespace embedded

namespace {

std::vector<ModelPreset> loadModels()
{
    std::vector<ModelPreset> out;
    const auto doc = nlohmann::json::parse(embedded::kModelsJson);
    for (auto entry : doc.at("models")) {
        ModelPreset p;
        p.nominalParameters = entry.value("nominal_parameters", 0.0);
        p.nominalActiveParameters = entry.value("nominal_active_parameters", 0.0);
        p.nominalActiveExcludesEmbedding = entry.value("nominal_active_excludes_embedding", false);
        entry.erase("nominal_active_excludes_embedding");
        p.source = entry.value("source", "");
        entry.erase("nominal_parameters");
        entry.erase("nominal_active_parameters");
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
    e.kernelOverheadSeconds = t.at("kernel_overhead_us").get<double>() * units::micro;
    e.kernelLaunchSeconds = t.at("kernel_launch_us").get<double>() * units::micro;
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
        a.peakFp4FlopsPerSecond = e.value("peak_fp4_tflops", 0.0) * units::TFLOPS;
        a.mxfp8 = e.value("mxfp8", false);
        a.intraNodeBytesPerSecond = e.at("intra_node_bandwidth_gb_per_s").get<double>() * units::GB;
        a.interNodeBytesPerSecond = e.at("inter_node_bandwidth_gb_per_s").get<double>() * units::GB;
        a.gpusPerNode = e.at("gpus_per_node").get<int>();
        a.nvlinkDomain = e.value("nvlink_domain", 0);
        a.scaleUpLink = e.at("scale_up_link").get<std::string>();
        a.powerWatts = e.at("power_watts").get<double>();
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

std::string presetKey(const std::string& name)
{
    std::string key;
    for (unsigned char ch : name)
        if (std::isalnum(ch))
            key += char(std::tolower(ch));
    return key;
}

namespace {

template <typename T, typename NameOf>
PresetMatch<T> matchPreset(const std::vector<T>& presets, const std::string& name, NameOf nameOf)
{
    PresetMatch<T> out;
    const std::string key = presetKey(name);
    std::vector<const T*> prefixed;
    for (const auto& p : presets) {
        const std::string candidate = presetKey(nameOf(p));
        if (key.empty())
            break;
        if (candidate == key) {
            out.preset = &p;
            return out;
        }
        if (candidate.compare(0, key.size(), key) == 0)
            prefixed.push_back(&p);
    }
    if (prefixed.size() == 1) {
        out.preset = prefixed.front();
        return out;
    }
    out.ambiguous = prefixed.size() > 1;
    if (out.ambiguous)
        for (const T* p : prefixed)
            out.candidates.push_back(nameOf(*p));
    else
        for (const auto& p : presets)
            out.candidates.push_back(nameOf(p));
    return out;
}

}  // namespace

PresetMatch<ModelPreset> matchModelPreset(const std::string& name)
{
    return matchPreset(modelPresets(), name, [](const ModelPreset& p) { return p.model.name; });
}

PresetMatch<AcceleratorPreset> matchAcceleratorPreset(const std::string& name)
{
    return matchPreset(acceleratorPresets(), name, [](const AcceleratorPreset& p) { return p.name; });
}

const std::vector<const char*>& acceleratorPresetFields()
{
    static const std::vector<const char*> fields = {"cluster.memory_gb", "cluster.peak_bf16_tflops",
        "cluster.intra_node_bandwidth_gb_per_s", "cluster.inter_node_bandwidth_gb_per_s", "cluster.gpus_per_node", "cluster.nvlink_domain"};
    return fields;
}

namespace {

int matchPresetLabel(const std::string& label)
{
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const auto& p : acceleratorPresets())
            k.push_back(presetKey(p.name));
        return k;
    }();
    int prefixOf = -1;
    int prefixCount = 0;
    bool empty = true;
    for (size_t i = 0; i < keys.size(); ++i) {
        const std::string& key = keys[i];
        size_t at = 0;
        bool matches = true;
        for (unsigned char ch : label) {
            if (!std::isalnum(ch))
                continue;
            empty = false;
            if (at >= key.size() || key[at] != char(std::tolower(ch))) {
                matches = false;
                break;
            }
            ++at;
        }
        if (empty)
            return -1;
        if (!matches)
            continue;
        if (at == key.size())
            return int(i);  // exact
        prefixOf = int(i);
        ++prefixCount;
    }
    return prefixCount == 1 ? prefixOf : -1;
}

}  // namespace

int presetLabelIndex(const std::string& label)
{
    // checkLayout() asks for every estimate, and a layout search asks hundreds of thousands of
    // times with one label: matching it costs a tolower() per character per preset, a compare
    // with the last label one memcmp. The presets never change after start-up, so the cached
    // answer is the one matchPresetLabel() would give.
    static thread_local std::string lastLabel;
    static thread_local int lastIndex = -2;  // -2: nothing cached yet
    if (lastIndex != -2 && label == lastLabel)
        return lastIndex;
    const int index = matchPresetLabel(label);
    lastLabel = label;
    lastIndex = index;
    return index;
}

namespace {

// A job may use part of a rack's NVLink domain: 64 of an NVL72 rack's 72 GPUs (16 of its 18
// trays, the other two kept as spares) is a deployment choice on the same part, not another part.
bool domainDiffers(const ClusterSpec& c, const AcceleratorPreset& a)
{
    const int preset = a.nvlinkDomain > 0 ? a.nvlinkDomain : a.gpusPerNode;
    const int domain = c.scaleUpDomain();
    const bool partOfARack = a.nvlinkDomain > a.gpusPerNode && domain < preset && domain > c.gpusPerNode && domain % c.gpusPerNode == 0;
    return domain != preset && !partOfARack;
}

}  // namespace

unsigned differingAcceleratorFields(const ClusterSpec& c, const AcceleratorPreset& a)
{
    // Plan files give these in GB and TFLOP/s with a few digits: compare to 0.1 %.
    const auto differs = [](double x, double y) { return std::abs(x - y) > 1e-3 * std::max(std::abs(x), std::abs(y)); };
    const bool differing[] = {differs(c.memoryBytesPerGpu, a.memoryBytes), differs(c.peakFlopsPerGpu, a.peakBf16FlopsPerSecond),
                              differs(c.intraNodeBytesPerSecond, a.intraNodeBytesPerSecond),
                              differs(c.interNodeBytesPerSecond, a.interNodeBytesPerSecond), c.gpusPerNode != a.gpusPerNode,
                              domainDiffers(c, a)};
    unsigned mask = 0;
    for (size_t i = 0; i < std::size(differing); ++i)
        if (differing[i])
            mask |= 1u << i;
    return mask;
}

AcceleratorMismatch acceleratorMismatch(const ClusterSpec& c)
{
    AcceleratorMismatch out;
    const int index = presetLabelIndex(c.accelerator);
    if (index < 0)
        return out;
    const AcceleratorPreset& a = acceleratorPresets()[size_t(index)];
    const unsigned mask = differingAcceleratorFields(c, a);
    const auto& names = acceleratorPresetFields();
    for (size_t i = 0; i < names.size(); ++i)
        if (mask & (1u << i))
            out.fields.push_back(names[i]);
    if (!out.fields.empty())
        out.preset = &a;
    return out;
}

const AcceleratorPreset* acceleratorPresetOf(const ClusterSpec& cluster)
{
    const int named = presetLabelIndex(cluster.accelerator);
    const auto& presets = acceleratorPresets();
    if (named >= 0 && differingAcceleratorFields(cluster, presets[size_t(named)]) == 0)
        return &presets[size_t(named)];
    for (const auto& a : presets)
        if (differingAcceleratorFields(cluster, a) == 0)
            return &a;
    return nullptr;
}

const ModelPreset* modelPresetOf(const ModelSpec& model)
{
    const ModelPreset* first = nullptr;
    for (const auto& p : modelPresets()) {
        if (!sameModelShape(p.model, model))
            continue;
        if (p.model.name == model.name)
            return &p;
        if (!first)
            first = &p;
    }
    return first;
}

const AcceleratorPreset* acceleratorPresetOfPart(const ClusterSpec& c)
{
    const AcceleratorPreset* preset = findAcceleratorPreset(c.accelerator);
    return preset ? preset : acceleratorPresetOf(c);
}

double fp8PeakFlopsPerGpu(const ClusterSpec& c)
{
    if (c.peakFp8FlopsPerGpu > 0)
        return c.peakFp8FlopsPerGpu;
    const AcceleratorPreset* preset = acceleratorPresetOfPart(c);
    return preset ? preset->peakFp8FlopsPerSecond : 0.0;
}

double fp4PeakFlopsPerGpu(const ClusterSpec& c)
{
    if (c.peakFp4FlopsPerGpu > 0)
        return c.peakFp4FlopsPerGpu;
    const AcceleratorPreset* preset = acceleratorPresetOfPart(c);
    return preset ? preset->peakFp4FlopsPerSecond : 0.0;
}

double formatPeakFlopsPerGpu(const ClusterSpec& c, MatmulPrecision precision)
{
    switch (precision) {
    case MatmulPrecision::Bf16: return 0.0;
    case MatmulPrecision::Nvfp4: return fp4PeakFlopsPerGpu(c);
    case MatmulPrecision::Fp8:
    case MatmulPrecision::Fp8Blockwise:
    case MatmulPrecision::Mxfp8: return fp8PeakFlopsPerGpu(c);
    }
    return 0.0;
}

std::string scaleUpLinkName(const ClusterSpec& c)
{
    const AcceleratorPreset* preset = acceleratorPresetOfPart(c);
    return preset ? preset->scaleUpLink : "scale-up link";
}

std::string scaleUpDomainNoun(const ClusterSpec& c)
{
    return c.scaleUpDomain() == c.gpusPerNode ? std::string("node") : scaleUpLinkName(c) + " domain";
}

bool mxfp8Supported(const ClusterSpec& c)
{
    const AcceleratorPreset* preset = acceleratorPresetOfPart(c);
    return preset ? preset->mxfp8 : c.peakFp8FlopsPerGpu > 0;
}

void applyAccelerator(const AcceleratorPreset& a, ClusterSpec& c)
{
    c.accelerator = a.name;
    c.memoryBytesPerGpu = a.memoryBytes;
    c.peakFlopsPerGpu = a.peakBf16FlopsPerSecond;
    c.peakFp8FlopsPerGpu = a.peakFp8FlopsPerSecond;
    c.peakFp4FlopsPerGpu = a.peakFp4FlopsPerSecond;
    c.nvlinkDomain = a.nvlinkDomain;
    c.intraNodeBytesPerSecond = a.intraNodeBytesPerSecond;
    c.interNodeBytesPerSecond = a.interNodeBytesPerSecond;
    c.gpusPerNode = a.gpusPerNode;
    c.efficiency = {};  // a preset brings its own measured efficiencies
}

}  // namespace trainplan
