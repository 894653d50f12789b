// The math view's sources: every step names where its formula comes from; a worked example's
// own figure appears only when the plan is that example, in the note, marked for comparison.
#include <QtTest>

#include "TestSupport.h"
#include "plan/Presets.h"
#include "text/Derivation.h"

using namespace testsupport;
using namespace trainplan;

namespace {

bool contains(const std::string& text, const char* fragment) { return text.find(fragment) != std::string::npos; }

}  // namespace

class TestDerivation : public QObject {
    Q_OBJECT

private slots:
    void sourcesNeverCiteAWorkedExample_data();
    void sourcesNeverCiteAWorkedExample();
    void comparisonsOnlyForThatExample();
    void noInternalDocumentNames();
    void givenValuesAreNotRepeated();
};

void TestDerivation::sourcesNeverCiteAWorkedExample_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::newRow("example A") << "70b-2048-h100.json" << "";
    QTest::newRow("example B") << "70b-512-gpu.json" << "";
    QTest::newRow("B with MFU 0.4") << "70b-512-gpu.json" << "training.mfu=0.4";
    QTest::newRow("A on PP 8") << "70b-2048-h100.json" << "layout.pp=8 layout.dp=32";
    QTest::newRow("A without failures") << "70b-2048-h100.json" << "cluster.mtbf_hours_per_node=null";
}

void TestDerivation::sourcesNeverCiteAWorkedExample()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const Plan plan = planWith(example.toStdString(), toStd(splitOverrides(overrides)));
    for (const auto& section : derive(plan, estimate(plan))) {
        for (const auto& step : section.steps) {
            QVERIFY2(!step.source.empty(), step.id.c_str());
            for (const char* banned : {"worked example", "seed", "Seed", "example"})
                QVERIFY2(!contains(step.source, banned), qPrintable(QString("%1: %2").arg(step.id.c_str(), step.source.c_str())));
        }
    }
}

void TestDerivation::comparisonsOnlyForThatExample()
{
    const Plan a = planWith("70b-2048-h100.json");
    const auto sectionsA = derive(a, estimate(a));
    const auto* sixNd = findStep(sectionsA, "time.model_6nd_seconds");
    QVERIFY(sixNd);
    QVERIFY2(contains(sixNd->note, "for comparison, worked example A") && contains(sixNd->note, "8.4 days"), sixNd->note.c_str());

    // The 512-GPU plan is worked example B: no example A figure anywhere, B's own where it has one.
    const Plan b = planWith("70b-512-gpu.json");
    const auto sectionsB = derive(b, estimate(b));
    for (const auto& section : sectionsB)
        for (const auto& step : section.steps)
            QVERIFY2(!contains(step.note, "worked example A"), step.id.c_str());
    QVERIFY(!contains(findStep(sectionsB, "time.model_6nd_seconds")->note, "8.4"));
    QVERIFY(contains(findStep(sectionsB, "time.days")->note, "for comparison, worked example B: ≈ 6.6 days"));

    // Changed in any input, a plan is no longer the example and shows no comparisons at all.
    for (const Plan& changed : {planWith("70b-512-gpu.json", {"training.mfu=0.4"}), planWith("70b-2048-h100.json", {"training.tokens=1e12"})}) {
        QCOMPARE(workedExampleOf(changed), WorkedExample::None);
        for (const auto& section : derive(changed, estimate(changed)))
            for (const auto& step : section.steps)
                QVERIFY2(!contains(step.note, "worked example"), step.id.c_str());
    }
    // The name alone does not matter.
    Plan renamed = b;
    renamed.name = "my copy";
    QCOMPARE(workedExampleOf(renamed), WorkedExample::B);
}

void TestDerivation::noInternalDocumentNames()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const std::string text = derivationToText(derive(plan, estimate(plan)));
    for (const char* banned : {"seed 0", "interfaces.md", "design.md"})
        QVERIFY2(!contains(text, banned), banned);
}

// A given value ("60 s", shown as "60.0 s") has nothing to substitute: views skip that line
// rather than print "given = 60 s = 60.0 s"; a real substitution is always shown.
void TestDerivation::givenValuesAreNotRepeated()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const auto sections = derive(plan, estimate(plan));
    const DerivationStep* stall = findStep(sections, "reliability.checkpoint_write_seconds");
    QVERIFY(stall);
    QCOMPARE(QString::fromStdString(stall->formula), QString("given"));
    QVERIFY(!substitutionAddsToResult(*stall));
    int shown = 0, skipped = 0;
    for (const auto& section : sections)
        for (const auto& step : section.steps) {
            const bool adds = substitutionAddsToResult(step);
            (adds ? shown : skipped) += 1;
            // Any arithmetic in the substitution is shown.
            for (const char* op : {" × ", " / ", " + ", " = ", " − "})
                if (contains(step.substituted, op))
                    QVERIFY2(adds, step.id.c_str());
        }
    QVERIFY(shown > 3 * skipped);  // skipping is the exception
    const DerivationStep* flops = findStep(sections, "flops.model_6nd");
    QVERIFY(flops && substitutionAddsToResult(*flops));
}

QTEST_GUILESS_MAIN(TestDerivation)
#include "tst_derivation.moc"
