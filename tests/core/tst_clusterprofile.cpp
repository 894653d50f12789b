// Cluster profiles (core/planfile/ClusterProfile.h): a calibrated cluster saved once predicts
// another model with the fitted figures and its record; the envelope and every cluster field are
// checked by path; a changed GPU count lets DP follow; the CLI's --cluster and export
// --cluster-profile say the same.
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/base/PlanError.h"
#include "core/calibration/Calibration.h"
#include "core/calibration/TrainingLog.h"
#include "core/planfile/ClusterProfile.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

using namespace trainplan;

namespace {

std::string example(const char* name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + name;
}

std::vector<std::string> problemPaths(const std::function<void()>& f)
{
    try {
        f();
    } catch (const PlanError& e) {
        std::vector<std::string> paths;
        for (const auto& p : e.problems())
            paths.push_back(p.path);
        return paths;
    }
    return {};
}

bool contains(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

class TestClusterProfile : public QObject {
    Q_OBJECT

private slots:
    void calibratedClusterCarriesToAnotherModel();
    void gpuCountChangeLetsDpFollow();
    void badProfilesNameTheirField();
};

void TestClusterProfile::calibratedClusterCarriesToAnotherModel()
{
    const Plan dense = defaultPlan();
    const CalibrationResult fit = calibrate(dense, {enteredMeasuredRun(1.2 * analyse(dense).predicted.stepSeconds, std::nullopt), "Megatron-LM core_r0.12", "2026-11-30"});
    QVERIFY(fit.plan.cluster.calibration);
    const nlohmann::json document = clusterProfileToJson(fit.plan, "our H100s");
    QCOMPARE(document["format"].get<std::string>(), std::string(kClusterProfileFormat));
    const ClusterProfile profile = clusterProfileFromText(document.dump());
    QCOMPARE(profile.name, std::string("our H100s"));

    // Mixtral on the same cluster: the cluster (figures and record) is the calibrated one, the model its own.
    const Plan moe = loadPlanFile(example("mixtral-8x22b-256-h100.json"));
    const Plan applied = withClusterProfile(moe, profile);
    QCOMPARE(planToJson(applied)["cluster"], planToJson(fit.plan)["cluster"]);
    QCOMPARE(planToJson(applied)["model"], planToJson(moe)["model"]);
    QVERIFY(applied.cluster.calibration && applied.cluster.calibration->framework == "Megatron-LM core_r0.12");
    QVERIFY(applied.cluster.calibrated("cluster.efficiency.matmul_fraction"));
    // The fitted GEMM efficiency is what moves the MoE plan's prediction: slower, as measured.
    Plan uncalibrated = withClusterProfile(moe, clusterProfileFromJson(clusterProfileToJson(dense, "shipped")));
    QVERIFY(analyse(applied).predicted.stepSeconds > analyse(uncalibrated).predicted.stepSeconds);
}

void TestClusterProfile::gpuCountChangeLetsDpFollow()
{
    const Plan big = defaultPlan();  // 2,048 GPUs, DP 64 fixed
    const Plan small = loadPlanFile(example("mixtral-8x22b-256-h100.json"));  // 256 GPUs
    const Plan moved = withClusterProfile(big, clusterProfileFromJson(clusterProfileToJson(small, "small")));
    QCOMPARE(moved.cluster.gpus, small.cluster.gpus);
    QVERIFY(moved.layout.dpAuto);
    QCOMPARE(moved.layout.tp * moved.layout.pp * moved.layout.cp * moved.layout.dp, moved.cluster.gpus);
    // The same GPU count keeps a fixed DP as it was.
    const Plan same = withClusterProfile(big, clusterProfileFromJson(clusterProfileToJson(big, "same")));
    QCOMPARE(same.layout.dpAuto, big.layout.dpAuto);
    QCOMPARE(same.layout.dp, big.layout.dp);
}

void TestClusterProfile::badProfilesNameTheirField()
{
    nlohmann::json good = clusterProfileToJson(defaultPlan(), "ok");
    nlohmann::json plan = planToJson(defaultPlan());
    QVERIFY(contains(problemPaths([&] { clusterProfileFromJson(plan); }), "format"));  // a plan is no profile
    nlohmann::json bad = good;
    bad["cluster"]["gpus"] = -8;
    QVERIFY(contains(problemPaths([&] { clusterProfileFromJson(bad); }), "cluster.gpus"));
    bad = good;
    bad["cluster"]["peak_bf16_tflops"] = "fast";
    QVERIFY(contains(problemPaths([&] { clusterProfileFromJson(bad); }), "cluster.peak_bf16_tflops"));
    bad = good;
    bad.erase("name");
    bad["version"] = 7;
    const auto paths = problemPaths([&] { clusterProfileFromJson(bad); });
    QVERIFY(contains(paths, "name") && contains(paths, "version"));
    bad = good;
    bad["cluster"] = 3;
    QVERIFY(contains(problemPaths([&] { clusterProfileFromJson(bad); }), "cluster"));
    bool threw = false;
    try {
        clusterProfileFromText("{\"format\": ");
    } catch (const PlanError&) {
        threw = true;
    }
    QVERIFY(threw);
}

QTEST_GUILESS_MAIN(TestClusterProfile)
#include "tst_clusterprofile.moc"
