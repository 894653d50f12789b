// Reads and checks a plan document. Every problem is collected with its JSON path so a
// person fixes a file in one pass rather than one error at a time.
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "plan/EnumNames.h"
#include "plan/FrameworkNames.h"
#include "plan/PlanIO.h"
#include "plan/Units.h"

namespace trainplan {

using nlohmann::json;

PlanError::PlanError(std::vector<PlanProblem> problems)
    : std::runtime_error(problems.empty() ? "invalid plan" : problems.front().path + ": " + problems.front().message)
    , problems_(std::move(problems))
{
}

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

// One object of the document: typed getters that record problems instead of throwing,
// and a final check that flags keys nobody asked for (typos).
class Section {
public:
    Section(const json& doc, std::string path, std::vector<PlanProblem>& problems, bool required = true)
        : path_(std::move(path)), problems_(problems)
    {
        const auto key = path_.substr(path_.rfind('.') + 1);
        if (path_.empty()) {
            obj_ = &doc;
        } else if (doc.is_object() && doc.contains(key)) {
            obj_ = &doc.at(key);
            if (!obj_->is_object()) {
                problem(path_, "must be an object, got " + describeJson(*obj_));
                obj_ = nullptr;
            }
        } else if (required) {
            problem(path_, "is missing (required section)");
        }
    }

    bool present() const { return obj_ != nullptr; }
    const json* object() const { return obj_; }

    const json* find(const std::string& key, bool required)
    {
        known_.insert(key);
        if (!obj_)
            return nullptr;
        const auto it = obj_->find(key);
        if (it == obj_->end() || it->is_null()) {
            if (required)
                problem(at(key), "is missing (required)");
            return nullptr;
        }
        return &*it;
    }

    std::optional<double> number(const std::string& key, bool required, double min, double max, bool minExclusive)
    {
        const json* v = find(key, required);
        if (!v)
            return std::nullopt;
        if (!v->is_number()) {
            problem(at(key), "must be a number, got " + describeJson(*v));
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (!std::isfinite(x)) {
            problem(at(key), "must be a finite number");
            return std::nullopt;
        }
        if (minExclusive ? x <= min : x < min) {
            problem(at(key), std::string("must be ") + (minExclusive ? "greater than " : "at least ") + fmt(min) + ", got " + fmt(x));
            return std::nullopt;
        }
        if (x > max) {
            problem(at(key), "must be at most " + fmt(max) + ", got " + fmt(x) + " (implausibly large)");
            return std::nullopt;
        }
        return x;
    }

    double numberOr(const std::string& key, double fallback, double min, double max, bool minExclusive = true)
    {
        return number(key, false, min, max, minExclusive).value_or(fallback);
    }

    std::optional<long long> integer(const std::string& key, bool required, long long min, long long max)
    {
        const json* v = find(key, required);
        if (!v)
            return std::nullopt;
        return integerValue(*v, at(key), min, max);
    }

    long long integerOr(const std::string& key, long long fallback, long long min, long long max)
    {
        return integer(key, false, min, max).value_or(fallback);
    }

    std::optional<long long> integerValue(const json& v, const std::string& path, long long min, long long max)
    {
        if (!v.is_number()) {
            problem(path, "must be a whole number, got " + describeJson(v));
            return std::nullopt;
        }
        const double x = v.get<double>();
        if (!std::isfinite(x) || x != std::floor(x)) {
            problem(path, "must be a whole number, got " + describeJson(v));
            return std::nullopt;
        }
        if (x < double(min)) {
            problem(path, "must be at least " + std::to_string(min) + ", got " + describeJson(v));
            return std::nullopt;
        }
        if (x > double(max)) {
            problem(path, "must be at most " + std::to_string(max) + ", got " + describeJson(v) + " (implausibly large)");
            return std::nullopt;
        }
        return (long long)x;
    }

    bool boolean(const std::string& key, bool fallback)
    {
        const json* v = find(key, false);
        if (!v)
            return fallback;
        if (!v->is_boolean()) {
            problem(at(key), "must be true or false, got " + describeJson(*v));
            return fallback;
        }
        return v->get<bool>();
    }

    std::string text(const std::string& key, const std::string& fallback = {})
    {
        const json* v = find(key, false);
        if (!v)
            return fallback;
        if (!v->is_string()) {
            problem(at(key), "must be a string, got " + describeJson(*v));
            return fallback;
        }
        return v->get<std::string>();
    }

    template <typename E, size_t N>
    E choice(const std::string& key, const NameTable<E, N>& table, E fallback)
    {
        const json* v = find(key, false);
        if (!v)
            return fallback;
        std::string allowed;
        for (const auto& [e, name] : table)
            allowed += (allowed.empty() ? "" : ", ") + std::string("\"") + std::string(name) + "\"";
        if (v->is_string()) {
            if (auto e = valueOf(table, v->get<std::string>()))
                return *e;
        }
        problem(at(key), "must be one of " + allowed + ", got " + describeJson(*v));
        return fallback;
    }

    // Keys in the file that no getter asked for: almost always a typo.
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
    std::string at(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

    static std::string fmt(double x)
    {
        std::ostringstream s;
        s << x;
        return s.str();
    }

private:
    std::string path_;
    const json* obj_ = nullptr;
    std::set<std::string> known_;
    std::vector<PlanProblem>& problems_;
};

constexpr long long kMaxGpus = 10'000'000;

void readModel(const json& doc, ModelSpec& m, std::vector<PlanProblem>& problems)
{
    Section s(doc, "model", problems);
    m.name = s.text("name");
    m.layers = int(s.integer("layers", true, 1, 100'000).value_or(m.layers));
    m.hiddenSize = int(s.integer("hidden_size", true, 1, 1'000'000).value_or(m.hiddenSize));
    m.ffnHiddenSize = int(s.integer("ffn_hidden_size", true, 1, 10'000'000).value_or(m.ffnHiddenSize));
    m.ffnKind = s.choice("ffn_kind", kFfnKindNames, FfnKind::SwiGlu);
    m.attentionHeads = int(s.integer("attention_heads", true, 1, 100'000).value_or(m.attentionHeads));
    m.kvHeads = int(s.integerOr("kv_heads", m.attentionHeads, 1, 100'000));
    const long long defaultHeadDim = m.attentionHeads > 0 ? std::max(1, m.hiddenSize / m.attentionHeads) : 128;
    m.headDim = int(s.integerOr("head_dim", defaultHeadDim, 1, 100'000));
    m.vocabSize = int(s.integer("vocab_size", true, 1, 100'000'000).value_or(m.vocabSize));
    m.tiedEmbeddings = s.boolean("tied_embeddings", false);
    m.sequenceLength = int(s.integer("sequence_length", true, 1, 100'000'000).value_or(m.sequenceLength));
    m.norm = s.choice("norm", kNormNames, NormKind::RmsNorm);
    m.bias = s.boolean("bias", false);
    m.positionEmbedding = s.choice("position_embedding", kPositionNames, PositionEmbedding::Rope);
    s.rejectUnknownKeys();
    if (s.present() && m.kvHeads > m.attentionHeads)
        s.problem("model.kv_heads", "must not exceed model.attention_heads (" + std::to_string(m.attentionHeads) + ")");
    else if (s.present() && m.attentionHeads % m.kvHeads != 0)
        s.problem("model.kv_heads", "must divide model.attention_heads (" + std::to_string(m.attentionHeads) + ") so query heads group evenly");
}

void readCluster(const json& doc, ClusterSpec& c, std::vector<PlanProblem>& problems)
{
    Section s(doc, "cluster", problems);
    c.accelerator = s.text("accelerator");
    c.gpus = int(s.integer("gpus", true, 1, kMaxGpus).value_or(c.gpus));
    c.gpusPerNode = int(s.integer("gpus_per_node", true, 1, 4096).value_or(c.gpusPerNode));
    c.memoryBytesPerGpu = s.number("memory_gb", true, 0, 1e5, true).value_or(c.memoryBytesPerGpu / units::GB) * units::GB;
    c.peakFlopsPerGpu = s.number("peak_bf16_tflops", true, 0, 1e6, true).value_or(c.peakFlopsPerGpu / units::TFLOPS) * units::TFLOPS;
    c.intraNodeBytesPerSecond = s.number("intra_node_bandwidth_gb_per_s", true, 0, 1e6, true).value_or(c.intraNodeBytesPerSecond / units::GB) * units::GB;
    c.interNodeBytesPerSecond = s.number("inter_node_bandwidth_gb_per_s", true, 0, 1e6, true).value_or(c.interNodeBytesPerSecond / units::GB) * units::GB;
    const auto perNode = s.number("mtbf_hours_per_node", false, 0, 1e9, true);
    const auto perGpu = s.number("mtbf_hours_per_gpu", false, 0, 1e9, true);
    c.mtbfSeconds.reset();
    if (perNode && perGpu) {
        s.problem("cluster.mtbf_hours_per_gpu", "give either mtbf_hours_per_node or mtbf_hours_per_gpu, not both");
    } else if (perNode) {
        c.mtbfSeconds = *perNode * units::secondsPerHour;
        c.mtbfBasis = MtbfBasis::PerNode;
    } else if (perGpu) {
        c.mtbfSeconds = *perGpu * units::secondsPerHour;
        c.mtbfBasis = MtbfBasis::PerGpu;
    }
    s.rejectUnknownKeys();
}

// training.reserve: the runtime reserve's editable terms (defaults in Plan.h, sources in
// estimate/ReserveModel.cpp).
void readReserve(const json& training, ReserveSpec& r, std::vector<PlanProblem>& problems)
{
    Section s(training, "training.reserve", problems, false);
    const ReserveSpec d;
    r.cudaContextBytes = s.numberOr("cuda_context_gb", d.cudaContextBytes / units::GB, 0, 1e3, false) * units::GB;
    r.workspaceBytes = s.numberOr("workspace_mib", d.workspaceBytes / units::MiB, 0, 1e6, false) * units::MiB;
    r.ncclChannels = int(s.integerOr("nccl_channels", d.ncclChannels, 0, 1024));
    r.ncclBytesPerConnection = s.numberOr("nccl_buffer_mib_per_connection", d.ncclBytesPerConnection / units::MiB, 0, 1e4, false) * units::MiB;
    s.rejectUnknownKeys();
}

void readTraining(const json& doc, TrainingSpec& t, int sequenceLength, std::vector<PlanProblem>& problems)
{
    Section s(doc, "training", problems);
    t.tokens = s.number("tokens", true, 0, 1e18, true).value_or(t.tokens);
    const auto seqs = s.integer("global_batch_sequences", false, 1, 1'000'000'000);
    const auto toks = s.integer("global_batch_tokens", false, 1, 1'000'000'000'000LL);
    if (seqs && toks) {
        s.problem("training.global_batch_tokens", "give either global_batch_sequences or global_batch_tokens, not both");
    } else if (seqs) {
        t.globalBatchSequences = *seqs;
    } else if (toks) {
        if (sequenceLength > 0 && *toks % sequenceLength != 0)
            s.problem("training.global_batch_tokens", "must be a multiple of model.sequence_length (" + std::to_string(sequenceLength) + "), got " + std::to_string(*toks));
        else if (sequenceLength > 0)
            t.globalBatchSequences = *toks / sequenceLength;
    } else if (s.present()) {
        s.problem("training.global_batch_sequences", "is missing (give global_batch_sequences or global_batch_tokens)");
    }
    t.microBatchSize = int(s.integer("micro_batch_size", true, 1, 1'000'000).value_or(t.microBatchSize));
    t.mfu = s.number("mfu", true, 0, 1, true).value_or(t.mfu);
    t.precision = s.choice("precision", kPrecisionNames, PrecisionScheme::Bf16WithFp32MasterAdam);
    const TrainingSpec defaults;
    t.bufferBytes = s.numberOr("buffer_gb", defaults.bufferBytes / units::GB, 0, 1e5, false) * units::GB;
    t.fragmentationFraction = s.numberOr("fragmentation_fraction", defaults.fragmentationFraction, 0, 0.9, false);
    t.memoryMarginFraction = s.numberOr("memory_margin_fraction", defaults.memoryMarginFraction, 0, 0.5, false);
    s.find("reserve", false);
    if (s.object())
        readReserve(*s.object(), t.reserve, problems);
    s.rejectUnknownKeys();
}

void readLayout(const json& doc, LayoutSpec& l, const ClusterSpec& cluster, const ModelSpec& model, std::vector<PlanProblem>& problems)
{
    Section s(doc, "layout", problems);
    l.tp = int(s.integer("tp", true, 1, kMaxGpus).value_or(l.tp));
    l.pp = int(s.integer("pp", true, 1, kMaxGpus).value_or(l.pp));
    l.cp = int(s.integerOr("cp", 1, 1, kMaxGpus));
    // "dp_auto": true (as estimate --json writes beside the resolved integer) means "auto" too,
    // so an estimate's plan reads back as the plan it came from.
    l.dpAuto = s.boolean("dp_auto", false);
    if (const json* dp = s.find("dp", true)) {
        if (l.dpAuto || (dp->is_string() && dp->get<std::string>() == "auto")) {
            l.dpAuto = true;
            const long long others = (long long)l.tp * l.pp * l.cp;
            if (others > 0 && cluster.gpus % others == 0)
                l.dp = int(cluster.gpus / others);
            else
                s.problem("layout.dp", "is \"auto\" but TP x PP x CP = " + std::to_string(others) + " does not divide cluster.gpus (" + std::to_string(cluster.gpus) + ")");
        } else if (dp->is_string()) {
            s.problem("layout.dp", "must be a whole number or \"auto\", got " + describeJson(*dp));
        } else if (auto v = s.integerValue(*dp, "layout.dp", 1, kMaxGpus)) {
            l.dp = int(*v);
        }
    }
    const long long product = (long long)l.tp * l.pp * l.dp * l.cp;
    if (product > kMaxGpus)
        s.problem("layout", "TP x PP x DP x CP = " + std::to_string(product) + " GPUs is implausibly large");
    l.virtualStages = int(s.integerOr("virtual_stages", 1, 1, 1024));
    l.schedule = s.choice("schedule", kScheduleNames, Schedule::OneFOneB);
    l.zeroStage = int(s.integerOr("zero_stage", 0, 0, 3));
    l.sequenceParallel = s.boolean("sequence_parallel", false);
    l.recompute = s.choice("recompute", kRecomputeNames, Recompute::None);
    l.flashAttention = s.boolean("flash_attention", true);
    l.rankOrder = s.choice("rank_order", kRankOrderNames, RankOrder::TpCpDpPp);
    l.stageLayers.clear();
    if (const json* sl = s.find("stage_layers", false)) {
        if (!sl->is_array()) {
            s.problem("layout.stage_layers", "must be an array of layer counts, one per pipeline stage");
        } else {
            long long sum = 0;
            for (size_t i = 0; i < sl->size(); ++i) {
                if (auto v = s.integerValue((*sl)[i], "layout.stage_layers[" + std::to_string(i) + "]", 1, 100'000)) {
                    l.stageLayers.push_back(int(*v));
                    sum += *v;
                }
            }
            if (l.stageLayers.size() == sl->size()) {
                if (int(sl->size()) != l.pp)
                    s.problem("layout.stage_layers", "lists " + std::to_string(sl->size()) + " stages but layout.pp is " + std::to_string(l.pp));
                else if (sum != model.layers)
                    s.problem("layout.stage_layers", "sums to " + std::to_string(sum) + " layers but model.layers is " + std::to_string(model.layers));
            }
        }
    }
    if (s.present() && l.pp > model.layers && l.stageLayers.empty())
        s.problem("layout.pp", "is " + std::to_string(l.pp) + " but the model has only " + std::to_string(model.layers) + " layers; every stage needs at least one");
    s.rejectUnknownKeys();
}

void readReliability(const json& doc, ReliabilitySpec& r, std::vector<PlanProblem>& problems)
{
    Section s(doc, "reliability", problems, false);
    const auto seconds = s.number("checkpoint_write_seconds", false, 0, 1e7, true);
    const auto bandwidth = s.number("checkpoint_write_gb_per_s_per_gpu", false, 0, 1e5, true);
    r.checkpointWriteSeconds.reset();
    r.checkpointWriteBytesPerSecondPerGpu.reset();
    if (seconds && bandwidth)
        s.problem("reliability.checkpoint_write_gb_per_s_per_gpu", "give either checkpoint_write_seconds or checkpoint_write_gb_per_s_per_gpu, not both");
    else if (bandwidth)
        r.checkpointWriteBytesPerSecondPerGpu = *bandwidth * units::GB;
    else
        r.checkpointWriteSeconds = seconds.value_or(60.0);
    r.restartSeconds = s.numberOr("restart_seconds", 600.0, 0, 1e7, false);
    r.otherOverheadFraction = s.numberOr("other_overhead_fraction", 0.0, 0, 10, false);
    s.rejectUnknownKeys();
}


// The "framework" object: a profile by name and individual switches, each optional.
void readFramework(const json& doc, FrameworkSpec& f, std::vector<PlanProblem>& problems)
{
    Section s(doc, "framework", problems, false);
    f = FrameworkSpec{};
    f.profile = s.text("profile");
    if (!f.profile.empty() && !findFrameworkProfile(f.profile)) {
        std::string allowed;
        for (auto name : frameworkProfileNames())
            allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name) + "\"";
        s.problem("framework.profile", "must be one of " + allowed + ", got \"" + f.profile + "\"");
    }
    const auto flag = [&](const char* key, std::optional<bool>& out) {
        if (s.find(key, false))
            out = s.boolean(key, false);
    };
    flag("tp_comm_overlap", f.tpCommOverlap);
    flag("overlap_grad_reduce", f.overlapGradReduce);
    flag("overlap_param_gather", f.overlapParamGather);
    flag("fused_kernels", f.fusedKernels);
    flag("cuda_graphs", f.cudaGraphs);
    flag("dropout", f.dropout);
    flag("fp32_gradients", f.fp32Gradients);
    if (const json* v = s.find("flash_attention", false); v && v->is_number_integer())
        s.problem("framework.flash_attention", "must be a string, one of \"none\", \"2\", \"3\", got " + describeJson(*v));
    else if (v)
        f.flashAttention = s.choice("flash_attention", kFlashAttentionVersionNames, FlashAttentionVersion::V2);
    if (s.find("optimizer", false))
        f.optimizer = s.choice("optimizer", kOptimizerImplementationNames, OptimizerImplementation::Fused);
    s.rejectUnknownKeys();
}

}  // namespace

Plan planFromJson(const json& doc)
{
    std::vector<PlanProblem> problems;
    if (!doc.is_object())
        throw PlanError({{"", "a plan must be a JSON object, got " + describeJson(doc)}});

    Section top(doc, "", problems);
    const std::string format = top.text("format");
    if (!top.find("format", true)) {
        // reported by find()
    } else if (format != kPlanFormat) {
        throw PlanError({{"format", "must be \"" + std::string(kPlanFormat) + "\", got \"" + format + "\" (not a TrainPlan plan file)"}});
    }
    if (auto version = top.integer("version", true, 1, 1'000'000)) {
        if (*version > kPlanVersion)
            throw PlanError({{"version", "is " + std::to_string(*version) + ", newer than this TrainPlan reads (" + std::to_string(kPlanVersion) +
                                             "); open it with a newer TrainPlan"}});
    }

    Plan plan;
    plan.name = top.text("name");
    readModel(doc, plan.model, problems);
    readCluster(doc, plan.cluster, problems);
    readTraining(doc, plan.training, plan.model.sequenceLength, problems);
    readLayout(doc, plan.layout, plan.cluster, plan.model, problems);
    readReliability(doc, plan.reliability, problems);
    readFramework(doc, plan.framework, problems);
    top.find("model", false);
    top.find("cluster", false);
    top.find("training", false);
    top.find("layout", false);
    top.find("reliability", false);
    top.find("framework", false);
    top.find("notes", false);
    top.rejectUnknownKeys();
    if (!problems.empty())
        throw PlanError(std::move(problems));
    return plan;
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

Plan planFromText(const std::string& text)
{
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        // nlohmann reports "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
        std::string what = e.what();
        const auto at = what.find("parse error");
        throw PlanError({{"", "not valid JSON: " + (at == std::string::npos ? what : what.substr(at))}});
    }
    return planFromJson(doc);
}

Plan loadPlanFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw PlanError({{"", "cannot open " + path}});
    std::ostringstream ss;
    ss << in.rdbuf();
    constexpr size_t kMaxPlanBytes = 16 * 1024 * 1024;
    if (ss.str().size() > kMaxPlanBytes)
        throw PlanError({{"", path + " is larger than 16 MiB; not a plan file"}});
    return planFromText(ss.str());
}

}  // namespace trainplan
