// The layout search panel , offscreen: the search runs off the UI thread and fills
// the table with layouts that all fit, cancel stops it, "Apply" changes the document's layout
// as one undo step, the table sorts by step time, the Pareto points are a subset of the
// layouts and none dominates another, selection follows between table and scatter plot, and
// results go stale (not recomputed) when the plan changes.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "../PixelCount.h"
#include "core/base/Units.h"
#include "core/planfile/PlanFile.h"
#include "core/presets/Presets.h"
#include "core/search/LayoutSearch.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/search/SearchPanel.h"
#include "ui/search/SearchResultsModel.h"
#include "ui/search/SearchScatter.h"

namespace {

constexpr int kTimeoutMs = 30000;

bool runSearch(SearchPanel& panel)
{
    QSignalSpy finished(&panel, &SearchPanel::searchFinished);
    panel.startSearch();
    return finished.wait(kTimeoutMs) || finished.count() == 1;
}

// Llama 3.1 405B on 16,384 H200s (issue 22): the fastest layouts put TP across nodes.
trainplan::Plan llama405On16kH200()
{
    trainplan::Plan p = trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json");
    p.model = trainplan::matchModelPreset("llama 3.1 405").preset->model;
    trainplan::applyAccelerator(*trainplan::matchAcceleratorPreset("H200").preset, p.cluster);
    p.cluster.gpus = 16384;
    p.training.tokens = 15.6e12;
    p.training.globalBatchSequences = 2048;
    return p;
}

void chooseRedFlags(SearchPanel& panel, trainplan::RedFlagOrder order)
{
    QComboBox* filter = panel.redFlagFilter();
    filter->setCurrentIndex(filter->findData(int(order)));
}

void showPanel(SearchPanel& panel)
{
    panel.resize(1200, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
}

}  // namespace

class TestSearchPanel : public QObject {
    Q_OBJECT

private slots:
    void searchRunsInTheBackgroundAndFillsTheTable();
    void cancelStopsTheSearch();
    void applyChangesTheLayoutAndOneUndoRestoresIt();
    void sortingByStepTimeOrdersRows();
    void paretoPointsAreASubsetAndUndominated();
    void selectionFollowsBetweenTableAndPlot();
    void resultsGoStaleWhenThePlanChanges();
    void destroyingDuringASearchIsSafe();
    void plotDrawsTheFrontAndHoverNamesTheLayout();
    void repeatedSearchesLeakNothing();
    void redFlagFilterOrdersAndHidesFlaggedLayouts();
    void costColumnShowsWhenThePlanHasAPrice();
    void screenshot();
};

void TestSearchPanel::searchRunsInTheBackgroundAndFillsTheTable()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    QSignalSpy started(&panel, &SearchPanel::searchStarted);
    QSignalSpy finished(&panel, &SearchPanel::searchFinished);
    panel.startSearch();
    // startSearch returned at once: the search is running elsewhere and nothing is shown yet.
    QCOMPARE(started.count(), 1);
    QVERIFY(panel.isRunning());
    QCOMPARE(panel.resultsModel()->rowCount(), 0);
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!panel.isRunning());

    const auto& r = panel.result();
    QVERIFY(!r.cancelled);
    QVERIFY(r.evaluated > 1000);
    QVERIFY(r.fitting > 0);
    QVERIFY(r.fitting <= r.evaluated);
    QVERIFY(panel.resultsModel()->rowCount() >= 50);  // top 50 plus the front
    QCOMPARE(panel.resultsModel()->rowCount(), int(r.rows.size()));
    const double capacity = doc.estimate().capacityBytes;
    for (const auto& row : r.rows) {
        QVERIFY2(row.memoryBytes <= capacity, "a kept layout does not fit");
        QVERIFY(row.stepSeconds > 0);
        QCOMPARE(row.layout.tp * row.layout.pp * row.layout.dp * row.layout.cp, doc.plan().cluster.gpus);
    }
    QCOMPARE(panel.scatter()->allPoints().size(), int(r.rows.size()));
    // The counts and the time are shown.
    const QString status = panel.statusText();
    QVERIFY2(status.contains("evaluated") && status.contains(" fit") && status.contains(" s "), qPrintable(status));
    qInfo("search of the default plan: %lld layouts evaluated, %lld fit, %.3f s (%.0f layouts/s)", r.evaluated, r.fitting, r.seconds,
          r.evaluated / r.seconds);
}

void TestSearchPanel::cancelStopsTheSearch()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    // A wide batch range makes the search several times longer than the fixed-batch one.
    trainplan::SearchOptions o = panel.options();
    o.minGlobalBatch = 64;
    o.maxGlobalBatch = 16384;
    panel.setOptions(o);
    QCOMPARE(panel.options().minGlobalBatch, 64LL);
    QSignalSpy finished(&panel, &SearchPanel::searchFinished);
    panel.startSearch();
    panel.cancelSearch();
    QElapsedTimer waited;
    waited.start();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(panel.result().cancelled);
    // Stopped at once, and showing its partial result quickly (the plot once took seconds to
    // switch its axis from step seconds to days).
    QVERIFY2(waited.elapsed() < 1000, qPrintable(QString::number(waited.elapsed())));
    QVERIFY(panel.statusText().startsWith("Cancelled"));
    QVERIFY(!panel.isRunning());
    // A new search can start after a cancel.
    QVERIFY(panel.findChild<QPushButton*>("searchButton")->isEnabled());
    panel.setOptions({});
    QVERIFY(runSearch(panel));
    QVERIFY(!panel.result().cancelled);
}

void TestSearchPanel::applyChangesTheLayoutAndOneUndoRestoresIt()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    QVERIFY(runSearch(panel));
    const trainplan::Plan before = doc.plan();
    const auto current = trainplan::searchLayoutOf(before);
    int pick = -1;
    for (int i = 0; i < panel.resultsModel()->rowCount(); ++i)
        if (!(panel.resultsModel()->row(i).layout == current) && panel.resultsModel()->row(i).layout.tp != before.layout.tp) {
            pick = i;
            break;
        }
    QVERIFY(pick >= 0);
    const auto want = panel.resultsModel()->row(pick).layout;
    QVERIFY(!panel.applySelected());  // nothing selected
    panel.selectRow(pick);
    QCOMPARE(panel.selectedRow(), pick);
    const int undoBefore = doc.undoStack()->count();
    QSignalSpy changed(&doc, &PlanDocument::planChanged);
    QVERIFY(panel.applySelected());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc.undoStack()->count(), undoBefore + 1);
    QVERIFY(trainplan::searchLayoutOf(doc.plan()) == want);
    QCOMPARE(doc.plan().layout.tp, want.tp);
    QCOMPARE(doc.plan().layout.pp, want.pp);
    QCOMPARE(doc.plan().layout.dp, want.dp);
    QVERIFY(doc.estimate().fits);
    // Applying a result keeps the results valid and marks the new current row.
    QVERIFY(!panel.isStale());
    QCOMPARE(panel.resultsModel()->currentRow(), pick);
    doc.undoStack()->undo();
    QVERIFY(doc.plan() == before);
    QVERIFY(!panel.isStale());
}

void TestSearchPanel::sortingByStepTimeOrdersRows()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    QVERIFY(runSearch(panel));
    auto* table = panel.table();
    auto* proxy = panel.sortedModel();
    QVERIFY(proxy->rowCount() > 10);
    // Default: the search's rank order.
    for (int i = 0; i < proxy->rowCount(); ++i)
        QCOMPARE(proxy->mapToSource(proxy->index(i, 0)).row(), i);
    table->sortByColumn(SearchResultsModel::StepSeconds, Qt::AscendingOrder);
    std::vector<double> steps;
    for (int i = 0; i < proxy->rowCount(); ++i)
        steps.push_back(panel.resultsModel()->row(proxy->mapToSource(proxy->index(i, 0)).row()).stepSeconds);
    QVERIFY(std::is_sorted(steps.begin(), steps.end()));
    QVERIFY(steps.front() < steps.back());  // not trivially sorted
    table->sortByColumn(SearchResultsModel::StepSeconds, Qt::DescendingOrder);
    QCOMPARE(panel.resultsModel()->row(proxy->mapToSource(proxy->index(0, 0)).row()).stepSeconds, steps.back());
    // Numbers sort as numbers, not text ("16" after "8").
    table->sortByColumn(SearchResultsModel::columnOf(trainplan::ParallelDim::Dp), Qt::AscendingOrder);
    int last = 0;
    for (int i = 0; i < proxy->rowCount(); ++i) {
        const int dp = panel.resultsModel()->row(proxy->mapToSource(proxy->index(i, 0)).row()).layout.dp;
        QVERIFY(dp >= last);
        last = dp;
    }
    // Selection survives sorting: the selected row is the same layout.
    panel.selectRow(3);
    table->sortByColumn(SearchResultsModel::MemoryGb, Qt::AscendingOrder);
    QCOMPARE(panel.selectedRow(), 3);
}

void TestSearchPanel::paretoPointsAreASubsetAndUndominated()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    QVERIFY(runSearch(panel));
    const QList<QPointF> all = panel.scatter()->allPoints();
    const QList<QPointF> front = panel.scatter()->paretoPoints();
    QVERIFY(!front.isEmpty());
    QVERIFY(front.size() < all.size());
    QCOMPARE(front.size(), panel.result().paretoCount);
    for (const QPointF& p : front)
        QVERIFY2(all.contains(p), "a Pareto point is not one of the layouts");
    // No kept layout is both smaller and faster than a Pareto point (the x axis is step time
    // here: the batch is fixed).
    QVERIFY(!panel.scatter()->xIsDays());
    for (const QPointF& p : front)
        for (const QPointF& q : all)
            QVERIFY(!(q.x() <= p.x() && q.y() <= p.y() && (q.x() < p.x() || q.y() < p.y())));
    // Exactly one simplest layout, and the current plan is marked.
    int simplest = 0;
    for (const auto& row : panel.result().rows)
        simplest += row.simplest;
    QCOMPARE(simplest, 1);
    QVERIFY(panel.scatter()->currentPoint().has_value());
    QVERIFY(std::abs(panel.scatter()->currentPoint()->y() - doc.estimate().perGpu.total / trainplan::units::GB) < 1e-9);
}

void TestSearchPanel::selectionFollowsBetweenTableAndPlot()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    showPanel(panel);
    QVERIFY(runSearch(panel));
    auto* scatter = panel.scatter();
    // Table to plot.
    panel.selectRow(2);
    QCOMPARE(scatter->selectedPoints().size(), 1);
    QCOMPARE(scatter->selectedPoints().first(), scatter->pointOf(panel.result().rows[2]));
    // Plot to table: click a drawn point at least 14 pixels from every other one.
    QCoreApplication::processEvents();
    const QList<QPointF> all = scatter->allPoints();
    const QRect plot = scatter->plotArea().toRect();
    int target = -1;
    for (int i = 0; i < all.size() && target < 0; ++i) {
        const QPointF p = scatter->positionOf(all[i]);
        if (i == 2 || !plot.contains(p.toPoint()))
            continue;
        bool isolated = true;
        for (int j = 0; j < all.size() && isolated; ++j)
            if (j != i && QLineF(p, scatter->positionOf(all[j])).length() < 14)
                isolated = false;
        if (isolated)
            target = i;
    }
    QVERIFY(target >= 0);
    const QPoint at = scatter->positionOf(all[target]).toPoint();
    QVERIFY(scatter->rect().contains(at));
    QTest::mouseClick(scatter, Qt::LeftButton, {}, at);
    QTRY_COMPARE(panel.selectedRow(), target);
    QCOMPARE(scatter->selectedPoints().first(), all[target]);
    // Far from every point, a click selects nothing new.
    QCOMPARE(scatter->rowAt(QPoint(-100, -100), 10), -1);
}

void TestSearchPanel::resultsGoStaleWhenThePlanChanges()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    QVERIFY(runSearch(panel));
    const auto rows = panel.result().rows.size();
    QSignalSpy started(&panel, &SearchPanel::searchStarted);
    panel.selectRow(0);
    QVERIFY(panel.findChild<QPushButton*>("applyButton")->isEnabled());  // Apply
    doc.edit("More tokens", [](trainplan::Plan& p) { p.training.tokens *= 2; });
    QVERIFY(panel.isStale());
    QVERIFY(panel.resultsModel()->isStale());
    QVERIFY(!panel.isRunning());
    QCOMPARE(started.count(), 0);  // not silently recomputed
    QCOMPARE(panel.result().rows.size(), rows);
    QVERIFY(panel.statusText().contains("stale"));
    QVERIFY(!panel.applySelected());  // stale rows cannot be applied
    QVERIFY(panel.scatter()->title().contains("earlier plan"));
    // Back to the searched plan: fresh again, with the counts back.
    doc.undoStack()->undo();
    QVERIFY(!panel.isStale());
    QVERIFY(panel.statusText().contains("evaluated"));
    // Inputs the search does not read (failures, the assumed MFU) leave the results fresh.
    doc.edit("Shorter MTBF", [](trainplan::Plan& p) { *p.cluster.mtbfSeconds *= 0.5; });
    doc.edit("Assumed MFU", [](trainplan::Plan& p) { p.training.mfu = 0.3; });
    QVERIFY(!panel.isStale());
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    doc.edit("More tokens", [](trainplan::Plan& p) { p.training.tokens *= 2; });
    QVERIFY(panel.isStale());
    // A new search clears the flag.
    doc.undoStack()->redo();
    QVERIFY(panel.isStale());
    QVERIFY(runSearch(panel));
    QVERIFY(!panel.isStale());
    QVERIFY(!panel.resultsModel()->isStale());
    QVERIFY(!panel.scatter()->title().contains("earlier plan"));
}

void TestSearchPanel::destroyingDuringASearchIsSafe()
{
    PlanDocument doc;
    auto* panel = new SearchPanel(&doc);
    trainplan::SearchOptions o;
    o.minGlobalBatch = 64;
    o.maxGlobalBatch = 16384;
    panel->setOptions(o);
    panel->startSearch();
    QVERIFY(panel->isRunning());
    delete panel;  // cancels and joins; queued calls to it are dropped
    QCoreApplication::processEvents();
    QTest::qWait(20);
}

void TestSearchPanel::plotDrawsTheFrontAndHoverNamesTheLayout()
{
    PlanDocument doc;
    SearchPanel panel(&doc);
    showPanel(panel);
    QVERIFY(runSearch(panel));
    auto* scatter = panel.scatter();
    const QImage image = scatter->grab().toImage();
    // The Pareto markers are amber, the crowd light blue, the simplest layout green: each is drawn.
    QVERIFY(countPixels(image, theme::optimizer()) > 20);
    QVERIFY(countPixels(image, theme::memoryBound()) > 20);
    QVERIFY(countPixels(image, theme::ok()) > 10);
    // Every drawn point lies inside the plot; the ones beyond the range are counted instead.
    const QRectF plot = scatter->plotArea();
    int inside = 0;
    for (const QPointF& v : scatter->allPoints())
        inside += plot.adjusted(-1, -1, 1, 1).contains(scatter->positionOf(v));
    QCOMPARE(inside + scatter->offChartCount(), int(panel.result().rows.size()));
    // Hovering a layout names its parallel sizes; hovering empty space shows nothing.
    const auto& rows = panel.result().rows;
    int hovered = -1;
    for (size_t i = 0; i < rows.size() && hovered < 0; ++i) {
        const QPointF p = scatter->positionOf(scatter->pointOf(rows[i]));
        if (plot.contains(p) && scatter->rowAt(p.toPoint(), 8) == int(i))
            hovered = int(i);
    }
    QVERIFY(hovered >= 0);
    const auto& l = rows[size_t(hovered)].layout;
    const QString tip =
        scatter->chartPainter().toolTipAt(scatter->positionOf(scatter->pointOf(rows[size_t(hovered)])), QRectF(scatter->rect()));
    QVERIFY2(tip.contains(QStringLiteral("TP %1 · PP %2 · DP %3 · CP %4").arg(l.tp).arg(l.pp).arg(l.dp).arg(l.cp)), qPrintable(tip));
    QVERIFY(scatter->chartPainter().toolTipAt(QPointF(-50, -50), QRectF(scatter->rect())).isEmpty());
    // BF16 GEMMs: the MFU needs no basis. FP8 GEMMs: MFU is still against the BF16 peak (it can
    // pass 100 %), and the tooltip says so as the MFU card does.
    QVERIFY2(!tip.contains(QStringLiteral("BF16")), qPrintable(tip));
    doc.edit("FP8", [](trainplan::Plan& p) { p.training.matmulPrecision = trainplan::MatmulPrecision::Fp8; });
    QVERIFY(runSearch(panel));
    const auto& fp8Rows = panel.result().rows;
    QVERIFY(!fp8Rows.empty());
    const QString fp8Tip =
        scatter->chartPainter().toolTipAt(scatter->positionOf(scatter->pointOf(fp8Rows[0])), QRectF(scatter->rect()));
    QVERIFY2(fp8Tip.contains(QRegularExpression(QStringLiteral("MFU [0-9.]+ % vs BF16 peak"))), qPrintable(fp8Tip));
}

void TestSearchPanel::repeatedSearchesLeakNothing()
{
    // Searching replaced the old chart's series and axes each time, and a run left about 200 KB
    // unreachable under LeakSanitizer. Several searches in one panel, panels created and
    // destroyed: under ASan the leak check runs here, not only at exit.
    PlanDocument doc;
    for (int i = 0; i < 2; ++i) {
        SearchPanel panel(&doc);
        showPanel(panel);
        for (int j = 0; j < 2; ++j) {
            QVERIFY(runSearch(panel));
            panel.selectRow(j);
            QCoreApplication::processEvents();
            QVERIFY(!panel.scatter()->grab().isNull());
        }
    }
    QCoreApplication::processEvents();
#if defined(__SANITIZE_ADDRESS__)
    QCOMPARE(__lsan_do_recoverable_leak_check(), 0);
#else
    QSKIP("The leak check needs a build with -fsanitize=address (preset asan)");
#endif
}

void TestSearchPanel::redFlagFilterOrdersAndHidesFlaggedLayouts()
{
    PlanDocument doc;
    doc.applyPlan(llama405On16kH200(), "Llama 3.1 405B on 16,384 H200s");
    SearchPanel panel(&doc);
    const auto flaggedRows = [&] {
        std::vector<bool> flagged;
        for (size_t i = 0; i < panel.result().topRows(); ++i)
            flagged.push_back(panel.result().rows[i].redFlags != 0);
        return flagged;
    };

    // The window's default is "last": no flagged row before an unflagged one, and the first fits.
    QCOMPARE(trainplan::RedFlagOrder(panel.redFlagFilter()->currentData().toInt()), trainplan::RedFlagOrder::Last);
    QVERIFY(runSearch(panel));
    const std::vector<bool> last = flaggedRows();
    QVERIFY(!last.empty());
    QVERIFY(std::is_sorted(last.begin(), last.end()));
    QVERIFY(!last.front());
    QCOMPARE(panel.result().rows[0].memoryFit, trainplan::MemoryFit::Fits);
    const QString firstFlags = panel.resultsModel()->data(panel.resultsModel()->index(0, SearchResultsModel::Flags), Qt::DisplayRole).toString();
    QVERIFY(!firstFlags.contains("TP_SPANS_NODES"));

    // "mixed": by the objective alone, so the faster TP-across-nodes layouts lead, marked.
    chooseRedFlags(panel, trainplan::RedFlagOrder::Mixed);
    QVERIFY(runSearch(panel));
    QVERIFY(panel.result().rows[0].redFlags & trainplan::warningBit(trainplan::WarningCode::TpSpansNodes));
    QVERIFY(panel.resultsModel()->data(panel.resultsModel()->index(0, SearchResultsModel::Flags), Qt::DisplayRole).toString().contains("TP_SPANS_NODES"));

    // "hide": none is listed, and the status line says how many were left out.
    chooseRedFlags(panel, trainplan::RedFlagOrder::Hide);
    QVERIFY(runSearch(panel));
    const std::vector<bool> hidden = flaggedRows();
    QVERIFY(!hidden.empty());
    QVERIFY(std::none_of(hidden.begin(), hidden.end(), [](bool f) { return f; }));
    QVERIFY(panel.result().hiddenRedFlags > 0);
    QVERIFY(panel.statusText().contains("red flags hidden"));
}

void TestSearchPanel::screenshot()
{
    // Set TRAINPLAN_SCREENSHOT_DIR to keep the picture for a look.
    PlanDocument doc;
    SearchPanel panel(&doc);
    panel.resize(900, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QString dir = qEnvironmentVariable("TRAINPLAN_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(panel.grab().save(dir + "/searchpanel-empty.png"));
    QVERIFY(runSearch(panel));
    panel.selectRow(0);
    QCoreApplication::processEvents();
    const QImage image = panel.grab().toImage();
    QCOMPARE(image.size(), QSize(900, 500));
    if (!dir.isEmpty()) {
        QVERIFY(image.save(dir + "/searchpanel.png"));
        {
            // Llama 3.1 405B on 96 H100s: every layout that keeps the margin may not fit.
            PlanDocument tight;
            trainplan::Plan p = trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-512-gpu.json");
            p.model = trainplan::matchModelPreset("llama 3.1 405").preset->model;
            p.cluster.gpus = 96;
            tight.applyPlan(p, "405B on 96 GPUs");
            SearchPanel mayNotFit(&tight);
            mayNotFit.resize(1100, 500);
            mayNotFit.show();
            QVERIFY(QTest::qWaitForWindowExposed(&mayNotFit));
            QVERIFY(runSearch(mayNotFit));
            QCOMPARE(mayNotFit.result().rows[0].memoryFit, trainplan::MemoryFit::MayNotFit);
            mayNotFit.selectRow(0);
            QCoreApplication::processEvents();
            QVERIFY(mayNotFit.grab().save(dir + "/searchpanel-maynotfit.png"));
        }
        doc.edit("More tokens", [](trainplan::Plan& p) { p.training.tokens *= 2; });
        QCoreApplication::processEvents();
        QVERIFY(panel.grab().save(dir + "/searchpanel-stale.png"));
        doc.undoStack()->undo();
        trainplan::SearchOptions o = panel.options();
        o.objective = trainplan::SearchObjective::Cost;
        o.costPerGpuHour = 2.5;
        o.minGlobalBatch = 512;
        o.maxGlobalBatch = 4096;
        panel.setOptions(o);
        QVERIFY(runSearch(panel));
        QCoreApplication::processEvents();
        QVERIFY(panel.grab().save(dir + "/searchpanel-range-cost.png"));
        panel.resize(1400, 800);
        QCoreApplication::processEvents();
        QVERIFY(panel.grab().save(dir + "/searchpanel-large.png"));
    }
}

// A time-ranked search shows the cost column when the plan names a price (each row's GPU-hours at
// that price), and hides it when there is none to multiply by.
void TestSearchPanel::costColumnShowsWhenThePlanHasAPrice()
{
    PlanDocument doc;
    trainplan::Plan plan = doc.plan();
    plan.cost.pricePerGpuHourUsd.reset();
    doc.resetTo(plan);
    SearchPanel panel(&doc);
    QVERIFY(runSearch(panel));
    QVERIFY(panel.table()->isColumnHidden(SearchResultsModel::Cost));
    plan.cost.pricePerGpuHourUsd = 2.5;
    doc.resetTo(plan);
    QVERIFY(runSearch(panel));
    QVERIFY(!panel.table()->isColumnHidden(SearchResultsModel::Cost));
    QCOMPARE(panel.result().objective, trainplan::SearchObjective::Time);
    for (const auto& row : panel.result().rows)
        QVERIFY(row.cost > 0);
}

QTEST_MAIN(TestSearchPanel)
#include "tst_searchpanel.moc"
