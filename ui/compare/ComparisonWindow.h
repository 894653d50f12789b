// Plans side by side: kept copies of the plan being edited and plan files, against the plan in
// the main window as it is now (live: every edit there shows here at once). Every headline figure
// with its difference from plan A, what changed, memory per stage and the step's components
// overlaid, and each plan's diagram and schedule; exported as the comparison PDF. Reads one
// ComparisonSet (render/compare) that the CLI's `compare --pdf` reads too.
#pragma once

#include <QMainWindow>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

#include "core/analysis/Analysis.h"
#include "render/compare/ComparisonSet.h"
#include "render/compare/MemoryComparisonPainter.h"
#include "render/compare/StepComparisonPainter.h"

class PlanDocument;
class PaintedView;
class QLabel;
class QMenu;
class QVBoxLayout;

class ComparisonWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit ComparisonWindow(PlanDocument* live, QWidget* parent = nullptr);
    ~ComparisonWindow() override;

    // Keeps a copy of the main window's plan as it is now: the plan a variant is measured against
    // (worked example A's TP 8 x PP 4, before the slider moves to FSDP).
    void keepCurrentPlan();
    // Adds a saved plan; false with a message naming the field when it does not read.
    bool addPlanFile(const QString& path, QString* error);
    // Drops the kept plan or file at `index` (0 is plan A).
    void removePlan(int index);
    // Whether the main window's plan is compared (last, "current plan (live)").
    void setIncludesCurrentPlan(bool include);
    bool includesCurrentPlan() const { return includeLive_; }

    int keptCount() const { return int(kept_.size()); }
    // The comparison on screen, brought up to date first.
    const ComparisonSet& comparisonSet();
    bool exportPdf(const QString& path, QString* error);

    // Asked for files to add and for the PDF's path; tests replace them to answer without a dialog.
    std::function<QStringList()> askPlanFiles;
    std::function<QString()> askPdfPath;

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // A kept copy or a plan file is a document of its own: PlanDocument is where a plan is read
    // and analysed, so a compared plan reads exactly as the window's Open reads it.
    struct Kept {
        std::unique_ptr<PlanDocument> document;
        QString source;
    };
    void scheduleRebuild();
    void rebuild();
    void rebuildPlanRows();
    void fitStepChartHeight();
    void updateRemoveMenu();
    void addFiles();
    void exportPdfDialog();

    PlanDocument* live_;
    bool includeLive_ = true;
    std::vector<Kept> kept_;
    std::unique_ptr<ComparisonSet> set_;
    bool stale_ = true;
    bool sized_ = false;  // the splitter's first split, made when the window first shows
    QTimer rebuildTimer_;
    MemoryComparisonPainter memoryPainter_;
    StepComparisonPainter stepPainter_;
    QLabel* hint_;
    QLabel* tables_;
    PaintedView* memory_;
    PaintedView* steps_;
    QVBoxLayout* planRows_;
    int planRowCount_ = -1;
    QMenu* removeMenu_;
};
