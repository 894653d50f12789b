#include "ui/sizing/SizingWindow.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "core/base/Format.h"
#include "core/presets/Presets.h"
#include "core/text/MfuBasis.h"
#include "core/text/TextReport.h"
#include "render/sizing/SizingReport.h"
#include "render/report/SizingPdf.h"
#include "ui/document/PlanDocument.h"
#include "ui/sizing/SizingChart.h"
#include "ui/sizing/SizingRunner.h"

namespace {

enum Column { Weighed, Name, Price };

}  // namespace

SizingWindow::SizingWindow(PlanDocument* document, QWidget* parent)
    : QMainWindow(parent, Qt::Window)
    , doc_(document)
    , runner_(new SizingRunner(this))
{
    setObjectName("sizingWindow");
    setWindowTitle(tr("Size the Cluster — TrainPlan"));
    askPdfPath = [this] {
        const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
        return QFileDialog::getSaveFileName(this, tr("Export the sizing as PDF"), dir + "/sizing.pdf", tr("PDF (*.pdf)"));
    };
    QMenu* menu = menuBar()->addMenu(tr("&Sizing"));
    menu->addAction(tr("&Size"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &SizingWindow::startSizing);
    QAction* pdf = menu->addAction(tr("Export Sizing &PDF…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        const QString path = askPdfPath();
        QString error;
        if (!path.isEmpty() && !exportPdf(path, &error))
            QMessageBox::warning(this, tr("Cannot export the sizing"), error);
    });
    pdf->setObjectName("exportSizingPdfAction");
    menu->addSeparator();
    menu->addAction(tr("C&lose"), QKeySequence::Close, this, &QWidget::close);

    auto* formScroll = new QScrollArea;
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setWidget(buildForm());
    formScroll->setMinimumWidth(300);

    chart_ = new SizingChart;
    chart_->setObjectName("sizingChart");
    answer_ = new QLabel;
    answer_->setObjectName("sizingAnswer");
    answer_->setWordWrap(true);
    answer_->setTextFormat(Qt::RichText);
    answer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    answer_->setContentsMargins(8, 6, 8, 6);
    answer_->setText(tr("Set the deadline, tick the accelerators to weigh with their prices, and press <b>Size</b> (Ctrl+Return)."));
    table_ = new QTableWidget(0, 9);
    table_->setObjectName("sizingTable");
    table_->setHorizontalHeaderLabels({tr("Accelerator"), tr("GPUs"), tr("Layout"), tr("Days"), tr("Range"), tr("Cost"), tr("MWh"), tr("MFU"), tr("Marks")});
    table_->horizontalHeaderItem(7)->setToolTip(tr(trainplan::kPredictedMfuColumnTip));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setToolTip(tr("Double-click a configuration to open it as the plan"));
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openPoint(row); });
    connect(chart_, &SizingChart::pointClicked, this, [this](int i) { table_->selectRow(i); });
    connect(chart_, &SizingChart::pointActivated, this, &SizingWindow::openPoint);

    auto* answerScroll = new QScrollArea;
    answerScroll->setWidgetResizable(true);
    answerScroll->setFrameShape(QFrame::NoFrame);
    answerScroll->setWidget(answer_);
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(chart_);
    right->addWidget(answerScroll);
    right->addWidget(table_);
    right->setStretchFactor(0, 5);
    right->setStretchFactor(1, 2);
    right->setStretchFactor(2, 3);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(formScroll);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    setCentralWidget(split);
    resize(1200, 800);

    connect(runner_, &SizingRunner::progressChanged, this, [this](double f) { progress_->setValue(int(std::lround(f * 100))); });
    connect(runner_, &SizingRunner::finished, this, &SizingWindow::showResult);
}

QWidget* SizingWindow::buildForm()
{
    auto* form = new QWidget;
    auto* column = new QVBoxLayout(form);
    auto* fields = new QFormLayout;
    const trainplan::Plan& plan = doc_->plan();
    deadline_ = new QDoubleSpinBox;
    deadline_->setObjectName("deadlineDays");
    deadline_->setRange(0.1, 3650);
    deadline_->setDecimals(1);
    deadline_->setSuffix(tr(" days"));
    // A first deadline near the plan's own predicted time, so the first answer has both sides.
    const double planDays = doc_->analysis().atPredictedMfu.reliability.paddedDays;
    deadline_->setValue(std::isfinite(planDays) && planDays > 0 ? std::ceil(planDays) : 30.0);
    fields->addRow(tr("Deadline"), deadline_);
    budgetOn_ = new QCheckBox(tr("Budget"));
    budget_ = new QDoubleSpinBox;
    budget_->setObjectName("budget");
    budget_->setRange(0.01, 1e5);
    budget_->setDecimals(2);
    budget_->setPrefix(QStringLiteral("$"));
    budget_->setSuffix(tr(" million"));
    budget_->setValue(5);
    budget_->setEnabled(false);
    connect(budgetOn_, &QCheckBox::toggled, budget_, &QWidget::setEnabled);
    fields->addRow(budgetOn_, budget_);
    minGpus_ = new QSpinBox;
    maxGpus_ = new QSpinBox;
    for (QSpinBox* box : {minGpus_, maxGpus_}) {
        box->setRange(1, 1 << 20);
        box->setGroupSeparatorShown(true);
    }
    minGpus_->setValue(plan.cluster.gpusPerNode);
    maxGpus_->setValue(32768);
    fields->addRow(tr("GPUs from"), minGpus_);
    fields->addRow(tr("GPUs to"), maxGpus_);
    batchOn_ = new QCheckBox(tr("Batch up to"));
    batchOn_->setToolTip(tr("Let the search grow the global batch up to this many tokens per step"));
    batchMillions_ = new QDoubleSpinBox;
    batchMillions_->setRange(0.001, 1e4);
    batchMillions_->setDecimals(2);
    batchMillions_->setSuffix(tr(" M tokens"));
    batchMillions_->setValue(double(plan.training.globalBatchSequences) * plan.model.sequenceLength / 1e6 * 2);
    batchMillions_->setEnabled(false);
    connect(batchOn_, &QCheckBox::toggled, batchMillions_, &QWidget::setEnabled);
    fields->addRow(batchOn_, batchMillions_);
    threshold_ = new QDoubleSpinBox;
    threshold_->setRange(0.05, 1.0);
    threshold_->setSingleStep(0.05);
    threshold_->setValue(0.7);
    threshold_->setToolTip(tr("Adding GPUs stops paying where a step up buys less than this share of its ideal speed-up"));
    fields->addRow(tr("Scaling threshold"), threshold_);
    column->addLayout(fields);

    column->addWidget(new QLabel(tr("Accelerators to weigh, $ per GPU-hour:")));
    const auto& presets = trainplan::acceleratorPresets();
    accelerators_ = new QTableWidget(int(presets.size()), 3);
    accelerators_->setObjectName("sizingAccelerators");
    accelerators_->setHorizontalHeaderLabels({QString(), tr("Accelerator"), tr("$/GPU-h")});
    accelerators_->verticalHeader()->hide();
    accelerators_->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
    accelerators_->horizontalHeader()->setSectionResizeMode(Weighed, QHeaderView::ResizeToContents);
    for (int i = 0; i < int(presets.size()); ++i) {
        const bool own = presets[size_t(i)].name == plan.cluster.accelerator;
        auto* tick = new QTableWidgetItem;
        tick->setCheckState(own ? Qt::Checked : Qt::Unchecked);
        accelerators_->setItem(i, Weighed, tick);
        auto* name = new QTableWidgetItem(QString::fromStdString(presets[size_t(i)].name));
        name->setFlags(name->flags() & ~Qt::ItemIsEditable);
        accelerators_->setItem(i, Name, name);
        auto* price = new QDoubleSpinBox;
        price->setRange(0, 1000);
        price->setDecimals(2);
        price->setSpecialValueText(tr("none"));
        price->setValue(own ? plan.cost.pricePerGpuHourUsd.value_or(0) : 0);
        accelerators_->setCellWidget(i, Price, price);
    }
    accelerators_->setMinimumHeight(220);
    column->addWidget(accelerators_, 1);

    size_ = new QPushButton(tr("Size"));
    size_->setObjectName("sizeButton");
    size_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    connect(size_, &QPushButton::clicked, this, &SizingWindow::startSizing);
    connect(cancel_, &QPushButton::clicked, this, &SizingWindow::cancelSizing);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(size_);
    buttons->addWidget(cancel_);
    column->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 100);
    progress_->setValue(0);
    column->addWidget(progress_);
    return form;
}

trainplan::SizingOptions SizingWindow::options() const
{
    trainplan::SizingOptions o;
    o.deadlineDays = deadline_->value();
    if (budgetOn_->isChecked())
        o.budgetUsd = budget_->value() * 1e6;
    o.minGpus = std::min(minGpus_->value(), maxGpus_->value());
    o.maxGpus = std::max(minGpus_->value(), maxGpus_->value());
    if (batchOn_->isChecked())
        o.maxGlobalBatchTokens = batchMillions_->value() * 1e6;
    o.scalingThreshold = threshold_->value();
    for (int i = 0; i < accelerators_->rowCount(); ++i) {
        if (accelerators_->item(i, Weighed)->checkState() != Qt::Checked)
            continue;
        trainplan::SizingCandidate c{accelerators_->item(i, Name)->text().toStdString(), std::nullopt};
        if (const double price = static_cast<QDoubleSpinBox*>(accelerators_->cellWidget(i, Price))->value(); price > 0)
            c.pricePerGpuHourUsd = price;
        o.accelerators.push_back(c);
    }
    return o;
}

void SizingWindow::setDeadlineDays(double days)
{
    deadline_->setValue(days);
}

bool SizingWindow::setAccelerator(const QString& name, bool weighed, double pricePerGpuHour)
{
    for (int i = 0; i < accelerators_->rowCount(); ++i)
        if (accelerators_->item(i, Name)->text() == name) {
            accelerators_->item(i, Weighed)->setCheckState(weighed ? Qt::Checked : Qt::Unchecked);
            static_cast<QDoubleSpinBox*>(accelerators_->cellWidget(i, Price))->setValue(pricePerGpuHour);
            return true;
        }
    return false;
}

void SizingWindow::setGpuRange(int minGpus, int maxGpus)
{
    minGpus_->setValue(minGpus);
    maxGpus_->setValue(maxGpus);
}

void SizingWindow::startSizing()
{
    trainplan::SizingOptions o = options();
    if (o.accelerators.empty()) {
        answer_->setText(tr("<b>Tick at least one accelerator to weigh.</b>"));
        return;
    }
    if (!runner_->start(doc_->plan(), o))
        return;
    shownOptions_ = o;
    sizedPlan_ = doc_->plan();
    size_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(0);
    answer_->setText(tr("Sizing %1 accelerator(s) over every GPU count…").arg(o.accelerators.size()));
}

void SizingWindow::cancelSizing()
{
    runner_->cancel();
}

bool SizingWindow::isRunning() const
{
    return runner_->isRunning();
}

const trainplan::SizingResult& SizingWindow::result() const
{
    return runner_->result();
}

const trainplan::SizingResult* SizingWindow::resultFor(const trainplan::Plan& plan) const
{
    const trainplan::SizingResult& r = runner_->result();
    if (isRunning() || r.points.empty() || r.cancelled || !(sizedPlan_.model == plan.model) || sizedPlan_.training.tokens != plan.training.tokens)
        return nullptr;
    return &r;
}

void SizingWindow::showResult()
{
    size_->setEnabled(true);
    cancel_->setEnabled(false);
    progress_->setValue(100);
    if (!runner_->error().isEmpty()) {
        answer_->setText(tr("<b>Cannot size:</b> ") + runner_->error().toHtmlEscaped().replace('\n', "<br>"));
        emit sizingFinished();
        return;
    }
    const trainplan::SizingResult& r = runner_->result();
    chart_->setMfuBasisNote(QString::fromStdString(trainplan::mfuBasisNote(sizedPlan_)));
    chart_->setResult(&r);
    answer_->setText(sizingreport::sentencesHtml(r) + (r.cancelled ? tr("<p><b>Cancelled:</b> the points not yet sized are empty.</p>") : QString()));
    table_->setRowCount(int(r.points.size()));
    table_->setHorizontalHeaderItem(5, new QTableWidgetItem(r.costInDollars ? tr("Cost") : tr("GPU-hours")));
    using namespace trainplan;
    for (int i = 0; i < int(r.points.size()); ++i) {
        const SizingPoint& p = r.points[size_t(i)];
        QStringList marks;
        if (r.cheapest && *r.cheapest == size_t(i))
            marks << tr("cheapest on time");
        if (p.usable)
            marks << (p.meetsDeadline ? tr("meets deadline") : tr("late"));
        if (r.budgetUsd && !p.withinBudget)
            marks << tr("over budget");
        if (p.pareto)
            marks << tr("front");
        if (p.knee)
            marks << tr("scaling stops paying after");
        if (p.batchLimited)
            marks << tr("batch-limited");
        QString layout = p.usable ? QStringLiteral("TP %1 · PP %2 · DP %3").arg(p.layout.tp).arg(p.layout.pp).arg(p.layout.dp) : tr("no layout fits");
        if (p.usable && p.layout.cp > 1)
            layout += QStringLiteral(" · CP %1").arg(p.layout.cp);
        if (p.usable && p.layout.ep > 1)
            layout += QStringLiteral(" · EP %1").arg(p.layout.ep);
        const QStringList cells = {QString::fromStdString(p.accelerator), QString::fromStdString(formatInteger(p.gpus)), layout,
            p.usable ? QString::fromStdString(formatNumber(p.days)) : QString(),
            p.usable ? QString::fromStdString(formatNumber(p.daysLow) + " – " + formatNumber(p.daysHigh)) : QString(),
            p.usable ? QString::fromStdString(r.costInDollars ? "$" + formatCount(*p.usd) : formatInteger(p.gpuHours)) : QString(),
            p.usable && p.mwh ? QString::fromStdString(formatNumber(*p.mwh)) : QString(),
            p.usable ? QString::fromStdString(formatPercent(p.mfu)) : QString(), marks.join(QStringLiteral(", "))};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 1 || (c >= 3 && c <= 7))
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (r.cheapest && *r.cheapest == size_t(i)) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            table_->setItem(i, c, item);
        }
    }
    table_->resizeColumnsToContents();
    if (r.cheapest) {
        table_->selectRow(int(*r.cheapest));
        table_->scrollToItem(table_->item(int(*r.cheapest), 0));
    }
    emit sizingFinished();
}

void SizingWindow::openPoint(int index)
{
    const trainplan::SizingResult& r = runner_->result();
    if (index < 0 || index >= int(r.points.size()) || !r.points[size_t(index)].usable)
        return;
    const trainplan::SizingPoint& p = r.points[size_t(index)];
    doc_->applyPlan(trainplan::planForPoint(sizedPlan_, p, shownOptions_),
        tr("Open sizing point: %1 %2").arg(QString::fromStdString(trainplan::formatInteger(p.gpus)), QString::fromStdString(p.accelerator)));
    statusBar()->showMessage(tr("Opened %1 %2 as the plan (Edit → Undo in the main window takes it back)")
                                 .arg(QString::fromStdString(trainplan::formatInteger(p.gpus)), QString::fromStdString(p.accelerator)),
        8000);
}

bool SizingWindow::exportPdf(const QString& path, QString* error)
{
    if (runner_->result().points.empty()) {
        *error = tr("Size the cluster first: there is no answer to export yet.");
        return false;
    }
    const QString title = QString::fromStdString(trainplan::reportTitle(sizedPlan_, {}));
    return sizingpdf::write(runner_->result(), title, path, QPageSize::A4, error);
}
