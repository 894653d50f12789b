#include "ui/window/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QApplication>
#include <QRegularExpression>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QScrollArea>
#include <QScreen>
#include <QScrollBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "core/base/AtomicFile.h"
#include "core/base/BoundedFile.h"
#include "core/base/BoundedJson.h"
#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/interop/ImportFile.h"
#include "core/planfile/ClusterProfile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"
#include "core/search/LayoutAdjuster.h"
#include "render/report/Exporter.h"
#include "render/report/ReportContext.h"
#include "render/report/SlideExport.h"
#include "render/style/Theme.h"
#include "ui/calibration/CalibrationDialog.h"
#include "ui/charts/MemoryChart.h"
#include "ui/charts/TimeBreakdownChart.h"
#include "ui/charts/TornadoChart.h"
#include "ui/compare/ComparisonWindow.h"
#include "ui/derivation/DerivationView.h"
#include "ui/document/Autosaver.h"
#include "ui/document/PlanDocument.h"
#include "ui/document/RecentFiles.h"
#include "ui/inputs/InputPanel.h"
#include "ui/layoutdiagram/LayoutDiagramView.h"
#include "ui/realitycheck/RealityCheckView.h"
#include "ui/search/SearchPanel.h"
#include "ui/sizing/SizingWindow.h"
#include "ui/summary/SummaryPanel.h"
#include "ui/summary/WarningsPanel.h"
#include "ui/timeline/TimelineView.h"
#include "ui/window/DashboardPane.h"
#include "ui/window/FocusRing.h"
#include "ui/window/PresentationWindow.h"

namespace {

// The follower as settings keep it: its key ("dp", "gpus"); before, a number (DP, TP, PP, CP, GPUs).
trainplan::Follower followerFromSetting(const QVariant& value)
{
    bool isNumber = false;
    const int old = value.toInt(&isNumber);
    if (isNumber) {
        using trainplan::Follower;
        using trainplan::ParallelDim;
        const Follower before[] = {Follower::of(ParallelDim::Dp), Follower::of(ParallelDim::Tp), Follower::of(ParallelDim::Pp),
                                   Follower::of(ParallelDim::Cp), Follower::gpus()};
        return old >= 0 && old < 5 ? before[old] : Follower::of(ParallelDim::Dp);
    }
    return trainplan::followerFromKey(value.toString().toStdString());
}

// Gives the focus to the first field in a dock that takes it from the keyboard; that field.
QWidget* focusFirstField(QDockWidget* dock)
{
    for (QWidget* w = dock->widget()->nextInFocusChain(); w && dock->isAncestorOf(w); w = w->nextInFocusChain()) {
        if ((w->focusPolicy() & Qt::TabFocus) && w->isEnabled() && w->isVisibleTo(dock)) {
            w->setFocus(Qt::ShortcutFocusReason);
            return w;
        }
    }
    return nullptr;
}

// Below this a panel's tables and charts stop being readable; its scroll area takes over.
constexpr int kDockMinimumWidth = 360;
// As a tab in the inputs' place a panel takes their width, a little less than the above.
constexpr int kDockContentMinimumWidth = 280;
// Version 2: the inputs became a dock; a state saved before would lose them.
constexpr int kDockStateVersion = 2;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , doc_(new PlanDocument(this))
    , autosaver_(new Autosaver(doc_, RecoveryStore::defaultDirectory(), this))
{
    setWindowIcon(QIcon(":/icons/trainplan.svg"));
    setAcceptDrops(true);
    askToSaveChanges = [this] {
        return QMessageBox::warning(this, tr("Unsaved changes"),
            tr("“%1” has unsaved changes. Save them before continuing?").arg(doc_->displayName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };
    askToRestore = [this](const RecoveryStore::Pending& pending) {
        const QString from = pending.originalPath.isEmpty() ? tr("a new plan") : QFileInfo(pending.originalPath).fileName();
        return QMessageBox::question(this, tr("Restore unsaved work?"),
                                     tr("TrainPlan did not close properly last time. Unsaved changes to %1 (last written %2) can be "
                                        "restored. The file itself stays as it was until you save.")
                                         .arg(from, QLocale().toString(pending.savedAt.toLocalTime(), QLocale::ShortFormat)),
                                     QMessageBox::Yes | QMessageBox::Discard, QMessageBox::Yes)
            == QMessageBox::Yes;
    };
    availableScreenGeometry = [this] {
        const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
        return s ? s->availableGeometry() : QRect(0, 0, 1920, 1080);
    };
    askSavePath = [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        const QString suggested = doc_->filePath().isEmpty() ? dir + "/plan.json" : doc_->filePath();
        return QFileDialog::getSaveFileName(this, tr("Save plan"), suggested, tr("TrainPlan plans (*.json)"));
    };

    // A failing autosave is said, and stays said until a write works again.
    autosaveWarning_ = new QLabel;
    autosaveWarning_->setVisible(false);
    autosaveWarning_->setStyleSheet(QStringLiteral("color: %1").arg(theme::severity(trainplan::Severity::Warning).name()));
    statusBar()->addPermanentWidget(autosaveWarning_);
    connect(autosaver_, &Autosaver::statusChanged, this, [this](const QString& error) {
        autosaveWarning_->setVisible(!error.isEmpty());
        autosaveWarning_->setText(tr("Unsaved work is not being backed up"));
        autosaveWarning_->setToolTip(tr("Writing the recovery copy failed: %1").arg(error));
        if (!error.isEmpty())
            statusBar()->showMessage(tr("Autosave failed: %1").arg(error), 15000);
    });

    inputs_ = new InputPanel(doc_);
    inputScroll_ = new QScrollArea;
    inputScroll_->setWidget(inputs_);
    inputScroll_->setWidgetResizable(true);
    inputScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Wide enough for the panel plus a vertical scroll bar, so no field is ever clipped.
    inputScroll_->setMinimumWidth(inputs_->sizeHint().width() + inputScroll_->verticalScrollBar()->sizeHint().width() + 4);
    connect(inputs_, &InputPanel::scrollRequest, this, [this](QWidget* w) { inputScroll_->ensureWidgetVisible(w, 20, 40); });

    // The inputs are a dock on the left, the dashboard the central widget: a panel that has no
    // room beside the dashboard becomes a tab of the inputs' dock instead of covering a figure.
    inputsDock_ = new QDockWidget(tr("Plan inputs"), this);
    inputsDock_->setObjectName("inputsDock");
    inputsDock_->setWidget(inputScroll_);
    inputsDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    inputsDock_->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::LeftDockWidgetArea, inputsDock_);
    setCentralWidget(buildDashboard());
    setTabPosition(Qt::AllDockWidgetAreas, QTabWidget::North);  // tabs where the eye reads a title

    // The math and the analysis tools are docks, one tab group: opened when walking through a
    // plan, out of the way while exploring on a small screen. Each holds its content in a
    // scroll area, so a dock narrower than its content scrolls instead of forcing the window
    // wider (openDock() decides where a dock goes).
    searchPanel_ = new SearchPanel(doc_);
    tornado_ = new TornadoChart(doc_);
    realityCheck_ = new RealityCheckView;
    QDockWidget* previous = nullptr;
    auto addToolDock = [this, &previous](QDockWidget*& dock, const QString& title, const char* name, QWidget* content, bool scrolls) {
        dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        if (scrolls) {
            auto* scroll = new QScrollArea;
            scroll->setWidget(content);
            scroll->setWidgetResizable(true);
            scroll->setFrameShape(QFrame::NoFrame);
            dock->setWidget(scroll);
        } else {
            dock->setWidget(content);
        }
        dock->widget()->setMinimumSize(kDockContentMinimumWidth, 200);
        dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
        dock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
        addDockWidget(Qt::RightDockWidgetArea, dock);
        if (previous)
            tabifyDockWidget(previous, dock);
        previous = dock;
        dock->hide();
    };
    addToolDock(mathDock_, tr("Show the math"), "mathDock", derivation_, false);  // the list scrolls itself
    addToolDock(searchDock_, tr("Layout search"), "searchDock", searchPanel_, true);
    addToolDock(tornadoDock_, tr("Sensitivity"), "sensitivityDock", tornado_, true);
    addToolDock(realityDock_, tr("Reality check"), "realityDock", realityCheck_, true);
    setDockOptions(dockOptions() | QMainWindow::GroupedDragging);  // a tab group floats off as one
    // The tornado swings what the window shows: the assumed or the predicted step.
    const auto syncBasis = [this] {
        tornado_->setBasis(doc_->timeBasis() == PlanDocument::TimeBasis::Predicted ? trainplan::SensitivityBasis::Predicted
                                                                                    : trainplan::SensitivityBasis::Assumed);
    };
    connect(doc_, &PlanDocument::timeBasisChanged, this, syncBasis);
    syncBasis();

    focusRing_ = new FocusRing(this, qApp);
    buildMenus();
    connect(summary_, &SummaryPanel::cardActivated, this, &MainWindow::showMathFor);
    connect(doc_, &PlanDocument::fileStateChanged, this, &MainWindow::updateTitle);
    connect(doc_, &PlanDocument::planChanged, this, &MainWindow::updateTitle);  // the plan's name is in it
    connect(doc_, &PlanDocument::planChanged, this, &MainWindow::updateStatus);
    connect(warnings_, &WarningsPanel::fieldActivated, inputs_, &InputPanel::highlightField);
    updateTitle();
    updateStatus();
    resize(1280, 800);
    defaultDockState_ = saveState(kDockStateVersion);
    restoreSettings();
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::buildDashboard()
{
    auto* area = new QWidget;
    auto* column = new QVBoxLayout(area);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(6);
    summary_ = new SummaryPanel(doc_);
    column->addWidget(summary_);

    memory_ = new MemoryChart(doc_);
    time_ = new TimeBreakdownChart(doc_);
    warnings_ = new WarningsPanel(doc_);
    derivation_ = new DerivationView(doc_);
    // Two rows of resizable panes: every view visible at a glance, any one enlargeable.
    rows_ = new QSplitter(Qt::Vertical);
    topRow_ = new QSplitter(Qt::Horizontal);
    bottomRow_ = new QSplitter(Qt::Horizontal);
    rows_->addWidget(topRow_);
    rows_->addWidget(bottomRow_);
    rows_->setChildrenCollapsible(false);
    auto addPane = [&](QSplitter* row, const QString& title, QWidget* content, int stretch, ReportView view) {
        auto* pane = new DashboardPane(title, content, row ? DashboardPane::Header::Above : DashboardPane::Header::Beside);
        pane->setObjectName(title);
        pane->enableExport();
        connect(pane, &DashboardPane::exportRequested, this, [this, view, title] {
            const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
            const QString name = title.toLower().replace(' ', '-');
            const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(title), dir + "/" + name + ".png",
                                                              tr("PNG image (*.png);;SVG drawing (*.svg)"));
            if (!path.isEmpty())
                exportView(view, path);
        });
        if (row) {
            row->addWidget(pane);
            row->setStretchFactor(row->count() - 1, stretch);
        }
        panes_.push_back(pane);
        connect(pane, &DashboardPane::enlargeToggled, this, [this, pane](bool on) { setEnlargedPane(pane, on); });
    };
    layoutDiagram_ = new LayoutDiagramView(doc_);
    layoutDiagram_->setMinimumSize(300, 200);  // below its preferred size it draws blocks of nodes
    // Red flags: a band under the cards, as tall as its flags (one line when all is well), so
    // no column stands empty beside the charts.
    addPane(nullptr, tr("Red flags"), warnings_, 0, ReportView::RedFlags);
    redFlagsPane_ = panes_.back();
    column->addWidget(redFlagsPane_);
    addPane(topRow_, tr("Memory per GPU"), memory_, 2, ReportView::Memory);
    addPane(topRow_, tr("Ranks on nodes and GPUs"), layoutDiagram_, 3, ReportView::Layout);
    timeline_ = new TimelineView(doc_);
    timeline_->setMinimumSize(360, 200);
    addPane(bottomRow_, tr("Pipeline timeline"), timeline_, 3, ReportView::Timeline);
    addPane(bottomRow_, tr("Step time"), time_, 2, ReportView::StepTime);
    column->addWidget(rows_, 1);
    // The top row (memory, the diagram) has more to draw than the timeline's few lanes.
    rows_->setSizes({560, 440});
    dashboardColumn_ = column;
    return area;
}

void MainWindow::setEnlargedPane(DashboardPane* pane, bool enlarged)
{
    // Hide the other row too, so the enlarged pane takes the whole dashboard.
    for (QSplitter* row : {topRow_, bottomRow_})
        row->setVisible(!enlarged || row->indexOf(pane) >= 0);
    rows_->setVisible(!enlarged || pane != redFlagsPane_);
    for (auto* p : panes_) {
        p->setVisible(!enlarged || p == pane);
        if (p != pane && p->isEnlarged()) {
            const QSignalBlocker b(p);
            p->setEnlarged(false);
        }
    }
    summary_->setVisible(!enlarged);
    // The band takes the whole height while it is the enlarged pane.
    dashboardColumn_->setStretchFactor(redFlagsPane_, enlarged && pane == redFlagsPane_ ? 1 : 0);
}

QAction* MainWindow::dockAction(QDockWidget* dock, const QString& text, const QKeySequence& key)
{
    auto* action = new QAction(text, this);
    action->setObjectName(dock->objectName() + "Action");
    action->setCheckable(true);
    action->setShortcut(key);
    // Checked while the dock is open, however it was opened or closed.
    connect(dock->toggleViewAction(), &QAction::toggled, action, &QAction::setChecked);
    connect(action, &QAction::triggered, this, [this, dock, action] {
        // Open and in front with the focus inside: the key closes it. Otherwise it opens (or
        // comes to the front of its tab group) and takes the focus.
        const bool inFront = dock->isVisible() && !dock->visibleRegion().isEmpty();
        const bool focused = dock->isAncestorOf(QApplication::focusWidget());
        if (inFront && focused) {
            dock->close();
        } else {
            openDock(dock);
            action->setChecked(true);
        }
    });
    return action;
}

void MainWindow::openDock(QDockWidget* dock, bool fromKeyboard)
{
    if (!dock->isVisible()) {
        QDockWidget* docked = nullptr;
        QDockWidget* floating = nullptr;
        for (QDockWidget* other : toolDocks()) {
            if (other == dock || !other->isVisible())
                continue;
            (other->isFloating() ? floating : docked) = other;
        }
        const QSize before = size();
        if (docked) {
            // Another panel is docked: join its tab group, which takes no more room.
            dock->setFloating(false);
            if (dockWidgetArea(docked) != dockWidgetArea(dock) || !tabifiedDockWidgets(docked).contains(dock))
                tabifyDockWidget(docked, dock);
            dock->show();
        } else if (floating) {
            // The user floated the panels: this one joins them there.
            dock->setFloating(true);
            dock->setGeometry(floating->geometry());
            dock->show();
        } else {
            const int room = roomBesideDashboard();
            dock->setFloating(false);
            if (room >= kDockMinimumWidth) {
                if (dockWidgetArea(dock) != Qt::RightDockWidgetArea || !tabifiedDockWidgets(dock).isEmpty())
                    addDockWidget(Qt::RightDockWidgetArea, dock);
                dock->show();
                const int preferred = std::max(kDockMinimumWidth, dock->widget()->sizeHint().width());
                resizeDocks({dock}, {std::min(room, preferred)}, Qt::Horizontal);
            } else {
                tabWithInputs(dock);
            }
        }
        if (layout())
            layout()->activate();
        // Whatever the minimum sizes say, a panel never widens the window: it takes the
        // inputs' place instead, as a tab beside them.
        if (!dock->isFloating() && size().width() > before.width()) {
            tabWithInputs(dock);
            resize(before);
            if (layout())
                layout()->activate();
        }
    }
    dock->raise();
    if (dock->isFloating())
        dock->activateWindow();
    if (dock->isAncestorOf(QApplication::focusWidget()))
        return;
    // The focus to the panel's first field, so the keyboard carries on where the eyes went;
    // the ring shows it there even while a floating panel's window is still being activated.
    QWidget* first = nullptr;
    if (dock == searchDock_) {
        first = searchPanel_->focusFirstField();
    } else {
        first = focusFirstField(dock);
    }
    focusRing_->setWidget(fromKeyboard ? first : nullptr);
}

void MainWindow::tabWithInputs(QDockWidget* dock)
{
    dock->setFloating(false);
    if (inputsDock_->isFloating()) {
        addDockWidget(Qt::LeftDockWidgetArea, dock);
        dock->show();
    } else {
        // The tab group keeps the inputs' width, so the dashboard keeps its own.
        const int inputsWidth = inputsDock_->width();
        tabifyDockWidget(inputsDock_, dock);
        dock->show();
        resizeDocks({inputsDock_}, {inputsWidth}, Qt::Horizontal);
    }
    dock->raise();  // in front of the inputs while it is open; closing it brings them back
}

int MainWindow::roomBesideDashboard() const
{
    const int separator = style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent);
    const int inputs = inputsDock_->isVisible() && !inputsDock_->isFloating() ? inputsDock_->width() + separator : 0;
    return width() - legibleDashboardWidth() - inputs - separator;
}

int MainWindow::legibleDashboardWidth() const
{
    // The dashboard's column margins are 6 on each side; the panes' rows need their minimums.
    return std::max({summary_->fullWidth(), topRow_->minimumSizeHint().width(), bottomRow_->minimumSizeHint().width()}) + 12;
}

void MainWindow::showMathFor(const QString& cardId, bool fromKeyboard)
{
    openDock(mathDock_, fromKeyboard);
    derivation_->showSteps(summary_->stepIds(cardId));
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QMenu* newMenu = file->addMenu(tr("&New"));
    QAction* newDefault = newMenu->addAction(tr("Default plan: 70B on 2,048 H100s (worked example A)"), this, [this] {
        if (maybeSave())
            doc_->resetTo(trainplan::defaultPlan());
    });
    newDefault->setShortcut(QKeySequence::New);
    newMenu->addSeparator();
    for (const auto& preset : trainplan::modelPresets()) {
        const QString name = QString::fromStdString(preset.model.name);
        newMenu->addAction(tr("%1 on the default cluster").arg(name), this, [this, name] { newFromModel(name); });
    }
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open);
    QAction* importAction = file->addAction(tr("&Import Model or Launch Script…"), this, &MainWindow::importDialog);
    importAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));  // Ctrl+I shows the plan inputs
    importAction->setStatusTip(tr("A Hugging Face config.json, Megatron-LM arguments, a torchtitan TOML or a Megatron-Bridge YAML, onto this plan's cluster and layout"));
    QAction* calibrateAction = file->addAction(tr("&Calibrate from a Measured Run…"), this, &MainWindow::calibrateDialog);
    calibrateAction->setObjectName("calibrateAction");
    calibrateAction->setStatusTip(tr("Fit the efficiency figures to a step time, throughput or training log measured on this cluster"));
    QAction* variantAction = file->addAction(tr("Compare with a &Variant of This Plan"), this, [this] {
        comparisonWindow()->keepCurrentPlan();
        showComparison();
    });
    variantAction->setObjectName("compareVariantAction");
    variantAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    variantAction->setStatusTip(tr("Keep a copy of this plan as it is now and compare it with your changes, side by side"));
    QAction* compareAction = file->addAction(tr("Co&mpare Plans…"), this, &MainWindow::showComparison);
    compareAction->setObjectName("compareAction");
    compareAction->setStatusTip(tr("This plan beside saved plans and kept copies: figures, differences, charts, diagrams"));
    QAction* sizeAction = file->addAction(tr("Si&ze the Cluster…"), this, &MainWindow::showSizing);
    sizeAction->setObjectName("sizeClusterAction");
    sizeAction->setStatusTip(tr("From a deadline and a budget: how many GPUs of which kind, and the layout"));
    QMenu* profiles = file->addMenu(tr("Cluster &Profile"));
    profiles->setObjectName("clusterProfileMenu");
    profiles->addAction(tr("&Apply a Cluster Profile…"), this, [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        const QString path = QFileDialog::getOpenFileName(this, tr("Apply a cluster profile"), dir, tr("Cluster profiles (*.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !applyClusterProfile(path, &error))
            showError(tr("Could not apply the cluster profile"), error);
    })->setStatusTip(tr("Take the cluster (part, GPUs, links, calibrated efficiency) from a profile saved from another plan"));
    profiles->addAction(tr("&Save This Cluster as a Profile…"), this, [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the cluster as a profile"), dir + "/cluster.json", tr("Cluster profiles (*.json)"));
        QString error;
        if (!path.isEmpty() && !saveClusterProfile(path, &error))
            showError(tr("Could not save the cluster profile"), error);
    })->setStatusTip(tr("The cluster with its efficiency figures and calibration record, for other plans on the same cluster"));
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        const QStringList files = recentfiles::list();
        for (const auto& path : files)
            recent->addAction(QFileInfo(path).fileName() + "  —  " + QFileInfo(path).absolutePath(), this, [this, path] {
                if (maybeSave())
                    openFile(path);
            });
        if (files.isEmpty())
            recent->addAction(tr("(none)"))->setEnabled(false);
        else
            recent->addAction(tr("Clear list"), this, [] { recentfiles::clear(); });
    });
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    auto askPath = [this](const QString& title, const QString& name, const QString& filter) {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        return QFileDialog::getSaveFileName(this, title, dir + "/" + name, filter);
    };
    file->addAction(tr("Export &PDF report (A4)…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this, askPath] {
        const QString path =
            askPath(tr("Export PDF report"), QFileInfo(doc_->displayName()).completeBaseName() + ".pdf", tr("PDF (*.pdf)"));
        if (!path.isEmpty())
            exportPdf(path, false);
    });
    file->addAction(tr("Export PDF report (US &Letter)…"), this, [this, askPath] {
        const QString path =
            askPath(tr("Export PDF report"), QFileInfo(doc_->displayName()).completeBaseName() + ".pdf", tr("PDF (*.pdf)"));
        if (!path.isEmpty())
            exportPdf(path, true);
    });
    file->addAction(tr("Export &slides (PNG, SVG, deck)…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Folder for the slides"), QSettings().value("lastDirectory", QDir::homePath()).toString());
        if (!dir.isEmpty())
            exportSlides(dir);
    });
    file->addAction(tr("Export the report as &Markdown…"), this, [this, askPath] {
        const QString path =
            askPath(tr("Export Markdown"), QFileInfo(doc_->displayName()).completeBaseName() + ".md", tr("Markdown (*.md)"));
        if (!path.isEmpty())
            exportMarkdown(path);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);  // every platform binding (KDE: Ctrl+Shift+Z redoes)
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(
        tr("Copy the math as Markdown"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] { derivation_->copyMarkdown(); });
    edit->addAction(tr("Copy the math as text"), this, [this] { derivation_->copyPlainText(); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (size_t i = 0; i < panes_.size(); ++i) {
        DashboardPane* pane = panes_[i];
        // Ctrl+1 ... Ctrl+5, in the dashboard's reading order.
        const QKeySequence key = i < 9 ? QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + int(i))) : QKeySequence();
        QAction* enlarge =
            view->addAction(tr("Enlarge %1").arg(pane->objectName()), key, this, [pane] { pane->setEnlarged(!pane->isEnlarged()); });
        enlarge->setObjectName(QString("enlarge%1").arg(i + 1));
    }
    view->addAction(tr("Show all panes"), QKeySequence(Qt::Key_Escape), this, [this] {
        for (auto* p : panes_)
            p->setEnlarged(false);
    });
    view->addSeparator();
    view->addAction(timeline_->compareAction());
    view->addAction(timeline_->fitAction());
    view->addSeparator();
    QAction* inputs = view->addAction(tr("Plan &inputs"), QKeySequence(Qt::CTRL | Qt::Key_I), this, [this] {
        // In front of any panel sharing its tab group, the focus in its first field.
        inputsDock_->show();
        inputsDock_->raise();
        if (!inputsDock_->isAncestorOf(QApplication::focusWidget()))
            focusFirstField(inputsDock_);
    });
    inputs->setObjectName("inputsDockAction");
    view->addAction(dockAction(mathDock_, tr("Show the &math"), QKeySequence(Qt::CTRL | Qt::Key_M)));
    view->addAction(dockAction(searchDock_, tr("Layout &search"), QKeySequence(Qt::CTRL | Qt::Key_F)));
    view->addAction(dockAction(tornadoDock_, tr("Se&nsitivity"), QKeySequence(Qt::CTRL | Qt::Key_T)));
    view->addAction(dockAction(realityDock_, tr("&Reality check"), QKeySequence(Qt::CTRL | Qt::Key_R)));
    view->addAction(tr("Reset panel layout"), this, [this] {
        restoreState(defaultDockState_, kDockStateVersion);
        for (QDockWidget* dock : toolDocks())
            dock->hide();
    });
    view->addAction(tr("&Presentation mode"), QKeySequence(Qt::Key_F5), this, &MainWindow::startPresentation);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About TrainPlan"), this, [this] {
        QMessageBox::about(this, tr("About TrainPlan"),
                           tr("<b>TrainPlan</b><br>Plans large-model pre-training runs: memory, time, pipeline, communication and "
                              "reliability, with the arithmetic behind every figure."));
    });
}

void MainWindow::updateTitle()
{
    // The file, then the plan's name: "plan.json* — 70B on 2,048 H100s, 1.4T tokens — TrainPlan".
    // "[*]" is Qt's modified-marker placeholder; a name that contains it is escaped.
    QString name = QString::fromStdString(doc_->plan().name);
    name.replace(QLatin1String("[*]"), QLatin1String("[*][*]"));
    setWindowTitle(name.isEmpty() ? QString("%1[*] — TrainPlan").arg(doc_->displayName())
                                  : QString("%1[*] — %2 — TrainPlan").arg(doc_->displayName(), name));
    setWindowModified(doc_->isModified());
}

void MainWindow::updateStatus()
{
    const auto& e = doc_->timeEstimate();
    int errors = 0, warnings = 0;
    for (const auto& w : doc_->estimate().warnings) {
        errors += w.severity == trainplan::Severity::Error;
        warnings += w.severity == trainplan::Severity::Warning;
    }
    // Counts agree with their nouns: "1 GPU", "1 error", "1 day".
    const auto count = [](double n, const char* noun) {
        return QString::fromStdString(trainplan::formatInteger(n) + " " + trainplan::pluralNoun(n, noun));
    };
    const auto days = [](double d) { return QString::fromStdString(trainplan::countOf(d, "day")); };
    if (errors > 0) {
        // No ordinary figures under an error: what is wrong, and where to read why.
        const trainplan::Warning* first = nullptr;
        for (const auto& w : doc_->estimate().warnings)
            if (!first && w.severity == trainplan::Severity::Error)
                first = &w;
        statusBar()->showMessage(tr("Plan invalid: %1 (%2, %3; see Red flags)")
                                     .arg(QString::fromStdString(trainplan::codeName(first->code)), count(errors, "error"),
                                         count(warnings, "warning")));
        return;
    }
    statusBar()->showMessage(tr("%1 · %2 compute, %3 with failures · fullest GPU %4 of %5 · %6, %7")
                                 .arg(count(e.gpusUsed, "GPU"), days(e.time.days), days(e.reliability.paddedDays),
                                      QString::fromStdString(trainplan::formatBytes(e.perGpu.total)),
                                      QString::fromStdString(trainplan::formatBytes(e.capacityBytes)), count(errors, "error"),
                                      count(warnings, "warning")));
}

bool MainWindow::maybeSave()
{
    if (!doc_->isModified())
        return true;
    switch (askToSaveChanges()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

bool MainWindow::save()
{
    return doc_->filePath().isEmpty() ? saveAs() : saveTo(doc_->filePath());
}

bool MainWindow::saveAs()
{
    QString path = askSavePath();
    if (path.isEmpty())
        return false;
    if (!path.endsWith(".json", Qt::CaseInsensitive))
        path += ".json";
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path)
{
    QString error;
    if (!doc_->save(path, &error)) {
        showError(tr("Could not save"), error);
        return false;
    }
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    recentfiles::add(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::open()
{
    if (!maybeSave())
        return;
    const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open plan"), dir, tr("TrainPlan plans (*.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::openFile(const QString& path)
{
    QString error;
    if (!doc_->load(path, &error)) {
        showError(tr("Could not open plan"), error);
        return false;
    }
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    recentfiles::add(path);
    return true;
}

ComparisonWindow* MainWindow::comparisonWindow()
{
    if (!comparison_)
        comparison_ = new ComparisonWindow(doc_, this);
    return comparison_;
}

SizingWindow* MainWindow::sizingWindow()
{
    if (!sizing_)
        sizing_ = new SizingWindow(doc_, this);
    return sizing_;
}

void MainWindow::showSizing()
{
    SizingWindow* window = sizingWindow();
    window->show();
    window->raise();
    window->activateWindow();
}

void MainWindow::showComparison()
{
    ComparisonWindow* window = comparisonWindow();
    window->show();
    window->raise();
    window->activateWindow();
}

void MainWindow::calibrateDialog()
{
    // Window-modal but not blocking (open(), not exec()): the plan stays in view behind it.
    auto* dialog = new CalibrationDialog(doc_->plan(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const auto plan = dialog->calibratedPlan();
        if (!plan)
            return;
        doc_->applyPlan(*plan, tr("Calibrate from a measured run"));
        statusBar()->showMessage(tr("Calibrated from %1: %2 (Edit → Undo takes it back)")
                                     .arg(QString::fromStdString(plan->cluster.calibration->source),
                                         QString::fromStdString(plan->cluster.calibration->fitted)),
            15000);
    });
    dialog->open();
}

bool MainWindow::saveClusterProfile(const QString& path, QString* error)
{
    try {
        trainplan::writeFileAtomically(QFile::encodeName(path).toStdString(),
            trainplan::clusterProfileToJson(doc_->plan(), QFileInfo(path).completeBaseName().toStdString()).dump(2) + "\n");
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Saved the cluster as %1").arg(QFileInfo(path).fileName()), 8000);
    return true;
}

bool MainWindow::applyClusterProfile(const QString& path, QString* error)
{
    try {
        const trainplan::ClusterProfile profile = trainplan::loadClusterProfile(QFile::encodeName(path).toStdString());
        doc_->applyPlan(trainplan::withClusterProfile(doc_->plan(), profile), tr("Apply cluster profile %1").arg(QString::fromStdString(profile.name)));
        QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
        statusBar()->showMessage(tr("Applied the cluster profile %1 (Edit → Undo takes it back)").arg(QString::fromStdString(profile.name)), 8000);
        return true;
    } catch (const trainplan::PlanError& e) {
        QStringList lines;
        for (const auto& p : e.problems())
            lines << QString::fromStdString(p.path.empty() ? p.message : p.path + ": " + p.message);
        *error = tr("%1 is not a usable cluster profile:\n%2").arg(QFileInfo(path).fileName(), lines.join('\n'));
        return false;
    }
}

void MainWindow::importDialog()
{
    if (!maybeSave())
        return;
    const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a model or launch script"), dir,
        tr("Hugging Face configs, Megatron-LM scripts, torchtitan and Megatron-Bridge configs (*.json *.sh *.bash *.txt *.args *.toml *.yaml *.yml);;All files (*)"));
    if (!path.isEmpty())
        importFile(path);
}

bool MainWindow::importFile(const QString& path)
{
    trainplan::ImportReport report;
    try {
        report = trainplan::importPath(path.toStdString(), doc_->plan());
    } catch (const trainplan::PlanError& e) {
        QStringList lines;
        for (const auto& p : e.problems())
            lines << QString::fromStdString(p.path.empty() ? p.message : p.path + ": " + p.message);
        showError(tr("Could not import"), lines.join("\n"));
        return false;
    }
    doc_->resetTo(report.plan);
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    const QString what = report.format == "huggingface" ? tr("Hugging Face config")
        : report.format == "torchtitan"                 ? tr("torchtitan config")
        : report.format == "megatron-bridge"            ? tr("Megatron-Bridge config")
                                                        : tr("Megatron-LM arguments");
    statusBar()->showMessage(tr("Imported %1 from %2: %3 keys mapped, %4 not (see the import report)")
                                 .arg(what, QFileInfo(path).fileName())
                                 .arg(report.mapped.size())
                                 .arg(report.unmapped.size()),
        15000);
    // What was not mapped, and what was assumed, where a person can read it; not modal, so the
    // plan is there to look at while it is open.
    auto* box = new QMessageBox(QMessageBox::Information, tr("Imported %1").arg(what),
        tr("%1 keys mapped onto the plan; %2 not mapped, each with the reason, and %3 assumptions are under Show Details.")
            .arg(report.mapped.size())
            .arg(report.unmapped.size())
            .arg(report.assumptions.size()),
        QMessageBox::Ok, this);
    box->setDetailedText(QString::fromStdString(trainplan::importReportToText(report)));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
    return true;
}

void MainWindow::newFromModel(const QString& modelName)
{
    if (!maybeSave())
        return;
    trainplan::Plan plan = trainplan::defaultPlan();
    if (const auto* preset = trainplan::findModelPreset(modelName.toStdString())) {
        plan.model = preset->model;
        plan.nameUserSet = false;  // named after what it plans (PlanDocument::resetTo refreshes it)
    }
    doc_->resetTo(plan);
}

bool MainWindow::runExport(const ExportRequest& request)
{
    QString error;
    QStringList written, kept;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = exporter::run(doc_->analysis(), QFileInfo(doc_->displayName()).completeBaseName(), request, &error, &written, &kept);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        showError(tr("Export failed"), error);
        return false;
    }
    QString message = tr("Wrote %n file(s): %1", nullptr, int(written.size())).arg(written.value(0));
    if (!kept.isEmpty())
        message += tr("; kept %n file(s) TrainPlan did not write: %1", nullptr, int(kept.size()))
                       .arg(QStringList(kept.mid(0, 3)).replaceInStrings(QRegularExpression(".*/"), QString()).join(", "));
    statusBar()->showMessage(message, kept.isEmpty() ? 6000 : 15000);
    return true;
}

bool MainWindow::exportPdf(const QString& path, bool letter)
{
    ExportRequest request;
    request.pdfPath = path;
    request.pageSize = letter ? QPageSize::Letter : QPageSize::A4;
    // The last sizing of this model and token budget (File → Size the Cluster…) gets its section.
    if (sizing_)
        if (const trainplan::SizingResult* sized = sizing_->resultFor(doc_->plan()))
            request.sizing = *sized;
    if (!runExport(request))
        return false;
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    return true;
}

bool MainWindow::exportSlides(const QString& directory)
{
    ExportRequest request;
    request.slidesDirectory = directory;
    return runExport(request);
}

bool MainWindow::exportMarkdown(const QString& path)
{
    ExportRequest request;
    request.markdownPath = path;
    return runExport(request);
}

bool MainWindow::exportView(ReportView view, const QString& path)
{
    const ReportContext context(doc_->analysis(), QFileInfo(doc_->displayName()).completeBaseName());
    QString error;
    if (!slideexport::writeSlide(context, Slide{view, 0, 0, {}, SlideKind::View, {}}, path, &error)) {
        showError(tr("Export failed"), error);
        return false;
    }
    statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
    return true;
}

void MainWindow::startPresentation()
{
    auto* presentation = new PresentationWindow(doc_->analysis());
    presentation->showFullScreen();
    presentation->setFocus();
}

void MainWindow::showError(const QString& title, const QString& text)
{
    // Offscreen (tests, headless runs) a modal box would block forever; report on stderr.
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) {
        qWarning("%s: %s", qPrintable(title), qPrintable(text));
        return;
    }
    QMessageBox::critical(this, title, text);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    // Saved, or deliberately discarded: nothing to recover from this session.
    autosaver_->clear();
    saveSettings();
    event->accept();
}

bool MainWindow::offerRecovery()
{
    const auto pending = autosaver_->store().pending();
    if (pending.empty())
        return false;
    const auto& newest = pending.front();
    const bool restore = askToRestore(newest);
    if (restore) {
        doc_->restoreRecovered(newest.plan, newest.originalPath);
        autosaver_->saveNow();  // this session holds the work now
    }
    RecoveryStore::discard(newest);
    return restore;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().size() == 1 && event->mimeData()->urls().first().isLocalFile())
        event->acceptProposedAction();
}

namespace {

// A TrainPlan plan opens; anything else dropped (a config.json, a model folder, a launch script)
// is imported.
bool isPlanFile(const QString& path)
{
    if (QFileInfo(path).isDir())
        return false;
    try {
        const auto parsed = trainplan::tryParseJsonBounded(trainplan::readRegularFile(path.toStdString()), path.toStdString());
        return parsed.status != trainplan::BoundedJsonResult::Status::Ok || (parsed.value.is_object() && parsed.value.contains("format"));
    } catch (const trainplan::PlanError&) {
        return true;  // unreadable: opening it says why
    }
}

}  // namespace

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = event->mimeData()->urls().first().toLocalFile();
    if (!maybeSave())
        return;
    if (isPlanFile(path) ? openFile(path) : importFile(path))
        event->acceptProposedAction();
}

void MainWindow::restoreSettings()
{
    QSettings s;
    if (s.contains("window/geometry"))
        restoreGeometry(s.value("window/geometry").toByteArray());
    if (s.contains("window/state"))
        restoreState(s.value("window/state").toByteArray(), kDockStateVersion);
    if (s.contains("window/rows")) {
        rows_->restoreState(s.value("window/rows").toByteArray());
        topRow_->restoreState(s.value("window/topRow").toByteArray());
        bottomRow_->restoreState(s.value("window/bottomRow").toByteArray());
    }
    doc_->setFollower(followerFromSetting(s.value("layout/follower", QStringLiteral("dp"))));
}

void MainWindow::saveSettings()
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState(kDockStateVersion));
    s.setValue("window/rows", rows_->saveState());
    s.setValue("window/topRow", topRow_->saveState());
    s.setValue("window/bottomRow", bottomRow_->saveState());
    const auto follower = trainplan::followerKey(doc_->follower());
    s.setValue("layout/follower", QString::fromLatin1(follower.data(), qsizetype(follower.size())));
}
