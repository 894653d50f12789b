#include "ui/compare/ComparisonWindow.h"

#include <QAction>
#include <QEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "render/compare/ComparisonHtml.h"
#include "render/compare/ComparisonPdf.h"
#include "render/report/ReportPainter.h"
#include "ui/compare/PaintedView.h"
#include "ui/document/PlanDocument.h"

namespace {

constexpr int kMemoryChartHeight = 320;  // px: stage bars with room for the legend and letters
constexpr int kDiagramHeight = 260;      // px: a plan's ranks on nodes
constexpr int kTimelineHeight = 300;     // px: its schedule and the in-flight strip

QLabel* sectionHeading(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.25);
    label->setFont(f);
    label->setContentsMargins(0, 12, 0, 2);
    return label;
}

}  // namespace

ComparisonWindow::ComparisonWindow(PlanDocument* live, QWidget* parent)
    : QMainWindow(parent, Qt::Window)
    , live_(live)
{
    setObjectName("comparisonWindow");
    setWindowTitle(tr("Compare Plans — TrainPlan"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    rebuildTimer_.setSingleShot(true);
    rebuildTimer_.setInterval(0);  // one rebuild per burst of edits, after the main window repainted
    connect(&rebuildTimer_, &QTimer::timeout, this, &ComparisonWindow::rebuild);
    connect(live_, &PlanDocument::planChanged, this, [this] {
        if (includeLive_)
            scheduleRebuild();
    });

    askPlanFiles = [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        return QFileDialog::getOpenFileNames(this, tr("Add plans to the comparison"), dir, tr("TrainPlan plans (*.json);;All files (*)"));
    };
    askPdfPath = [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        return QFileDialog::getSaveFileName(this, tr("Export the comparison as PDF"), dir + "/comparison.pdf", tr("PDF (*.pdf)"));
    };

    QMenu* file = menuBar()->addMenu(tr("&Comparison"));
    QAction* keep = file->addAction(tr("&Keep a Copy of the Current Plan"), this, &ComparisonWindow::keepCurrentPlan);
    keep->setObjectName("keepCurrentPlanAction");
    keep->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    keep->setStatusTip(tr("Freeze the main window's plan as it is now; change it there and compare"));
    QAction* add = file->addAction(tr("&Add Plan Files…"), this, &ComparisonWindow::addFiles);
    add->setObjectName("addPlanFilesAction");
    add->setShortcut(QKeySequence::Open);
    QAction* includeLive = file->addAction(tr("Include the &Current Plan (live)"));
    includeLive->setObjectName("includeCurrentPlanAction");
    includeLive->setCheckable(true);
    includeLive->setChecked(true);
    connect(includeLive, &QAction::toggled, this, &ComparisonWindow::setIncludesCurrentPlan);
    removeMenu_ = file->addMenu(tr("&Remove"));
    file->addSeparator();
    QAction* pdf = file->addAction(tr("Export Comparison &PDF…"), this, &ComparisonWindow::exportPdfDialog);
    pdf->setObjectName("exportComparisonPdfAction");
    pdf->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    file->addAction(tr("C&lose"), QKeySequence::Close, this, &QWidget::close);

    QToolBar* bar = addToolBar(tr("Comparison"));
    bar->setObjectName("comparisonToolBar");
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(keep);
    bar->addAction(add);
    bar->addAction(includeLive);
    auto* removeButton = new QToolButton(bar);
    removeButton->setText(tr("Remove"));
    removeButton->setMenu(removeMenu_);
    removeButton->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(removeButton);
    bar->addSeparator();
    bar->addAction(pdf);

    // Left: the words (plans, figures, what changed); right: the drawings. Each scrolls on its own,
    // so the figures stay in view while the diagrams scroll past.
    auto* words = new QWidget;
    auto* wordsColumn = new QVBoxLayout(words);
    wordsColumn->setContentsMargins(16, 8, 12, 16);
    tables_ = new QLabel(words);
    tables_->setObjectName("comparisonTables");
    tables_->setTextFormat(Qt::RichText);
    tables_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    tables_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    wordsColumn->addWidget(tables_);
    wordsColumn->addStretch(1);

    auto* drawings = new QWidget;
    auto* column = new QVBoxLayout(drawings);
    column->setContentsMargins(12, 0, 16, 16);
    column->addWidget(sectionHeading(tr("Memory per GPU by pipeline stage"), drawings));
    memory_ = new PaintedView([this](QPainter& p, const QRectF& r) { memoryPainter_.paint(p, r); }, drawings);
    memory_->setObjectName("memoryComparison");
    memory_->setMinimumHeight(kMemoryChartHeight);
    column->addWidget(memory_);
    column->addWidget(sectionHeading(tr("Where each step goes (predicted)"), drawings));
    steps_ = new PaintedView([this](QPainter& p, const QRectF& r) { stepPainter_.paint(p, r); }, drawings);
    steps_->setObjectName("stepComparison");
    column->addWidget(steps_);
    column->addWidget(sectionHeading(tr("Each plan's ranks and schedule"), drawings));
    planRows_ = new QVBoxLayout;
    column->addLayout(planRows_);
    column->addStretch(1);

    const auto scrolling = [](QWidget* inside) {
        auto* scroll = new QScrollArea;
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(inside);
        return scroll;
    };
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName("comparisonSplitter");
    split->addWidget(scrolling(words));
    split->addWidget(scrolling(drawings));
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 5);
    split->setChildrenCollapsible(false);
    // The hint spans both sides, above them, so it wraps to the window rather than to a wide table.
    auto* central = new QWidget(this);
    auto* stack = new QVBoxLayout(central);
    stack->setContentsMargins(0, 0, 0, 0);
    stack->setSpacing(0);
    hint_ = new QLabel(central);
    hint_->setWordWrap(true);
    hint_->setTextFormat(Qt::RichText);
    hint_->setObjectName("comparisonHint");
    hint_->setContentsMargins(16, 8, 16, 6);
    stack->addWidget(hint_);
    stack->addWidget(split, 1);
    setCentralWidget(central);
    steps_->installEventFilter(this);
    resize(1180, 820);
    updateRemoveMenu();
    rebuild();
}

ComparisonWindow::~ComparisonWindow() = default;

void ComparisonWindow::keepCurrentPlan()
{
    const int copies = int(std::count_if(kept_.begin(), kept_.end(), [](const Kept& k) { return k.source.startsWith(tr("copy of")); }));
    auto copy = std::make_unique<PlanDocument>();
    copy->resetTo(live_->plan());
    kept_.push_back({std::move(copy), tr("copy of the current plan%1").arg(copies ? QStringLiteral(" (%1)").arg(copies + 1) : QString())});
    updateRemoveMenu();
    scheduleRebuild();
}

bool ComparisonWindow::addPlanFile(const QString& path, QString* error)
{
    auto document = std::make_unique<PlanDocument>();
    if (!document->load(path, error))
        return false;
    kept_.push_back({std::move(document), QFileInfo(path).fileName()});
    QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
    updateRemoveMenu();
    scheduleRebuild();
    return true;
}

void ComparisonWindow::removePlan(int index)
{
    if (index < 0 || index >= int(kept_.size()))
        return;
    kept_.erase(kept_.begin() + index);
    updateRemoveMenu();
    scheduleRebuild();
}

void ComparisonWindow::setIncludesCurrentPlan(bool include)
{
    if (include == includeLive_)
        return;
    includeLive_ = include;
    if (auto* action = findChild<QAction*>("includeCurrentPlanAction"))
        action->setChecked(include);
    scheduleRebuild();
}

const ComparisonSet& ComparisonWindow::comparisonSet()
{
    if (stale_ || rebuildTimer_.isActive())
        rebuild();
    return *set_;
}

bool ComparisonWindow::exportPdf(const QString& path, QString* error)
{
    const ComparisonSet& set = comparisonSet();
    if (set.size() < 2) {
        *error = tr("A comparison needs two plans: keep a copy of the current plan or add a plan file first.");
        return false;
    }
    return comparisonpdf::write(set, path, QPageSize::A4, error);
}

void ComparisonWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!sized_) {
        // The words get the width their tables need, up to half the window; the drawings the rest.
        // After this round of events, when the splitter has its real width.
        sized_ = true;
        QTimer::singleShot(0, this, [this] {
            auto* split = findChild<QSplitter*>("comparisonSplitter");
            const int total = split->width();
            const int words = std::min(tables_->sizeHint().width() + 48, total / 2);
            split->setSizes({words, std::max(1, total - words)});
        });
    }
    if (stale_)
        rebuild();
}

void ComparisonWindow::scheduleRebuild()
{
    stale_ = true;
    if (isVisible())
        rebuildTimer_.start();
}

void ComparisonWindow::rebuild()
{
    rebuildTimer_.stop();
    stale_ = false;
    std::vector<trainplan::Analysis> analyses;
    std::vector<QString> sources;
    for (const Kept& k : kept_) {
        analyses.push_back(k.document->analysis());
        sources.push_back(k.source);
    }
    if (includeLive_) {
        analyses.push_back(live_->analysis());
        sources.push_back(tr("current plan (live)"));
    }
    set_ = std::make_unique<ComparisonSet>(std::move(analyses), sources);
    memoryPainter_.setSet(set_.get());
    stepPainter_.setSet(set_.get());

    if (set_->size() < 2)
        hint_->setText(tr("<b>Add a plan to compare.</b> <i>Keep a Copy of the Current Plan</i> (Ctrl+K) freezes the plan in the "
                          "main window as it is now; then change it there (move PP to 1 and ZeRO to 3, say) and both appear "
                          "here side by side, the change live. <i>Add Plan Files…</i> (Ctrl+O) brings in saved plans."));
    else
        hint_->setText(tr("Plan A is the one every difference is measured against. Figures on both bases are labelled as in the "
                          "main window: <i>predicted</i> from the layout, or at the <i>assumed MFU</i>."));
    tables_->setText(comparisonhtml::page(*set_));
    fitStepChartHeight();
    if (planRowCount_ != set_->size())
        rebuildPlanRows();
    // Headings follow the set on every rebuild (a live plan's name changes with its layout).
    for (int i = 0; i < set_->size(); ++i)
        if (auto* heading = planRows_->itemAt(i)->widget()->findChild<QLabel*>("planHeading"))
            heading->setText(set_->heading(i) + QStringLiteral("   ·   ") + set_->source(i));
    setWindowTitle(tr("Compare %1 Plans — TrainPlan").arg(set_->size()));
    for (QWidget* w : findChildren<PaintedView*>())
        w->update();
}

void ComparisonWindow::fitStepChartHeight()
{
    const int height = int(std::ceil(stepPainter_.preferredHeight(std::max(300, steps_->width()))));
    steps_->setFixedHeight(height);
}

bool ComparisonWindow::eventFilter(QObject* watched, QEvent* event)
{
    // The legend wraps with the width, so the chart's height follows it.
    if (watched == steps_ && event->type() == QEvent::Resize && set_)
        fitStepChartHeight();
    return QMainWindow::eventFilter(watched, event);
}

void ComparisonWindow::rebuildPlanRows()
{
    while (QLayoutItem* item = planRows_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    planRowCount_ = set_->size();
    for (int i = 0; i < set_->size(); ++i) {
        auto* row = new QWidget;
        row->setObjectName(QStringLiteral("planRow%1").arg(i));
        auto* layout = new QGridLayout(row);
        layout->setContentsMargins(0, 6, 0, 6);
        auto* heading = new QLabel(row);
        heading->setObjectName("planHeading");
        QFont f = heading->font();
        f.setBold(true);
        heading->setFont(f);
        layout->addWidget(heading, 0, 0);
        // Each view reads the set that is current when it paints, so rows survive live edits.
        auto* diagram = new PaintedView(
            [this, i](QPainter& p, const QRectF& r) {
                if (set_ && i < set_->size())
                    reportpainter::paint(ReportView::Layout, set_->plan(i), p, r);
            },
            row);
        auto* timeline = new PaintedView(
            [this, i](QPainter& p, const QRectF& r) {
                if (set_ && i < set_->size())
                    reportpainter::paint(ReportView::Timeline, set_->plan(i), p, r);
            },
            row);
        diagram->setMinimumHeight(kDiagramHeight);
        timeline->setMinimumHeight(kTimelineHeight);
        layout->addWidget(diagram, 1, 0);
        layout->addWidget(timeline, 2, 0);
        planRows_->addWidget(row);
    }
}

void ComparisonWindow::updateRemoveMenu()
{
    removeMenu_->clear();
    for (int i = 0; i < int(kept_.size()); ++i)
        removeMenu_->addAction(tr("%1  %2 (%3)")
                                   .arg(QString::fromStdString(trainplan::comparisonLetter(size_t(i))),
                                       QString::fromStdString(kept_[size_t(i)].document->plan().name), kept_[size_t(i)].source),
            this, [this, i] { removePlan(i); });
    if (kept_.empty())
        removeMenu_->addAction(tr("(no kept plans)"))->setEnabled(false);
}

void ComparisonWindow::addFiles()
{
    for (const QString& path : askPlanFiles()) {
        QString error;
        if (!addPlanFile(path, &error))
            QMessageBox::warning(this, tr("Cannot add the plan"), error);
    }
}

void ComparisonWindow::exportPdfDialog()
{
    const QString path = askPdfPath();
    if (path.isEmpty())
        return;
    QString error;
    if (!exportPdf(path, &error))
        QMessageBox::warning(this, tr("Cannot export the comparison"), error);
    else
        QSettings().setValue("lastDirectory", QFileInfo(path).absolutePath());
}
