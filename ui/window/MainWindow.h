// The planner window: inputs docked on the left, a dashboard of live panes in the centre, files,
// undo/redo and settings around them.
#pragma once

#include <QMainWindow>
#include <QMessageBox>

#include <functional>
#include <vector>

#include "ui/document/RecoveryStore.h"

class ComparisonWindow;
class SizingWindow;
class DashboardPane;
class FocusRing;
enum class ReportView;
class DerivationView;
class InputPanel;
class RealityCheckView;
class SearchPanel;
class TornadoChart;
class TimelineView;
class LayoutDiagramView;
class MemoryChart;
class PlanDocument;
class QScrollArea;
class QSplitter;
class SummaryPanel;
class TimeBreakdownChart;
class WarningsPanel;
class Autosaver;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    PlanDocument* document() const { return doc_; }
    InputPanel* inputPanel() const { return inputs_; }
    SummaryPanel* summary() const { return summary_; }
    MemoryChart* memoryChart() const { return memory_; }
    TimeBreakdownChart* timeChart() const { return time_; }
    WarningsPanel* warnings() const { return warnings_; }
    DerivationView* derivation() const { return derivation_; }
    LayoutDiagramView* layoutDiagram() const { return layoutDiagram_; }
    QDockWidget* mathDock() const { return mathDock_; }
    TimelineView* timeline() const { return timeline_; }
    SearchPanel* searchPanel() const { return searchPanel_; }
    TornadoChart* tornado() const { return tornado_; }
    RealityCheckView* realityCheck() const { return realityCheck_; }
    const std::vector<DashboardPane*>& panes() const { return panes_; }
    QDockWidget* searchDock() const { return searchDock_; }
    QDockWidget* sensitivityDock() const { return tornadoDock_; }
    QDockWidget* realityDock() const { return realityDock_; }
    // The math, the search, sensitivity and the reality check: one tab group, docked (openDock()).
    std::vector<QDockWidget*> toolDocks() const { return {mathDock_, searchDock_, tornadoDock_, realityDock_}; }
    FocusRing* focusRing() const { return focusRing_; }

    // Opens a panel docked, without growing the window or squeezing the dashboard below the
    // width its cards need: beside the dashboard when the window has the room, as a tab when
    // another panel is already docked, else as a tab in front of the inputs (floating only
    // where the user floated the panels). Raises it if open. The keyboard focus goes to its
    // first field, ringed when the keyboard asked for the panel.
    void openDock(QDockWidget* dock, bool fromKeyboard = true);
    // Opens the math at a headline card's steps, highlighted (clicking a card does this).
    void showMathFor(const QString& cardId, bool fromKeyboard = false);
    // The narrowest the dashboard can be with every card's text whole.
    int legibleDashboardWidth() const;
    // The width a panel docked beside the dashboard would have, the inputs and the dashboard
    // keeping theirs.
    int roomBesideDashboard() const;
    QDockWidget* inputsDock() const { return inputsDock_; }

    // Plans side by side (File → Compare…): made on first use, then kept, with its plans, while
    // the window lives.
    ComparisonWindow* comparisonWindow();
    void showComparison();
    // The sizing window (File → Size the Cluster…), made on first use.
    SizingWindow* sizingWindow();
    void showSizing();

    bool openFile(const QString& path);
    // A Hugging Face config.json (or its folder) or Megatron-LM arguments, read onto the current
    // plan's cluster, budget and layout as a new, unsaved plan (core/interop/ImportFile.h).
    bool importFile(const QString& path);
    bool saveTo(const QString& path);
    // The plan's cluster as a named profile file, and a profile's cluster onto this plan as one
    // undoable edit (core/planfile/ClusterProfile.h); false with a message naming the problem.
    bool saveClusterProfile(const QString& path, QString* error);
    bool applyClusterProfile(const QString& path, QString* error);
    bool exportPdf(const QString& path, bool letter);
    bool exportSlides(const QString& directory);
    bool exportMarkdown(const QString& path);
    bool exportView(ReportView view, const QString& path);
    void startPresentation();

    // Asked before unsaved work would be dropped; tests replace it to answer without a dialog.
    std::function<QMessageBox::StandardButton()> askToSaveChanges;
    // Asked for a file name on Save As; tests replace it.
    std::function<QString()> askSavePath;
    // Asked whether to restore a crashed session's unsaved plan; tests replace it.
    std::function<bool(const RecoveryStore::Pending&)> askToRestore;
    // The screen area a panel may use (the window's screen, less task bars).
    std::function<QRect()> availableScreenGeometry;

    // On start: offers the newest unsaved plan of a TrainPlan that did not exit cleanly. True when
    // one was restored.
    bool offerRecovery();
    Autosaver* autosaver() const { return autosaver_; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    QWidget* buildDashboard();
    void updateTitle();
    void updateStatus();
    bool maybeSave();
    bool save();
    bool saveAs();
    void newFromModel(const QString& modelName);
    void open();
    void importDialog();
    void calibrateDialog();
    void showError(const QString& title, const QString& text);
    void restoreSettings();
    void saveSettings();
    void setEnlargedPane(DashboardPane* pane, bool enlarged);
    QAction* dockAction(QDockWidget* dock, const QString& text, const QKeySequence& key);
    void tabWithInputs(QDockWidget* dock);
    bool runExport(const struct ExportRequest& request);

    PlanDocument* doc_;
    Autosaver* autosaver_;
    InputPanel* inputs_;
    QScrollArea* inputScroll_;
    SummaryPanel* summary_;
    MemoryChart* memory_;
    TimeBreakdownChart* time_;
    WarningsPanel* warnings_;
    DerivationView* derivation_;
    LayoutDiagramView* layoutDiagram_;
    class QDockWidget* mathDock_;
    TimelineView* timeline_;
    SearchPanel* searchPanel_;
    TornadoChart* tornado_;
    RealityCheckView* realityCheck_;
    QDockWidget* searchDock_;
    QDockWidget* tornadoDock_;
    QDockWidget* realityDock_;
    QDockWidget* inputsDock_;
    QByteArray defaultDockState_;  // the panels as a first start places them (View → Reset panel layout)
    QSplitter* rows_;
    QSplitter* topRow_;
    QSplitter* bottomRow_;
    std::vector<DashboardPane*> panes_;  // in reading order: red flags, then the rows left to right
    DashboardPane* redFlagsPane_;
    class QVBoxLayout* dashboardColumn_;
    FocusRing* focusRing_;
    class QLabel* autosaveWarning_;
    ComparisonWindow* comparison_ = nullptr;
    SizingWindow* sizing_ = nullptr;  // shown while writing the recovery copy fails
};
