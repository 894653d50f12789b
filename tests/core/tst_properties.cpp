// Properties of analyse() over many random valid plans (a seeded PRNG, so every run checks the
// same plans and a failure names the case to rerun): no NaN, inf or negative figure, memory
// parts sum to their totals, predicted MFU and HFU at most 1, and `fits` says what the
// totals say.
#include <QScopeGuard>
#include <QtTest>

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"
#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/PlanFile.h"
#include "core/text/EstimateJson.h"

using nlohmann::json;

namespace {

constexpr uint64_t kSeed = 20261201;
// TRAINPLAN_PROPERTY_PLANS lowers the count where each analysis is slow (the sanitizer build).
int planCount()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("TRAINPLAN_PROPERTY_PLANS", &ok);
    return ok && n > 0 ? n : 100'000;
}

// Figures that are differences by design and may be negative (e.g. memory headroom).
bool mayBeNegative(const std::string& key)
{
    for (const char* k : {"headroom", "margin", "delta", "difference", "error", "slack"})
        if (key.find(k) != std::string::npos)
            return true;
    return false;
}

// First figure in `j` that is null, not finite, or negative where it must not be; "" if none.
std::string badFigure(const json& j, const std::string& path, const std::string& key)
{
    if (j.is_null())
        return path + " is null";
    if (j.is_number()) {
        const double x = j.get<double>();
        if (!std::isfinite(x))
            return path + " = " + std::to_string(x);
        if (x < 0 && !mayBeNegative(key))
            return path + " = " + std::to_string(x) + " (negative)";
        return {};
    }
    if (j.is_object()) {
        // A derivation step is named by its id ("memory.headroom_after_state"), not its key.
        const std::string id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : std::string();
        for (const auto& [k, v] : j.items())
            if (auto bad = badFigure(v, path + "." + k, k == "value" && !id.empty() ? id : k); !bad.empty())
                return bad;
    } else if (j.is_array()) {
        for (size_t i = 0; i < j.size(); ++i)
            if (auto bad = badFigure(j[i], path + "[" + std::to_string(i) + "]", key); !bad.empty())
                return bad;
    }
    return {};
}

bool sumsTo(const trainplan::MemoryBreakdown& m)
{
    const double sum = m.weights + m.gradients + m.optimizer + m.activations + m.shardingBuffers + m.buffers;
    return std::abs(sum - m.total) <= 1e-9 * std::max(1.0, m.total);
}

template <typename E, size_t N>
std::string pick(std::mt19937_64& rng, const trainplan::NameTable<E, N>& table)
{
    return std::string(table[std::uniform_int_distribution<size_t>(0, N - 1)(rng)].second);
}

int pickOf(std::mt19937_64& rng, std::initializer_list<int> values)
{
    return *(values.begin() + std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng));
}

// A random plan document within the reader's rules: 8 to 100,000 GPUs, every schedule, ZeRO
// stage, recompute mode and precision, dense models from tiny to 1T-class and models dominated
// by their embedding.
json randomPlan(std::mt19937_64& rng)
{
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    const int heads = pickOf(rng, {1, 4, 8, 16, 32, 64, 96, 128});
    const int headDim = pickOf(rng, {32, 64, 128, 256});
    const int hidden = heads * headDim;
    const int kvDivisor = pickOf(rng, {1, 2, 4, 8, 16});
    const int kvHeads = heads % kvDivisor == 0 ? heads / kvDivisor : heads;
    const bool embeddingHeavy = uniform(0, 9) == 0;
    const int layers = embeddingHeavy ? uniform(1, 4) : uniform(1, 128);
    const int seq = pickOf(rng, {128, 512, 1024, 2048, 4096, 8192, 32768});

    const int tp = std::min(pickOf(rng, {1, 2, 4, 8, 16}), heads);
    const int cp = pickOf(rng, {1, 1, 1, 2, 4});
    int pp = std::min(pickOf(rng, {1, 1, 2, 4, 8, 16, 32}), layers);
    const std::string schedule = pick(rng, trainplan::kScheduleNames);
    const bool interleaved = schedule == "interleaved" && pp > 1;
    const int v = interleaved ? pickOf(rng, {2, 3, 4}) : 1;
    if (interleaved && layers % (pp * v) != 0)
        pp = 1;
    const long long others = (long long)tp * pp * cp;
    const long long minDp = std::max(1LL, (8 + others - 1) / others);
    const long long maxDp = std::max(minDp, 100'000 / others);
    const long long dp = std::uniform_int_distribution<long long>(minDp, std::min(maxDp, minDp * 512))(rng);
    const int micro = pickOf(rng, {1, 1, 2, 4, 8});
    const int perReplica = (interleaved ? pp : 1) * uniform(1, interleaved ? 4 : 16);
    const long long batch = dp * micro * perReplica;
    const int gpusPerNode = pickOf(rng, {4, 8, 8, 16});

    json doc = {
        {"format", "trainplan.plan"},
        {"version", 1},
        {"model",
         {{"layers", layers},
          {"hidden_size", hidden},
          {"ffn_hidden_size", std::max(1, int(hidden * real(1.0, 4.0)))},
          {"ffn_kind", pick(rng, trainplan::kFfnKindNames)},
          {"attention_heads", heads},
          {"kv_heads", kvHeads},
          {"head_dim", headDim},
          {"vocab_size", embeddingHeavy ? uniform(100'000, 1'000'000) : uniform(1'000, 260'000)},
          {"tied_embeddings", uniform(0, 1) == 1},
          {"sequence_length", seq},
          {"norm", pick(rng, trainplan::kNormNames)},
          {"bias", uniform(0, 3) == 0},
          {"position_embedding", pick(rng, trainplan::kPositionNames)}}},
        {"cluster",
         {{"gpus", others * dp},
          {"gpus_per_node", gpusPerNode},
          {"memory_gb", real(16, 192)},
          {"peak_bf16_tflops", real(100, 2500)},
          {"intra_node_bandwidth_gb_per_s", real(25, 900)},
          {"inter_node_bandwidth_gb_per_s", real(3, 100)}}},
        {"training",
         {{"tokens", real(trainplan::units::giga, 2e13)},
          {"global_batch_sequences", batch},
          {"micro_batch_size", micro},
          {"mfu", real(0.05, 0.7)},
          {"precision", pick(rng, trainplan::kPrecisionNames)},
          {"buffer_gb", real(0, 4)},
          {"fragmentation_fraction", real(0, 0.2)}}},
        {"layout",
         {{"tp", tp},
          {"pp", pp},
          {"dp", dp},
          {"cp", cp},
          {"virtual_stages", v},
          {"schedule", interleaved ? schedule : (schedule == "interleaved" ? "1f1b" : schedule)},
          {"zero_stage", uniform(0, 3)},
          {"sequence_parallel", tp > 1 && uniform(0, 1) == 1},
          {"recompute", pick(rng, trainplan::kRecomputeNames)},
          {"flash_attention", uniform(0, 4) != 0},
          {"rank_order", pick(rng, trainplan::kRankOrderNames)}}},
        {"reliability", {{"restart_seconds", real(0, trainplan::units::secondsPerHour)}, {"other_overhead_fraction", real(0, 0.2)}}},
    };
    if (uniform(0, 3) != 0)
        doc["cluster"][uniform(0, 1) ? "mtbf_hours_per_node" : "mtbf_hours_per_gpu"] = real(1, 100'000);
    if (uniform(0, 1))
        doc["reliability"]["checkpoint_write_seconds"] = real(1, 600);
    else
        doc["reliability"]["checkpoint_write_gb_per_s_per_gpu"] = real(0.1, 20);
    return doc;
}

}  // namespace

class TestProperties : public QObject {
    Q_OBJECT

private slots:
    void randomValidPlans();
};

void TestProperties::randomValidPlans()
{
    const int kPlans = planCount();
    std::mt19937_64 rng(kSeed);
    trainplan::Analyser analyser;
    trainplan::Analysis a;
    int analysed = 0, rejected = 0, fitting = 0, simulated = 0, jsonChecked = 0;
    double worstMfu = 0, worstHfu = 0;
    int i = 0;
    for (; analysed < kPlans && i < 2 * kPlans; ++i) {
        const json doc = randomPlan(rng);
        trainplan::Plan plan;
        try {
            plan = trainplan::planFromJson(doc);
        } catch (const trainplan::PlanError&) {
            ++rejected;
            continue;
        }
        analyser.analyse(plan, a);
        ++analysed;
        // On failure the plan is in the message and in a file, to rerun with trainplan-cli.
        const QByteArray where =
            "plan " + QByteArray::number(i) + " (written to tst_properties-failure.json): " + QByteArray::fromStdString(doc.dump());
        const auto keep = qScopeGuard([&] {
            if (QTest::currentTestFailed()) {
                QFile f("tst_properties-failure.json");
                if (f.open(QIODevice::WriteOnly))
                    f.write(QByteArray::fromStdString(doc.dump(2)));
            }
        });
        const auto& e = a.estimate;
        QVERIFY2(sumsTo(e.perGpu), where);
        for (const auto& st : e.stages) {
            QVERIFY2(sumsTo(st.memory), where);
            QVERIFY2(st.fits == (st.memory.total <= e.capacityBytes), where);
        }
        QVERIFY2(e.fits == (e.perGpu.total <= e.capacityBytes), where);
        bool allStagesFit = true;
        for (const auto& st : e.stages)
            allStagesFit = allStagesFit && st.fits;
        QVERIFY2(e.fits == allStagesFit, where);
        QVERIFY2(
            a.memoryRange.lowBytes > 0 && a.memoryRange.lowBytes <= e.perGpu.total && e.perGpu.total <= a.memoryRange.highBytes, where);
        // Utilisation counts only work the step performs (model FLOPs without embedding
        // lookups; recompute as repeated): neither MFU nor HFU can pass 1.
        QVERIFY2(std::isfinite(a.predicted.mfu) && a.predicted.mfu > 0 && a.predicted.mfu <= 1.0,
                 where + " MFU " + QByteArray::number(a.predicted.mfu));
        QVERIFY2(std::isfinite(a.predicted.hfu) && a.predicted.hfu <= 1.0, where + " HFU " + QByteArray::number(a.predicted.hfu));
        QVERIFY2(a.predicted.tflopsPerGpu <= plan.cluster.peakFlopsPerGpu / trainplan::units::TFLOPS * (1 + 1e-12), where);
        QVERIFY2(a.predicted.mfu <= a.predicted.hfu * (1 + 1e-12), where);
        worstMfu = std::max(worstMfu, a.predicted.mfu);
        worstHfu = std::max(worstHfu, a.predicted.hfu);
        fitting += e.fits;
        simulated += a.predicted.simulated;
        // Every figure the JSON carries, for one plan in a hundred (the JSON costs more than the analysis).
        if (i % 100 == 0) {
            const std::string bad = badFigure(trainplan::estimateToJson(a), "estimate", "");
            QVERIFY2(bad.empty(), where + " " + QByteArray::fromStdString(bad));
            ++jsonChecked;
        }
    }
    qInfo("%d random plans: %d analysed (%d fit, %d simulated), %d rejected by the reader, %d checked figure by figure; highest MFU %.3f, "
          "HFU %.3f",
        i, analysed, fitting, simulated, rejected, jsonChecked, worstMfu, worstHfu);
    QCOMPARE(analysed, kPlans);
}

QTEST_GUILESS_MAIN(TestProperties)
#include "tst_properties.moc"
