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

// The memory margin at which the default plan's range's high end is exactly what is usable
// (capacity less the margin), nudged by `nudge`: above it the plan may not fit.
double mayNotFitMargin(double nudge)
{
    const Analysis a = analyse(defaultPlan());
    return (1.0 - a.memoryRange.highBytes / a.estimate.capacityBytes) * (1 + nudge);
}

}  // namespace

class TestThresholds : public QObject {
    Q_OBJECT

private slots:
    void memoryCardTurnsWhereTheRangeMayNotFit_data();
    void memoryCardTurnsWhereTheRangeMayNotFit();
    void memoryCardIsRedWhenAStageDoesNotFit();
    void bubbleCardTurnsAtTheLargeBubble();
    void reportAndChartWordTheVerdictTheWindowColours();
};

void TestThresholds::memoryCardTurnsWhereTheRangeMayNotFit_data()
{
    // The margin moves the line the range is read against: a view with a threshold of its own
    // (a fixed "90 % full", or the point figure against capacity) fails one of the rows.
    QTest::addColumn<double>("margin");
    QTest::addColumn<int>("verdict");
    QTest::newRow("high end just within usable") << mayNotFitMargin(-1e-6) << int(Verdict::Fine);
    QTest::newRow("high end just above usable") << mayNotFitMargin(1e-6) << int(Verdict::Warning);
}

void TestThresholds::memoryCardTurnsWhereTheRangeMayNotFit()
{
    QFETCH(double, margin);
    QFETCH(int, verdict);
    PlanDocument doc;
    SummaryPanel summary(&doc);
    doc.edit("margin", [&](Plan& p) { p.training.memoryMarginFraction = margin; });
    QCOMPARE(int(memoryVerdict(doc.analysis().memoryRange)), verdict);
    const SummaryCard* card = summary.card("memory");
    QCOMPARE(card->fillColor(), theme::verdict(Verdict(verdict), theme::ok()));
    // The value turns amber with the fill when it may not fit, and the detail names the verdict.
    QCOMPARE(card->accent(), Verdict(verdict) == Verdict::Fine ? QColor() : theme::verdict(Verdict(verdict), theme::ok()));
    QVERIFY(card->detailText().contains(QString::fromLatin1(memoryFitName(doc.analysis().memoryRange.fit))));
}

void TestThresholds::memoryCardIsRedWhenAStageDoesNotFit()
{
    PlanDocument doc;
    SummaryPanel summary(&doc);
    doc.edit("small GPUs", [](Plan& p) { p.cluster.memoryBytesPerGpu = 20e9; });
    QCOMPARE(memoryVerdict(doc.analysis().memoryRange), Verdict::Error);
    QCOMPARE(summary.card("memory")->fillColor(), theme::severity(Severity::Error));
    QCOMPARE(summary.card("memory")->accent(), theme::severity(Severity::Error));
    // The figure is drawn in that colour, and in the card's own once the stage fits again
    // (counted above the fill bar, which is red too).
    SummaryCard* card = summary.card("memory");
    card->resize(260, card->sizeHint().height());
    const auto pixelsOf = [&](const QColor& colour) {
        const QImage shot = card->grab().toImage();
        int n = 0;
        for (int y = 0; y < shot.height() - 8; ++y)
            for (int x = 0; x < shot.width(); ++x)
                n += shot.pixelColor(x, y) == colour;
        return n;
    };
    QCOMPARE(card->valueColor(), theme::severity(Severity::Error));
    QVERIFY(pixelsOf(theme::severity(Severity::Error)) > 20);
    doc.edit("large GPUs", [](Plan& p) { p.cluster.memoryBytesPerGpu = 80e9; });
    QCOMPARE(memoryVerdict(doc.analysis().memoryRange), Verdict::Fine);
    QCOMPARE(card->valueColor(), card->palette().color(QPalette::Text));
    QCOMPARE(pixelsOf(theme::severity(Severity::Error)), 0);
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

void TestThresholds::reportAndChartWordTheVerdictTheWindowColours()
{
    // The report's risks list MEMORY_MAY_NOT_FIT, the slides' memory table and the memory chart
    // name "may not fit", exactly when the window's memory card is amber.
    for (const double nudge : {-1e-6, 1e-6}) {
        PlanDocument doc;
        SummaryPanel summary(&doc);
        doc.edit("margin", [&](Plan& p) { p.training.memoryMarginFraction = mayNotFitMargin(nudge); });
        const ReportContext report(doc.analysis());
        const bool amber = summary.card("memory")->fillColor() == theme::severity(Severity::Warning);
        QCOMPARE(reviewhtml::risks(report).contains("MEMORY_MAY_NOT_FIT"), amber);
        QCOMPARE(reviewhtml::memoryTable(report).contains("may not fit"), amber);
        QCOMPARE(report.memoryChart().warningTitle().startsWith("May not fit"), amber);
        QCOMPARE(amber, nudge > 0);
    }
}

QTEST_MAIN(TestThresholds)
#include "tst_thresholds.moc"
