// The views colour and flag figures by the core's verdicts (analysis/Thresholds.h), never by a
// threshold of their own: plans set just across each threshold must turn the window's cards and
// the report's risks exactly where the core's verdict turns.
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/analysis/Thresholds.h"
#include "core/planfile/WorkedExamples.h"
#include "render/report/ReportContext.h"
#include "render/report/ReviewHtml.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/summary/SummaryCard.h"
#include "ui/summary/SummaryPanel.h"

using namespace trainplan;

namespace {

// The memory margin at which the default plan's fullest GPU is exactly tight, nudged by `nudge`.
double tightMargin(double nudge)
{
    const Estimate e = analyse(defaultPlan()).estimate;
    return e.headroomBytes / (kTightMemoryMargins * e.capacityBytes) * (1 + nudge);
}

}  // namespace

class TestThresholds : public QObject {
    Q_OBJECT

private slots:
    void memoryCardTurnsWhereTheCoreSaysTight_data();
    void memoryCardTurnsWhereTheCoreSaysTight();
    void memoryCardIsRedWhenAStageDoesNotFit();
    void bubbleCardTurnsAtTheLargeBubble();
    void reportNamesTheTightStagesTheWindowColours();
};

void TestThresholds::memoryCardTurnsWhereTheCoreSaysTight_data()
{
    // The margin moves the threshold: a view with a fixed "90 % full" of its own stays green
    // here (the default plan's GPU is 30 % full) and fails the tight row.
    QTest::addColumn<double>("margin");
    QTest::addColumn<int>("verdict");
    QTest::newRow("just below tight") << tightMargin(-1e-6) << int(Verdict::Fine);
    QTest::newRow("just tight") << tightMargin(1e-6) << int(Verdict::Warning);
}

void TestThresholds::memoryCardTurnsWhereTheCoreSaysTight()
{
    QFETCH(double, margin);
    QFETCH(int, verdict);
    PlanDocument doc;
    SummaryPanel summary(&doc);
    doc.edit("margin", [&](Plan& p) { p.training.memoryMarginFraction = margin; });
    QCOMPARE(int(memoryVerdict(doc.estimate())), verdict);
    const SummaryCard* card = summary.card("memory");
    QCOMPARE(card->fillColor(), theme::verdict(Verdict(verdict), theme::ok()));
    QCOMPARE(card->accent(), QColor());  // the value itself turns only when it does not fit
}

void TestThresholds::memoryCardIsRedWhenAStageDoesNotFit()
{
    PlanDocument doc;
    SummaryPanel summary(&doc);
    doc.edit("small GPUs", [](Plan& p) { p.cluster.memoryBytesPerGpu = 20e9; });
    QCOMPARE(memoryVerdict(doc.estimate()), Verdict::Error);
    QCOMPARE(summary.card("memory")->fillColor(), theme::severity(Severity::Error));
    QCOMPARE(summary.card("memory")->accent(), theme::severity(Severity::Error));
}

void TestThresholds::bubbleCardTurnsAtTheLargeBubble()
{
    // p = 4 stages over 64 replicas: m = 12 micro-batches give the 1F1B bubble 3/15, exactly the
    // LARGE_BUBBLE threshold (not above it); m = 11 give 3/14, above.
    PlanDocument doc;
    SummaryPanel summary(&doc);
    Verdict seen[2];
    int i = 0;
    for (const long long batch : {768LL, 704LL}) {
        doc.edit("batch", [&](Plan& p) { p.training.globalBatchSequences = batch; });
        const double bubble = doc.estimate().pipeline.bubbleFraction;
        seen[i] = bubbleVerdict(bubble);
        QCOMPARE(summary.card("bubble")->accent(), theme::verdict(seen[i], QColor()));
        ++i;
    }
    QCOMPARE(seen[0], Verdict::Fine);
    QCOMPARE(seen[1], Verdict::Warning);
}

void TestThresholds::reportNamesTheTightStagesTheWindowColours()
{
    // The report's risks list a tight stage exactly when the window's memory card is amber.
    for (const double nudge : {-1e-6, 1e-6}) {
        PlanDocument doc;
        SummaryPanel summary(&doc);
        doc.edit("margin", [&](Plan& p) { p.training.memoryMarginFraction = tightMargin(nudge); });
        const ReportContext report(doc.analysis());
        const bool amber = summary.card("memory")->fillColor() == theme::severity(Severity::Warning);
        const bool listed = reviewhtml::risks(report).contains("near capacity");
        QCOMPARE(listed, amber);
        QCOMPARE(amber, nudge > 0);
    }
}

QTEST_MAIN(TestThresholds)
#include "tst_thresholds.moc"
