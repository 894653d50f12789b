// Comparing plans (text/PlanComparison.h): each figure is the one estimate --json gives for that
// plan, the differences are against the first plan, and "what changed" lists exactly the input
// fields that differ. Worked example A's suggested alternative, FSDP + TP 8 without a pipeline,
// against its TP 8 x PP 4.
#include <QtTest>

#include "TestSupport.h"
#include "core/plan/PlanIO.h"
#include "core/text/EstimateJson.h"
#include "core/text/PlanComparison.h"

using namespace testsupport;

namespace {

trainplan::Plan exampleWith(const std::vector<std::string>& overrides)
{
    return planWith("70b-2048-h100.json", overrides);
}

const trainplan::ComparedFigure& figure(const trainplan::PlanComparison& c, const std::string& key)
{
    for (const auto& f : c.figures)
        if (f.key == key)
            return f;
    qFatal("no figure %s", key.c_str());
}

}  // namespace

class TestComparison : public QObject {
    Q_OBJECT

private slots:
    void fsdpAgainstThePipeline();
    void identicalPlansDifferInNothing();
    void threePlansCompareToTheFirst();
};

void TestComparison::fsdpAgainstThePipeline()
{
    const auto a = trainplan::analyse(exampleWith({}));
    const auto b = trainplan::analyse(exampleWith({"layout.pp=1", "layout.zero_stage=3", "layout.dp=auto"}));
    const auto c = trainplan::comparePlans({&a, &b}, {"a.json", "b.json"});
    // Every figure is the estimate's own, by the same key.
    const auto ja = trainplan::estimateToJson(a), jb = trainplan::estimateToJson(b);
    for (const auto& f : c.figures) {
        const auto pointer = nlohmann::json::json_pointer("/" + QString::fromStdString(f.key).replace('.', '/').toStdString());
        QCOMPARE(f.values[0], ja.at(pointer));
        QCOMPARE(f.values[1], jb.at(pointer));
    }
    QCOMPARE(figure(c, "pipeline.bubble_fraction").values[1].get<double>(), 0.0);
    QVERIFY(figure(c, "memory.per_gpu_bytes.total").values[1].get<double>() < figure(c, "memory.per_gpu_bytes.total").values[0].get<double>());
    QCOMPARE(figure(c, "time.days").values[0], figure(c, "time.days").values[1]);  // same FLOPs at the same assumed MFU
    // What changed: exactly the three fields.
    std::vector<std::string> paths;
    for (const auto& f : c.changedFields)
        paths.push_back(f.path);
    QCOMPARE(paths, (std::vector<std::string>{"layout.dp", "layout.pp", "layout.zero_stage"}));
    const std::string text = trainplan::comparisonToText(c);
    QVERIFY(text.find("layout.pp                           4 → 1") != std::string::npos);
    QVERIFY(text.find("Step time, predicted") != std::string::npos && text.find("Wall time, assumed MFU") != std::string::npos);
    const auto json = trainplan::comparisonToJson(c);
    QCOMPARE(json["plans"].size(), size_t(2));
    const auto& step = json["figures"][6];
    QCOMPARE(step["key"].get<std::string>(), std::string("predicted.step_seconds"));
    QCOMPARE(step["against_first"][0]["difference"].get<double>(), step["values"][1].get<double>() - step["values"][0].get<double>());
}

void TestComparison::identicalPlansDifferInNothing()
{
    const auto a = trainplan::analyse(exampleWith({}));
    const auto c = trainplan::comparePlans({&a, &a}, {"a.json", "a.json"});
    QVERIFY(c.changedFields.empty());
    const std::string text = trainplan::comparisonToText(c);
    QVERIFY(text.find("nothing: the plans have the same inputs") != std::string::npos);
    QVERIFY(text.find("(+") == std::string::npos && text.find("(−") == std::string::npos);
}

void TestComparison::threePlansCompareToTheFirst()
{
    const auto a = trainplan::analyse(exampleWith({}));
    const auto b = trainplan::analyse(exampleWith({"training.mfu=0.5"}));
    const auto d = trainplan::analyse(exampleWith({"cluster.gpus=1024", "layout.dp=auto"}));
    const auto c = trainplan::comparePlans({&a, &b, &d}, {"a", "b", "c"});
    const auto& days = figure(c, "time.days");
    QCOMPARE(days.values.size(), size_t(3));
    QVERIFY(days.values[1].get<double>() < days.values[0].get<double>());  // a higher assumed MFU
    QVERIFY(days.values[2].get<double>() > days.values[0].get<double>());  // half the GPUs
    const auto json = trainplan::comparisonToJson(c);
    QCOMPARE(json["figures"][0]["against_first"].size(), size_t(2));
    std::vector<std::string> paths;
    for (const auto& f : c.changedFields)
        paths.push_back(f.path);
    QCOMPARE(paths, (std::vector<std::string>{"cluster.gpus", "layout.dp", "training.mfu"}));
}

QTEST_APPLESS_MAIN(TestComparison)
#include "tst_comparison.moc"
