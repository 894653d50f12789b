// Reads and checks a plan document. Every problem is collected with its JSON path so a
// person fixes a file in one pass rather than one error at a time.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/BoundedFile.h"
#include "core/base/BoundedJson.h"
#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

using nlohmann::json;

namespace {

size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string describeJson(const json& v)
{
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// One object of the document: typed getters, driven by the field table (PlanFields), that
// record problems instead of throwing, and a final check that flags keys nobody asked for.
class Section {
public:
    Section(const json& doc, std::string path, std::vector<PlanProblem>& problems, bool required = true)
        : path_(std::move(path)), problems_(problems)
    {
        // A nested section ("training.reserve") is found key by key.
        const json* at = &doc;
        size_t from = 0;
        while (at && !path_.empty() && from <= path_.size()) {
            const size_t dot = std::min(path_.find('.', from), path_.size());
            const std::string key = path_.substr(from, dot - from);
            at = at->is_object() && at->contains(key) ? &at->at(key) : nullptr;
            from = dot + 1;
        }
        if (path_.empty()) {
            obj_ = &doc;
        } else if (at) {
            obj_ = at;
            if (!obj_->is_object()) {
                problem(path_, "must be an object, got " + describeJson(*obj_));
                obj_ = nullptr;
            }
        } else if (required) {
            problem(path_, "is missing (required section)");
        }
        for (const auto& f : planFields())
            if (f.section() == path_)
                known_.insert(std::string(f.key()));
    }

    // One element of an array of objects (model.layer_kinds[1]): its fields are the table's rows
    // under tablePath, and its problems name the element (displayPath).
    Section(const json& element, std::string tablePath, std::string displayPath, std::vector<PlanProblem>& problems)
        : path_(std::move(tablePath)), display_(std::move(displayPath)), problems_(problems)
    {
        if (!element.is_object()) {
            problem(display_, "must be an object, got " + describeJson(element));
        } else {
            obj_ = &element;
        }
        for (const auto& f : planFields())
            if (f.section() == path_)
                known_.insert(std::string(f.key()));
    }

    bool present() const { return obj_ != nullptr; }
    // A key of this object as the file gives it, whatever the table says; nullptr when absent.
    const json* member(const std::string& key) const
    {
        if (!obj_)
            return nullptr;
        const auto it = obj_->find(key);
        return it == obj_->end() ? nullptr : &*it;
    }
    void allow(const std::string& key) { known_.insert(key); }

    const json* find(const PlanField& f)
    {
        if (!obj_)
            return nullptr;
        const auto it = obj_->find(std::string(f.key()));
        if (it == obj_->end() || it->is_null()) {
            if (f.required)
                problem(path(f), "is missing (required)");
            return nullptr;
        }
        return &*it;
    }

    // A number in file units, within the field's range.
    std::optional<double> number(const PlanField& f)
    {
        const json* v = find(f);
        if (!v)
            return std::nullopt;
        if (!v->is_number()) {
            problem(path(f), "must be a number, got " + describeJson(*v));
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (!std::isfinite(x)) {
            problem(path(f), "must be a finite number");
            return std::nullopt;
        }
        const std::string unit = f.unit.empty() ? "" : " " + std::string(f.unit);
        if (f.min > 0 && x <= 0) {
            problem(path(f), "must be greater than 0, got " + fmt(x));
            return std::nullopt;
        }
        if (f.minExclusive ? x <= f.min : x < f.min) {
            problem(path(f),
                std::string("must be ") + (f.minExclusive ? "greater than " : "at least ") + fmt(f.min) + unit + ", got " + fmt(x)
                    + (f.min > 0 ? " (physically implausible)" : ""));
            return std::nullopt;
        }
        if (x > f.max) {
            problem(path(f), "must be at most " + fmt(f.max) + unit + ", got " + fmt(x) + " (implausibly large)");
            return std::nullopt;
        }
        return x;
    }

    // The field's value in the Plan's SI units, or its default when omitted.
    double numberOrDefault(const PlanField& f) { return number(f).value_or(defaultNumber(f)) * f.toSi; }

    std::optional<long long> integer(const PlanField& f)
    {
        const json* v = find(f);
        if (!v)
            return std::nullopt;
        return integerValue(*v, path(f), f);
    }

    long long integerOr(const PlanField& f, long long fallback) { return integer(f).value_or(fallback); }
    long long integerOrDefault(const PlanField& f) { return integerOr(f, (long long)defaultNumber(f)); }

    std::optional<long long> integerValue(const json& v, const std::string& at, const PlanField& f)
    {
        if (!v.is_number()) {
            problem(at, "must be a whole number, got " + describeJson(v));
            return std::nullopt;
        }
        const double x = v.get<double>();
        if (!std::isfinite(x) || x != std::floor(x)) {
            problem(at, "must be a whole number, got " + describeJson(v));
            return std::nullopt;
        }
        if (x < f.min) {
            problem(at, "must be at least " + fmt(f.min) + ", got " + describeJson(v));
            return std::nullopt;
        }
        if (x > f.max) {
            problem(at, "must be at most " + fmt(f.max) + ", got " + describeJson(v) + " (implausibly large)");
            return std::nullopt;
        }
        return (long long)x;
    }

    bool boolean(const PlanField& f)
    {
        const bool fallback = f.defaultValue == "true";
        const json* v = find(f);
        if (!v)
            return fallback;
        if (!v->is_boolean()) {
            problem(path(f), "must be true or false, got " + describeJson(*v));
            return fallback;
        }
        return v->get<bool>();
    }

    std::string text(const PlanField& f)
    {
        const json* v = find(f);
        if (!v)
            return {};
        if (!v->is_string()) {
            problem(path(f), "must be a string, got " + describeJson(*v));
            return {};
        }
        const std::string& text = v->get_ref<const std::string&>();
        if (std::string tooLong = textLengthProblem(f, text); !tooLong.empty()) {
            problem(path(f), tooLong);
            return {};
        }
        return text;
    }

    template <typename E, size_t N>
    E choice(const PlanField& f, const NameTable<E, N>& table)
    {
        const E fallback = valueOf(table, unquote(f.defaultValue)).value_or(table[0].first);
        const json* v = find(f);
        if (!v)
            return fallback;
        if (v->is_string()) {
            if (auto e = valueOf(table, v->get<std::string>()))
                return *e;
        }
        problem(path(f), "must be " + describeRange(f) + ", got " + describeJson(*v));
        return fallback;
    }

    // Keys in the file that the table does not know: almost always a typo.
    void rejectUnknownKeys()
    {
        if (!obj_)
            return;
        for (const auto& [key, value] : obj_->items()) {
            if (known_.count(key))
                continue;
            std::string hint;
            size_t best = 3;
            for (const auto& k : known_) {
                const size_t d = editDistance(key, k);
                if (d < best) {
                    best = d;
                    hint = " (did you mean \"" + k + "\"?)";
                }
            }
            problem(at(key), "is not a known field" + hint);
        }
    }

    void problem(const std::string& path, const std::string& message) { problems_.push_back({path, message}); }
    std::string at(const std::string& key) const
    {
        const std::string& base = display_.empty() ? path_ : display_;
        return base.empty() ? key : base + "." + key;
    }
    std::string path(const PlanField& f) const { return display_.empty() ? std::string(f.path) : display_ + "." + std::string(f.key()); }

    static std::string fmt(double x)
    {
        std::ostringstream s;
        s << x;
        return s.str();
    }
    static double defaultNumber(const PlanField& f)
    {
        if (f.defaultValue.empty())
            return 0;
        return std::stod(std::string(f.defaultValue));
    }
    static std::string_view unquote(std::string_view s)
    {
        return s.size() >= 2 && s.front() == '"' ? s.substr(1, s.size() - 2) : s;
    }

private:
    std::string path_;
    std::string display_;  // the element's own path when it is one of an array's objects
    const json* obj_ = nullptr;
    std::set<std::string> known_;
    std::vector<PlanProblem>& problems_;
};

const PlanField& F(std::string_view path)
{
    return planField(path);
}

// a x b x ... without overflow: nullopt when the product passes `limit`.
std::optional<long long> boundedProduct(std::initializer_list<long long> factors, long long limit)
{
    long long p = 1;
    for (long long f : factors) {
        if (__builtin_mul_overflow(p, f, &p) || p > limit)
            return std::nullopt;
    }
    return p;
}


// model.layer_kinds: runs of layers, each taking what it leaves out from model.* (LayerKind.h).
// Their layers must add up to model.layers, which stays the model's depth.
void readLayerKinds(Section& model, ModelSpec& m, std::vector<PlanProblem>& problems)
{
    m.layerKinds.clear();
    const PlanField& listField = F("model.layer_kinds");
    // Every element field's row, looked up whether or not the file lists kinds, so that a row
    // missing from the table fails every read (tst_planio).
    const PlanField& nameField = F("model.layer_kinds.name");
    const PlanField& layersField = F("model.layer_kinds.layers");
    const PlanField& ffnField = F("model.layer_kinds.ffn_hidden_size");
    const PlanField& ffnKindField = F("model.layer_kinds.ffn_kind");
    const PlanField& moeField = F("model.layer_kinds.moe");
    const json* list = model.find(listField);
    if (!list)
        return;
    if (!list->is_array() || list->empty() || list->size() > size_t(listField.max)) {
        model.problem("model.layer_kinds", "must be " + describeRange(listField) + ", got " + describeJson(*list));
        return;
    }
    long long sum = 0;
    bool complete = true;
    for (size_t i = 0; i < list->size(); ++i) {
        Section s((*list)[i], "model.layer_kinds", "model.layer_kinds[" + std::to_string(i) + "]", problems);
        if (!s.present()) {
            complete = false;
            continue;
        }
        LayerKind kind;
        kind.name = s.text(nameField);
        const auto layers = s.integer(layersField);
        kind.layers = int(layers.value_or(0));
        kind.ffnHiddenSize = int(s.integerOr(ffnField, m.ffnHiddenSize));
        kind.ffnKind = s.find(ffnKindField) ? s.choice(ffnKindField, kFfnKindNames) : m.ffnKind;
        kind.moe = s.boolean(moeField);
        if (kind.moe && !m.moe)
            s.problem("model.layer_kinds[" + std::to_string(i) + "].moe", "is true but the model has no model.moe to give it experts");
        s.rejectUnknownKeys();
        complete = complete && layers.has_value();
        sum += kind.layers;
        m.layerKinds.push_back(std::move(kind));
    }
    if (complete && sum != m.layers)
        model.problem("model.layer_kinds", "add up to " + std::to_string(sum) + " layers but model.layers is " + std::to_string(m.layers));
}

// model.moe: the routed and shared experts (MixtureOfExperts.h). Absent: a dense model.
void readMoe(const json& doc, ModelSpec& m, std::vector<PlanProblem>& problems)
{
    Section s(doc, "model.moe", problems, false);
    // Every row looked up whether or not the file has experts, so a row missing from the table
    // fails every read (tst_planio).
    const PlanField& expertsField = F("model.moe.experts");
    const PlanField& topKField = F("model.moe.top_k");
    const PlanField& widthField = F("model.moe.expert_ffn_hidden_size");
    const PlanField& sharedField = F("model.moe.shared_experts");
    const PlanField& sharedWidthField = F("model.moe.shared_expert_ffn_hidden_size");
    const PlanField& denseField = F("model.moe.dense_layers");
    const PlanField& biasField = F("model.moe.router_bias");
    const PlanField& stepField = F("model.moe.layer_step");
    const PlanField& nodesField = F("model.moe.max_nodes_per_token");
    const PlanField& capacityField = F("model.moe.capacity_factor");
    const PlanField& imbalanceField = F("model.moe.load_imbalance");
    if (!s.present()) {
        m.moe.reset();
        return;
    }
    MoeSpec e;
    e.experts = int(s.integer(expertsField).value_or(0));
    e.topK = int(s.integer(topKField).value_or(0));
    e.expertFfnHiddenSize = int(s.integer(widthField).value_or(0));
    e.sharedExperts = int(s.integerOrDefault(sharedField));
    e.sharedExpertFfnHiddenSize = int(s.integerOr(sharedWidthField, 0));
    e.denseLayers = int(s.integerOrDefault(denseField));
    e.layerStep = int(s.integerOrDefault(stepField));
    e.routerBias = s.boolean(biasField);
    e.maxNodesPerToken = int(s.integerOr(nodesField, 0));
    if (const auto cf = s.number(capacityField))
        e.capacityFactor = *cf;
    if (const auto imbalance = s.number(imbalanceField))
        e.loadImbalance = *imbalance;
    s.rejectUnknownKeys();
    if (e.experts > 0 && e.topK > e.experts)
        s.problem("model.moe.top_k", "is " + std::to_string(e.topK) + " but there are only " + std::to_string(e.experts)
            + " routed experts (model.moe.experts) to send a token to");
    if (e.denseLayers >= m.layers)
        s.problem("model.moe.dense_layers", "is " + std::to_string(e.denseLayers) + " but the model has " + std::to_string(m.layers)
            + " layers: at least one must be an MoE layer (leave model.moe out for a dense model)");
    else if (e.layerStep > 1 && e.moeLayersBefore(m.layers) < 1)
        s.problem("model.moe.layer_step", "is " + std::to_string(e.layerStep) + " but only " + std::to_string(m.layers - e.denseLayers)
            + " layers follow the dense ones: at least one must be an MoE layer");
    m.moe = e;
}

// model.mla: multi-head latent attention (MixtureOfExperts.h). Absent: grouped-query attention.
void readMla(const json& doc, ModelSpec& m, std::vector<PlanProblem>& problems)
{
    Section s(doc, "model.mla", problems, false);
    const PlanField& qField = F("model.mla.q_lora_rank");
    const PlanField& kvField = F("model.mla.kv_lora_rank");
    const PlanField& nopeField = F("model.mla.qk_nope_head_dim");
    const PlanField& ropeField = F("model.mla.qk_rope_head_dim");
    const PlanField& vField = F("model.mla.v_head_dim");
    if (!s.present()) {
        m.mla.reset();
        return;
    }
    MlaSpec a;
    a.qLoraRank = int(s.integer(qField).value_or(0));
    a.kvLoraRank = int(s.integer(kvField).value_or(1));
    a.qkNopeHeadDim = int(s.integer(nopeField).value_or(1));
    a.qkRopeHeadDim = int(s.integer(ropeField).value_or(0));
    a.vHeadDim = int(s.integer(vField).value_or(1));
    s.rejectUnknownKeys();
    m.mla = a;
}

void readModel(const json& doc, ModelSpec& m, std::vector<PlanProblem>& problems)
{
    Section s(doc, "model", problems);
    m.name = s.text(F("model.name"));
    m.layers = int(s.integerOr(F("model.layers"), m.layers));
    m.hiddenSize = int(s.integerOr(F("model.hidden_size"), m.hiddenSize));
    m.ffnHiddenSize = int(s.integerOr(F("model.ffn_hidden_size"), m.ffnHiddenSize));
    m.ffnKind = s.choice(F("model.ffn_kind"), kFfnKindNames);
    m.attentionHeads = int(s.integerOr(F("model.attention_heads"), m.attentionHeads));
    m.kvHeads = int(s.integerOr(F("model.kv_heads"), m.attentionHeads));
    const long long defaultHeadDim = m.attentionHeads > 0 ? std::max(1, m.hiddenSize / m.attentionHeads) : 128;
    m.headDim = int(s.integerOr(F("model.head_dim"), defaultHeadDim));
    m.vocabSize = int(s.integerOr(F("model.vocab_size"), m.vocabSize));
    m.tiedEmbeddings = s.boolean(F("model.tied_embeddings"));
    m.sequenceLength = int(s.integerOr(F("model.sequence_length"), m.sequenceLength));
    m.norm = s.choice(F("model.norm"), kNormNames);
    m.bias = s.boolean(F("model.bias"));
    m.positionEmbedding = s.choice(F("model.position_embedding"), kPositionNames);
    m.mtpLayers = int(s.integerOrDefault(F("model.mtp_layers")));
    s.allow("moe");
    s.allow("mla");
    readMoe(doc, m, problems);
    readMla(doc, m, problems);
    // The dense width is needed unless every layer's feed-forward is the experts.
    if (s.present() && !s.find(F("model.ffn_hidden_size"))) {
        if (!m.moe || m.moe->denseLayers > 0 || m.moe->layerStep > 1 || s.member("layer_kinds"))
            s.problem("model.ffn_hidden_size", "is missing (required for a dense model and for model.moe.dense_layers or layer_step)");
        else
            m.ffnHiddenSize = m.moe->expertFfnHiddenSize;  // unused: no layer is dense
    }
    readLayerKinds(s, m, problems);
    s.rejectUnknownKeys();
    if (s.present() && m.kvHeads > m.attentionHeads)
        s.problem("model.kv_heads", "must not exceed model.attention_heads (" + std::to_string(m.attentionHeads) + ")");
    else if (s.present() && m.attentionHeads % m.kvHeads != 0)
        s.problem(
            "model.kv_heads", "must divide model.attention_heads (" + std::to_string(m.attentionHeads) + ") so query heads group evenly");
}

// cluster.efficiency: the accelerator figures the plan gives itself (EfficiencySpec, Plan.h).
void readEfficiency(const json& doc, EfficiencySpec& e, std::vector<PlanProblem>& problems)
{
    Section s(doc, "cluster.efficiency", problems, false);
    const auto si = [&](const char* path) -> std::optional<double> {
        const PlanField& f = F(path);
        const auto v = s.number(f);
        return v ? std::optional<double>(*v * f.toSi) : std::nullopt;
    };
    const auto whole = [&](const char* path) -> std::optional<int> {
        const auto v = s.integer(F(path));
        return v ? std::optional<int>(int(*v)) : std::nullopt;
    };
    e.matmul = si("cluster.efficiency.matmul_fraction");
    e.smCount = whole("cluster.efficiency.sm_count");
    e.gemmTileM = whole("cluster.efficiency.gemm_tile_m");
    e.gemmTileN = whole("cluster.efficiency.gemm_tile_n");
    e.gemmKHalf = si("cluster.efficiency.gemm_k_half");
    e.flashAttention = si("cluster.efficiency.flash_attention_fraction");
    e.flashAttention3 = si("cluster.efficiency.flash_attention_3_fraction");
    e.hbmBytesPerSecond = si("cluster.efficiency.hbm_bandwidth_gb_per_s");
    e.hbm = si("cluster.efficiency.hbm_fraction");
    e.scaleUpCollective = si("cluster.efficiency.scale_up_collective_fraction");
    e.networkCollective = si("cluster.efficiency.network_collective_fraction");
    e.kernelOverheadSeconds = si("cluster.efficiency.kernel_overhead_us");
    e.kernelLaunchSeconds = si("cluster.efficiency.kernel_launch_us");
    e.scaleUpStepSeconds = si("cluster.efficiency.scale_up_step_latency_us");
    e.networkStepSeconds = si("cluster.efficiency.network_step_latency_us");
    s.rejectUnknownKeys();
}

// cluster.calibration: where fitted figures came from (CalibrationRecord, Plan.h).
void readCalibration(const json& doc, std::optional<CalibrationRecord>& out, std::vector<PlanProblem>& problems)
{
    Section s(doc, "cluster.calibration", problems, false);
    out.reset();
    // Every field is looked up, present or not, so a row missing from the table is caught on any plan.
    CalibrationRecord r;
    r.source = s.text(F("cluster.calibration.source"));
    r.accelerator = s.text(F("cluster.calibration.accelerator"));
    r.framework = s.text(F("cluster.calibration.framework"));
    r.date = s.text(F("cluster.calibration.date"));
    r.measuredLayout = s.text(F("cluster.calibration.measured_layout"));
    const PlanField& step = F("cluster.calibration.measured_step_seconds");
    r.measuredStepSeconds = s.number(step).value_or(0.0) * step.toSi;
    r.fitted = s.text(F("cluster.calibration.fitted"));
    s.rejectUnknownKeys();
    if (s.present())
        out = r;
}

void readCluster(const json& doc, ClusterSpec& c, std::vector<PlanProblem>& problems)
{
    Section s(doc, "cluster", problems);
    c.accelerator = s.text(F("cluster.accelerator"));
    c.gpus = int(s.integerOr(F("cluster.gpus"), c.gpus));
    c.gpusPerNode = int(s.integerOr(F("cluster.gpus_per_node"), c.gpusPerNode));
    c.nvlinkDomain = int(s.integerOr(F("cluster.nvlink_domain"), 0));
    const auto si = [&](const char* path, double fallback) {
        const PlanField& f = F(path);
        return s.number(f).value_or(fallback / f.toSi) * f.toSi;
    };
    c.memoryBytesPerGpu = si("cluster.memory_gb", c.memoryBytesPerGpu);
    c.peakFlopsPerGpu = si("cluster.peak_bf16_tflops", c.peakFlopsPerGpu);
    c.peakFp8FlopsPerGpu = si("cluster.peak_fp8_tflops", 0.0);
    c.peakFp4FlopsPerGpu = si("cluster.peak_fp4_tflops", 0.0);
    c.intraNodeBytesPerSecond = si("cluster.intra_node_bandwidth_gb_per_s", c.intraNodeBytesPerSecond);
    c.interNodeBytesPerSecond = si("cluster.inter_node_bandwidth_gb_per_s", c.interNodeBytesPerSecond);
    c.inNetworkReduction = s.choice(F("cluster.in_network_reduction"), kInNetworkReductionNames);
    s.allow("efficiency");
    readEfficiency(doc, c.efficiency, problems);
    s.allow("calibration");
    readCalibration(doc, c.calibration, problems);
    const PlanField& nodeField = F("cluster.mtbf_hours_per_node");
    const PlanField& gpuField = F("cluster.mtbf_hours_per_gpu");
    const auto perNode = s.number(nodeField);
    const auto perGpu = s.number(gpuField);
    c.mtbfSeconds.reset();
    if (perNode && perGpu) {
        s.problem("cluster.mtbf_hours_per_gpu", "give either mtbf_hours_per_node or mtbf_hours_per_gpu, not both");
    } else if (perNode) {
        c.mtbfSeconds = *perNode * nodeField.toSi;
        c.mtbfBasis = MtbfBasis::PerNode;
    } else if (perGpu) {
        c.mtbfSeconds = *perGpu * gpuField.toSi;
        c.mtbfBasis = MtbfBasis::PerGpu;
    }
    s.rejectUnknownKeys();
}

// training.reserve: the runtime reserve's editable terms (defaults in Plan.h, sources in
// estimate/ReserveModel.cpp).
void readReserve(const json& doc, ReserveSpec& r, std::vector<PlanProblem>& problems)
{
    Section s(doc, "training.reserve", problems, false);
    r.cudaContextBytes = s.numberOrDefault(F("training.reserve.cuda_context_gb"));
    r.workspaceBytes = s.numberOrDefault(F("training.reserve.workspace_mib"));
    r.ncclChannels = int(s.integerOrDefault(F("training.reserve.nccl_channels")));
    r.ncclBytesPerConnection = s.numberOrDefault(F("training.reserve.nccl_buffer_mib_per_connection"));
    s.rejectUnknownKeys();
}

void readTraining(const json& doc, TrainingSpec& t, int sequenceLength, std::vector<PlanProblem>& problems)
{
    Section s(doc, "training", problems);
    t.tokens = s.number(F("training.tokens")).value_or(t.tokens);
    const PlanField& tokensField = F("training.global_batch_tokens");
    const auto seqs = s.integer(F("training.global_batch_sequences"));
    const auto toks = s.integer(tokensField);
    if (seqs && toks) {
        s.problem("training.global_batch_tokens", "give either global_batch_sequences or global_batch_tokens, not both");
    } else if (seqs) {
        t.globalBatchSequences = *seqs;
        if (sequenceLength > 0 && double(*seqs) * sequenceLength > tokensField.max)
            s.problem("training.global_batch_sequences",
                std::to_string(*seqs) + " sequences of " + std::to_string(sequenceLength) + " tokens is more than "
                    + Section::fmt(tokensField.max) + " tokens per step (implausibly large)");
    } else if (toks) {
        if (sequenceLength > 0 && *toks % sequenceLength != 0)
            s.problem("training.global_batch_tokens",
                "must be a multiple of model.sequence_length (" + std::to_string(sequenceLength) + "), got " + std::to_string(*toks));
        else if (sequenceLength > 0)
            t.globalBatchSequences = *toks / sequenceLength;
    } else if (s.present()) {
        s.problem("training.global_batch_sequences", "is missing (give global_batch_sequences or global_batch_tokens)");
    }
    t.microBatchSize = int(s.integerOr(F("training.micro_batch_size"), t.microBatchSize));
    t.mfu = s.number(F("training.mfu")).value_or(t.mfu);
    t.precision = s.choice(F("training.precision"), kPrecisionNames);
    t.matmulPrecision = s.choice(F("training.matmul_precision"), kMatmulPrecisionNames);
    t.bufferBytes = s.numberOrDefault(F("training.buffer_gb"));
    t.fragmentationFraction = s.numberOrDefault(F("training.fragmentation_fraction"));
    t.memoryMarginFraction = s.numberOrDefault(F("training.memory_margin_fraction"));
    s.allow("reserve");
    readReserve(doc, t.reserve, problems);
    s.rejectUnknownKeys();
}

// Version 1 had a second FlashAttention field, layout.flash_attention (true by default; left out:
// unknown, true expected). false ran unfused attention whatever the stack; true, or left out, used
// the kernel framework.flash_attention or its profile names, FlashAttention-2 when neither says.
// Version 2 keeps framework.flash_attention only: false becomes "none", true and absent leave the
// framework's value as it is (docs/plan-format.md, "Version 2").
constexpr const char* kVersion1FlashAttention = "layout.flash_attention";

// True when a version 1 layout turns FlashAttention off; a problem when a newer file has the field.
bool version1FlashAttentionOff(const Section& s, long long version, std::vector<PlanProblem>& problems)
{
    const json* v = s.member("flash_attention");
    if (!v)
        return false;
    if (version >= 2) {
        problems.push_back({kVersion1FlashAttention,
            "was replaced by framework.flash_attention in plan format version 2: give that \"none\", \"2\" or \"3\""});
        return false;
    }
    if (v->is_boolean())
        return !v->get<bool>();
    if (!v->is_null())
        problems.push_back({kVersion1FlashAttention, "must be true or false, got " + describeJson(*v)});
    return false;
}

// layout.ep and layout.etp against the model's experts and the ranks of a stage (ExpertGrid.h):
// the expert grid ETP x EP x EDP folds the attention grid's TP x CP x DP ranks of each stage.
void checkExpertLayout(Section& s, const LayoutSpec& l, const ModelSpec& model)
{
    if (!s.present() || (l.ep == 1 && l.etp == 1))
        return;
    if (!model.moe) {
        s.problem(l.ep > 1 ? "layout.ep" : "layout.etp", "is more than 1 but the model has no experts (model.moe)");
        return;
    }
    if (model.moe->experts > 0 && !epDividesExperts(l.ep, model)) {
        s.problem("layout.ep", "is " + std::to_string(l.ep) + " but must divide the " + std::to_string(model.moe->experts)
            + " routed experts (model.moe.experts) so every rank holds as many");
        return;
    }
    const auto stageRanks = boundedProduct({l.tp, l.cp, l.dp}, (long long)F("cluster.gpus").max);
    const auto expertRanks = boundedProduct({l.ep, l.etp}, (long long)F("cluster.gpus").max);
    if (!expertRanks || !stageRanks || !expertRanksDivideStage(l, l.ep, l.etp))
        s.problem("layout.ep", "EP x ETP = " + (expertRanks ? std::to_string(*expertRanks) : std::string("too many"))
            + " must divide the ranks of a pipeline stage, TP x CP x DP = " + (stageRanks ? std::to_string(*stageRanks) : std::string("?")));
}

void readLayout(const json& doc, LayoutSpec& l, const ClusterSpec& cluster, const ModelSpec& model, long long version,
    bool& flashAttentionOff, std::vector<PlanProblem>& problems)
{
    Section s(doc, "layout", problems);
    flashAttentionOff = version1FlashAttentionOff(s, version, problems);
    s.allow("flash_attention");
    // TP x PP x DP x CP is bounded like the cluster's GPU count.
    const long long maxGpus = (long long)F("cluster.gpus").max;
    l.tp = int(s.integerOr(F("layout.tp"), l.tp));
    l.pp = int(s.integerOr(F("layout.pp"), l.pp));
    l.cp = int(s.integerOrDefault(F("layout.cp")));
    // "dp_auto": true (as estimate --json writes beside the resolved integer) means "auto" too,
    // so an estimate's plan reads back as the plan it came from.
    l.dpAuto = s.boolean(F("layout.dp_auto"));
    const PlanField& dpField = F("layout.dp");
    if (const json* dp = s.find(dpField)) {
        if (l.dpAuto || (dp->is_string() && dp->get<std::string>() == "auto")) {
            l.dpAuto = true;
            const auto others = boundedProduct({l.tp, l.pp, l.cp}, maxGpus);
            if (others && cluster.gpus % *others == 0)
                l.dp = int(cluster.gpus / *others);
            else
                s.problem("layout.dp",
                    "is \"auto\" but TP x PP x CP = "
                        + (others ? std::to_string(*others) : std::string("more than ") + std::to_string(maxGpus))
                        + " does not divide cluster.gpus (" + std::to_string(cluster.gpus) + ")");
        } else if (dp->is_string()) {
            s.problem("layout.dp", "must be a whole number or \"auto\", got " + describeJson(*dp));
        } else if (auto v = s.integerValue(*dp, "layout.dp", dpField)) {
            l.dp = int(*v);
        }
    }
    if (!boundedProduct({l.tp, l.pp, l.dp, l.cp}, maxGpus))
        s.problem("layout", "TP x PP x DP x CP is more than " + std::to_string(maxGpus) + " GPUs (implausibly large)");
    // Fields left out (or null) are unknown (the table of layout unknowns, LayoutUnknownFields.h).
    l.unknownFields = 0;
    for (const LayoutUnknownField& u : layoutUnknownFields()) {
        const bool companionSays = !u.companion.empty() && !u.companionKnownAlone && s.find(F(u.companion));
        if (!s.find(F(u.path)) && !companionSays)
            l.unknownFields |= u.bit;
    }
    l.ep = int(s.integerOrDefault(F("layout.ep")));
    l.etp = int(s.integerOrDefault(F("layout.etp")));
    checkExpertLayout(s, l, model);
    l.virtualStages = int(s.integerOrDefault(F("layout.virtual_stages")));
    l.schedule = s.choice(F("layout.schedule"), kScheduleNames);
    l.zeroStage = int(s.integerOrDefault(F("layout.zero_stage")));
    l.sequenceParallel = s.boolean(F("layout.sequence_parallel"));
    l.recompute = s.choice(F("layout.recompute"), kRecomputeNames);
    l.recomputeLayers = int(s.integerOrDefault(F("layout.recompute_layers")));
    l.rankOrder = s.choice(F("layout.rank_order"), kRankOrderNames);
    l.stageLayers.clear();
    const PlanField& stageField = F("layout.stage_layers");
    if (const json* sl = s.find(stageField)) {
        if (!sl->is_array()) {
            s.problem("layout.stage_layers", "must be an array of layer counts, one per pipeline stage");
        } else {
            long long sum = 0;
            for (size_t i = 0; i < sl->size(); ++i) {
                if (auto v = s.integerValue((*sl)[i], "layout.stage_layers[" + std::to_string(i) + "]", stageField)) {
                    l.stageLayers.push_back(int(*v));
                    sum += *v;
                }
            }
            // An empty list is the even split, as if the field were absent.
            if (!sl->empty() && l.stageLayers.size() == sl->size()) {
                if (int(sl->size()) != l.pp)
                    s.problem(
                        "layout.stage_layers", "lists " + std::to_string(sl->size()) + " stages but layout.pp is " + std::to_string(l.pp));
                else if (sum != model.layers)
                    s.problem("layout.stage_layers",
                        "sums to " + std::to_string(sum) + " layers but model.layers is " + std::to_string(model.layers));
            }
        }
    }
    if (s.present() && l.pp > model.layers && l.stageLayers.empty())
        s.problem("layout.pp",
            "is " + std::to_string(l.pp) + " but the model has only " + std::to_string(model.layers)
                + " layers; every stage needs at least one");
    s.rejectUnknownKeys();
}

void readReliability(const json& doc, ReliabilitySpec& r, std::vector<PlanProblem>& problems)
{
    Section s(doc, "reliability", problems, false);
    const PlanField& secondsField = F("reliability.checkpoint_write_seconds");
    const PlanField& bandwidthField = F("reliability.checkpoint_write_gb_per_s_per_gpu");
    const auto seconds = s.number(secondsField);
    const auto bandwidth = s.number(bandwidthField);
    r.checkpointWriteSeconds.reset();
    r.checkpointWriteBytesPerSecondPerGpu.reset();
    if (seconds && bandwidth)
        s.problem("reliability.checkpoint_write_gb_per_s_per_gpu",
            "give either checkpoint_write_seconds or checkpoint_write_gb_per_s_per_gpu, not both");
    else if (bandwidth)
        r.checkpointWriteBytesPerSecondPerGpu = *bandwidth * bandwidthField.toSi;
    else
        r.checkpointWriteSeconds = seconds.value_or(Section::defaultNumber(secondsField)) * secondsField.toSi;
    r.restartSeconds = s.numberOrDefault(F("reliability.restart_seconds"));
    r.otherOverheadFraction = s.numberOrDefault(F("reliability.other_overhead_fraction"));
    s.rejectUnknownKeys();
}


void readCost(const json& doc, CostSpec& c, std::vector<PlanProblem>& problems)
{
    Section s(doc, "cost", problems, false);
    c.pricePerGpuHourUsd = s.number(F("cost.price_per_gpu_hour_usd"));
    c.gpuPowerWatts = s.number(F("cost.gpu_power_watts"));
    c.serverOverheadFraction = s.numberOrDefault(F("cost.server_overhead_fraction"));
    c.pue = s.numberOrDefault(F("cost.pue"));
    c.gridKgCo2ePerKwh = s.number(F("cost.grid_kg_co2e_per_kwh"));
    s.rejectUnknownKeys();
}

// The "framework" object: a profile by name and individual switches, each optional.
void readFramework(const json& doc, FrameworkSpec& f, std::vector<PlanProblem>& problems)
{
    Section s(doc, "framework", problems, false);
    f = FrameworkSpec{};
    f.profile = canonicalFrameworkProfile(s.text(F("framework.profile")));
    if (!f.profile.empty() && !findFrameworkProfile(f.profile)) {
        std::string allowed;
        for (auto name : frameworkProfileNames())
            allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name) + "\"";
        s.problem("framework.profile", "must be one of " + allowed + ", got \"" + f.profile + "\"");
    }
    // A switch the file leaves out stays unknown: the profile (or the range) decides.
    for (const FrameworkFlag& flag : kFrameworkFlags)
        if (s.find(F(flag.path)))
            f.*flag.field = s.boolean(F(flag.path));
    if (const json* v = s.find(F("framework.flash_attention")); v && v->is_number_integer())
        s.problem("framework.flash_attention", "must be a string, one of \"none\", \"2\", \"3\", got " + describeJson(*v));
    else if (v)
        f.flashAttention = s.choice(F("framework.flash_attention"), kFlashAttentionVersionNames);
    if (s.find(F("framework.optimizer")))
        f.optimizer = s.choice(F("framework.optimizer"), kOptimizerImplementationNames);
    if (s.find(F("framework.gradient_accumulation")))
        f.gradientAccumulation = s.choice(F("framework.gradient_accumulation"), kGradientAccumulationNames);
    if (s.find(F("framework.selective_recompute")))
        f.selectiveRecompute = s.choice(F("framework.selective_recompute"), kSelectiveRecomputeNames);
    if (s.find(F("framework.zero3_gathering")))
        f.zero3Gathering = s.choice(F("framework.zero3_gathering"), kZero3GatheringNames);
    if (s.find(F("framework.moe_dispatcher")))
        f.moeDispatcher = s.choice(F("framework.moe_dispatcher"), kMoeDispatcherNames);
    s.rejectUnknownKeys();
}

}  // namespace

ReadPlan readPlanJson(const json& doc)
{
    std::vector<PlanProblem> problems;
    if (!doc.is_object())
        throw PlanError({{"", "a plan must be a JSON object, got " + describeJson(doc)}});

    Section top(doc, "", problems);
    const PlanField& formatField = F("format");
    if (const json* format = top.find(formatField)) {
        if (!format->is_string() || format->get<std::string>() != kPlanFormat)
            throw PlanError({{"format",
                "must be \"" + std::string(kPlanFormat) + "\", got " + describeJson(*format) + " (not a TrainPlan plan file)"}});
    }
    const auto version = top.integer(F("version"));
    if (version) {
        if (*version > kPlanVersion)
            throw PlanError({{"version",
                "is " + std::to_string(*version) + ", newer than this TrainPlan reads (" + std::to_string(kPlanVersion)
                    + "); open it with a newer TrainPlan"}});
    }

    ReadPlan read;
    Plan& plan = read.plan;
    plan.name = top.text(F("name"));
    const PlanField& userSetField = F("name_user_set");
    read.nameUserSetGiven = top.find(userSetField) != nullptr;
    plan.nameUserSet = top.boolean(userSetField);
    plan.notes = top.text(F("notes"));
    readModel(doc, plan.model, problems);
    readCluster(doc, plan.cluster, problems);
    readTraining(doc, plan.training, plan.model.sequenceLength, problems);
    bool flashAttentionOff = false;
    readLayout(doc, plan.layout, plan.cluster, plan.model, version.value_or(kPlanVersion), flashAttentionOff, problems);
    readReliability(doc, plan.reliability, problems);
    readCost(doc, plan.cost, problems);
    readFramework(doc, plan.framework, problems);
    if (flashAttentionOff)
        plan.framework.flashAttention = FlashAttentionVersion::None;
    for (const char* section : {"model", "cluster", "training", "layout", "reliability", "cost", "framework"})
        top.allow(section);
    top.rejectUnknownKeys();
    if (!problems.empty())
        throw PlanError(std::move(problems));
    return read;
}

ModelSpec modelSpecFromJson(const json& modelObject)
{
    std::vector<PlanProblem> problems;
    ModelSpec model;
    readModel(json{{"model", modelObject}}, model, problems);
    if (!problems.empty())
        throw PlanError(std::move(problems));
    return model;
}

std::string readPlanFileText(const std::string& path)
{
    // Regular files only, 16 MiB at most: a device or a named pipe is refused, never read.
    return readRegularFile(path, kMaxInputFileBytes);
}

}  // namespace trainplan
