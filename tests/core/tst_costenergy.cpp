// Cost, energy and carbon (estimate/CostEnergyModel.h): the arithmetic on worked example A, on
// both time bases; absent inputs leave their figures out rather than guessing; the plan's GPU
// power replaces the preset's; bad values name their field.
#include <QtTest>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/plan/PlanIO.h"
#include "core/text/EstimateJson.h"

using namespace testsupport;

namespace {

trainplan::Plan exampleWith(const std::vector<std::string>& overrides)
{
    return planWith("70b-2048-h100.json", overrides);
}

}  // namespace

class TestCostEnergy : public QObject {
    Q_OBJECT

private slots:
    void workedExampleA();
    void absentInputsLeaveFiguresOut();
    void planPowerReplacesThePreset();
    void badValuesNameTheirField();
};

void TestCostEnergy::workedExampleA()
{
    const auto a = trainplan::analyse(exampleWith({"cost.price_per_gpu_hour_usd=2.5", "cost.grid_kg_co2e_per_kwh=0.4"}));
    const auto& c = a.cost;
    // GPU-hours x price, on the assumed-MFU basis and on the predicted one.
    QCOMPARE(*c.usd, a.estimate.time.gpuHours * 2.5);
    QCOMPARE(*a.costAtPredicted.usd, a.atPredictedMfu.time.gpuHours * 2.5);
    QVERIFY(*a.costAtPredicted.usd != *c.usd);
    // The failure allowance's hours: the padded wall time on every GPU.
    QCOMPARE(c.gpuHoursWithFailures, 2048 * a.estimate.reliability.paddedSeconds / 3600);
    QCOMPARE(*c.usdWithFailures, c.gpuHoursWithFailures * 2.5);
    // H100 SXM's 700 W board power (preset), the DGX H100's 0.82 server overhead, PUE 1.2.
    QCOMPARE(c.gpuPowerWatts, 700.0);
    QVERIFY(c.gpuPowerFromPreset);
    QCOMPARE(c.facilityWattsPerGpu, 700 * 1.82 * 1.2);
    QCOMPARE(*c.energyJoules, 2048 * 700 * 1.82 * 1.2 * a.estimate.time.totalSeconds);
    QCOMPARE(*c.carbonKg, *c.energyJoules / 3.6e6 * 0.4);
    // The JSON carries them under the names scripts use (../shared/docs/interfaces.md).
    const auto j = trainplan::estimateToJson(a);
    QCOMPARE(j["cost"]["usd"].get<double>(), *c.usd);
    QCOMPARE(j["cost"]["usd_with_failures"].get<double>(), *c.usdWithFailures);
    QCOMPARE(j["energy"]["mwh"].get<double>(), *c.energyJoules / 3.6e9);
    QCOMPARE(j["carbon"]["tonnes_co2e"].get<double>(), *c.carbonKg / 1000);
    QCOMPARE(j["cost"]["predicted"]["usd"].get<double>(), *a.costAtPredicted.usd);
    QCOMPARE(j["cost"]["basis"].get<std::string>(), std::string("assumed_mfu"));
    // About 675 MWh on the assumed basis: 441,610 GPU-hours at 1,529 W each.
    QVERIFY(std::abs(j["energy"]["mwh"].get<double>() - 675.1) < 0.5);
}

void TestCostEnergy::absentInputsLeaveFiguresOut()
{
    const auto a = trainplan::analyse(exampleWith({}));
    QVERIFY(!a.cost.usd && !a.cost.usdWithFailures && !a.cost.carbonKg);
    QVERIFY(a.cost.energyJoules);  // the preset's power is enough for energy
    const auto j = trainplan::estimateToJson(a);
    QVERIFY(!j["cost"].contains("usd"));  // left out, never null
    QVERIFY(!j["carbon"].contains("tonnes_co2e"));
    QVERIFY(j["energy"].contains("mwh"));
    // A part that is no preset, without a power: no energy either.
    const auto custom = trainplan::analyse(exampleWith({"cluster.accelerator=\"Custom part\"", "cluster.peak_bf16_tflops=1234"}));
    QVERIFY(!custom.cost.energyJoules);
    QCOMPARE(trainplan::estimateToJson(custom)["energy"]["gpu_power_source"].get<std::string>(), std::string("none"));
}

void TestCostEnergy::planPowerReplacesThePreset()
{
    const auto a = trainplan::analyse(exampleWith({"cost.gpu_power_watts=550", "cost.pue=1.1", "cost.server_overhead_fraction=0.5"}));
    QCOMPARE(a.cost.gpuPowerWatts, 550.0);
    QVERIFY(!a.cost.gpuPowerFromPreset);
    QCOMPARE(a.cost.facilityWattsPerGpu, 550 * 1.5 * 1.1);
    // The fields survive a save and a reopen.
    const auto plan = exampleWith({"cost.gpu_power_watts=550", "cost.price_per_gpu_hour_usd=3"});
    QCOMPARE(trainplan::planFromText(trainplan::planToText(plan)), plan);
}

void TestCostEnergy::badValuesNameTheirField()
{
    for (const auto& [assignment, path] : std::vector<std::pair<std::string, std::string>>{
             {"cost.price_per_gpu_hour_usd=-1", "cost.price_per_gpu_hour_usd"},
             {"cost.pue=0.5", "cost.pue"},
             {"cost.gpu_power_watts=0", "cost.gpu_power_watts"},
             {"cost.grid_kg_co2e_per_kwh=\"a lot\"", "cost.grid_kg_co2e_per_kwh"}}) {
        try {
            exampleWith({assignment});
            QFAIL(assignment.c_str());
        } catch (const trainplan::PlanError& e) {
            QCOMPARE(e.problems().front().path, path);
        }
    }
}

QTEST_APPLESS_MAIN(TestCostEnergy)
#include "tst_costenergy.moc"
