#include "ui/search/SearchPanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/plan/PlanFields.h"
#include "core/plan/ShownUnits.h"
#include "core/text/MfuBasis.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/search/SearchResultsModel.h"
#include "ui/search/SearchRunner.h"
#include "ui/search/SearchScatter.h"
#include "ui/widgets/FlowLayout.h"

namespace {

// The part of a plan a search result depends on: everything except the fields the search
// itself varies (and, when the batch is a range, the batch). Applying a result keeps this
// key, so "Apply" does not make its own results stale.
trainplan::Plan searchKey(trainplan::Plan plan, bool batchRange)
{
    auto& l = plan.layout;
    for (trainplan::ParallelDim d : trainplan::kParallelDims)
        l.size(d) = 1;
    l.virtualStages = 1;
    l.zeroStage = 0;
    l.recompute = trainplan::Recompute::None;
    l.sequenceParallel = false;
    l.stageLayers.clear();
    l.dpAuto = false;
    // The search runs the plan's flat schedule, or 1F1B when it interleaves.
    if (l.schedule == trainplan::Schedule::Interleaved)
        l.schedule = trainplan::Schedule::OneFOneB;
    plan.training.microBatchSize = 1;
    if (batchRange)
        plan.training.globalBatchSequences = 0;
    // Inputs the search does not read: its time is predicted (not the assumed MFU) and it
    // does not model failures.
    plan.training.mfu = 0;
    plan.cluster.mtbfSeconds.reset();
    plan.reliability = {};
    plan.name.clear();
    return plan;
}

QString number(double v)
{
    return QString::fromStdString(trainplan::formatNumber(v));
}

}  // namespace

SearchPanel::SearchPanel(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
    , runner_(new SearchRunner(this))
    , model_(new SearchResultsModel(this))
    , proxy_(new QSortFilterProxyModel(this))
{
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SearchResultsModel::SortRole);

    table_ = new QTableView;
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(SearchResultsModel::Rank, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->setHighlightSections(false);
    table_->setColumnHidden(SearchResultsModel::Cost, true);
    table_->setColumnHidden(SearchResultsModel::GlobalBatch, true);
    table_->setColumnHidden(SearchResultsModel::Ep, true);
    table_->setColumnHidden(SearchResultsModel::Etp, true);
    table_->setMinimumSize(260, 120);

    scatter_ = new SearchScatter;

    split_ = new QSplitter(Qt::Horizontal);
    split_->addWidget(table_);
    split_->addWidget(scatter_);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 2);
    split_->setChildrenCollapsible(false);
    scatter_->setMinimumSize(260, 180);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(6);
    options_ = buildOptions();
    column->addWidget(options_);
    column->addWidget(split_, 1);

    connect(runner_, &SearchRunner::progressChanged, this, [this](double f) { progress_->setValue(int(std::lround(f * 1000))); });
    connect(runner_, &SearchRunner::finished, this, &SearchPanel::onFinished);
    connect(doc_, &PlanDocument::planChanged, this, &SearchPanel::onPlanChanged);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        scatter_->setSelectedRow(selectedRow());
        updateButtons();
    });
    connect(scatter_, &SearchScatter::rowClicked, this, &SearchPanel::selectRow);
    connect(table_, &QTableView::doubleClicked, this, &SearchPanel::applySelected);

    updateBatchWidgets();
    updateCurrentLayout();
    updateButtons();
    fitColumns();
    setStatus(tr("Finds every parallel layout that fits in memory and ranks it."));
}

SearchPanel::~SearchPanel() = default;

QWidget* SearchPanel::buildOptions()
{
    auto* box = new QWidget;
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(4);

    objective_ = new QComboBox;
    objective_->addItem(tr("Time"), int(trainplan::SearchObjective::Time));
    objective_->addItem(tr("GPU-hours"), int(trainplan::SearchObjective::GpuHours));
    objective_->addItem(tr("Cost"), int(trainplan::SearchObjective::Cost));
    objective_->setToolTip(tr("What ranks the layouts. Every layout uses all GPUs, so time and GPU-hours rank alike; "
                              "they differ from step time only when the batch varies."));
    dollars_ = new QDoubleSpinBox;
    dollars_->setPrefix(QStringLiteral("$"));
    dollars_->setSuffix(tr(" /GPU-h"));
    dollars_->setToolTip(tr("Dollars per GPU-hour"));
    dollars_->setDecimals(2);
    dollars_->setRange(0.01, 1000);
    dollars_->setValue(2.0);
    batchMode_ = new QComboBox;
    batchMode_->addItem(tr("Batch fixed"));
    batchMode_->addItem(tr("Batch range"));
    batchMode_->setToolTip(tr("A range tries every DP x 2^k sequences between the two bounds"));
    // Global batches within the file's bounds (the plan-field table), up to 2^24 sequences: tens
    // of billions of tokens a step, far beyond any published run, and the search's DP x 2^k steps
    // stay few.
    const trainplan::PlanField& batch = trainplan::planField("training.global_batch_sequences");
    constexpr double kLargestSearchedBatch = 1 << 24;
    batchMin_ = new QSpinBox;
    batchMax_ = new QSpinBox;
    for (QSpinBox* s : {batchMin_, batchMax_}) {
        s->setRange(int(batch.min), int(std::min(batch.max, kLargestSearchedBatch)));
        s->setGroupSeparatorShown(true);
        s->setSuffix(QString::fromStdString(trainplan::shownUnit(batch).suffix));
    }
    redFlags_ = new QComboBox;
    redFlags_->setObjectName("redFlagFilter");
    redFlags_->addItem(tr("Red flags last"), int(trainplan::RedFlagOrder::Last));
    redFlags_->addItem(tr("Hide red flags"), int(trainplan::RedFlagOrder::Hide));
    redFlags_->addItem(tr("Red flags mixed"), int(trainplan::RedFlagOrder::Mixed));
    redFlags_->setToolTip(tr("Layouts that raise red flags (TP across nodes, a large bubble, DP not hidden...): ranked after every "
                             "layout without them, left out, or ranked by the objective alone. \"May not fit\" layouts always "
                             "rank after the ones that fit."));
    top_ = new QSpinBox;
    top_->setRange(1, 10000);
    top_->setValue(50);
    top_->setPrefix(tr("Top "));
    top_->setToolTip(tr("Layouts kept besides the Pareto front and the simplest layout"));
    // The controls flow: one line in a wide panel, as many as it takes in a narrow one, each
    // group (a label and its fields) kept together.
    auto* flow = new FlowLayout(nullptr, 12, 4);
    const auto group = [flow](std::initializer_list<QWidget*> widgets) {
        auto* box = new QWidget;
        auto* line = new QHBoxLayout(box);
        line->setContentsMargins(0, 0, 0, 0);
        line->setSpacing(6);
        for (QWidget* w : widgets)
            line->addWidget(w);
        flow->addWidget(box);
    };
    dash_ = new QLabel(QStringLiteral("–"));
    group({new QLabel(tr("Rank by")), objective_, dollars_});
    group({batchMode_, batchMin_, dash_, batchMax_});
    group({redFlags_, top_});

    search_ = new QPushButton(tr("Search layouts"));
    search_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"));
    apply_ = new QPushButton(tr("Apply layout"));
    search_->setObjectName("searchButton");
    cancel_->setObjectName("cancelButton");
    apply_->setObjectName("applyButton");
    apply_->setToolTip(tr("Set the selected layout on the plan (one undo step; double-clicking a row does the same)"));
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    progress_->setFixedWidth(110);
    status_ = new QLabel;
    status_->setMinimumWidth(100);
    // One line, elided to the room there is (the whole text in its tooltip): a narrow pane
    // neither clips the counts mid-word nor grows taller.
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status_->installEventFilter(this);
    group({search_, cancel_, apply_});
    flow->addWidget(progress_);

    rows->addLayout(flow);
    rows->addWidget(status_);

    connect(search_, &QPushButton::clicked, this, &SearchPanel::startSearch);
    connect(cancel_, &QPushButton::clicked, this, &SearchPanel::cancelSearch);
    connect(apply_, &QPushButton::clicked, this, &SearchPanel::applySelected);
    connect(objective_, &QComboBox::currentIndexChanged, this, [this] {
        // Choosing cost starts from the plan's price when it has one.
        if (trainplan::SearchObjective(objective_->currentData().toInt()) == trainplan::SearchObjective::Cost)
            if (const auto price = doc_->plan().cost.pricePerGpuHourUsd; price && *price > 0)
                dollars_->setValue(*price);
        updateBatchWidgets();
    });
    connect(batchMode_, &QComboBox::currentIndexChanged, this, [this] { updateBatchWidgets(); });
    return box;
}

trainplan::SearchOptions SearchPanel::options() const
{
    trainplan::SearchOptions o;
    o.objective = trainplan::SearchObjective(objective_->currentData().toInt());
    // Ranked by cost: the price in the panel. Otherwise the plan's own price (cost.*), so that a
    // time-ranked list still shows what each layout costs; none when the plan names no price.
    o.costPerGpuHour = o.objective == trainplan::SearchObjective::Cost ? dollars_->value()
                                                                       : doc_->plan().cost.pricePerGpuHourUsd.value_or(0.0);
    o.top = top_->value();
    o.redFlags = trainplan::RedFlagOrder(redFlags_->currentData().toInt());
    if (batchMode_->currentIndex() == 1) {
        o.minGlobalBatch = std::min(batchMin_->value(), batchMax_->value());
        o.maxGlobalBatch = std::max(batchMin_->value(), batchMax_->value());
    }
    return o;
}

void SearchPanel::setOptions(const trainplan::SearchOptions& o)
{
    objective_->setCurrentIndex(objective_->findData(int(o.objective)));
    if (o.costPerGpuHour > 0)
        dollars_->setValue(o.costPerGpuHour);
    top_->setValue(o.top);
    redFlags_->setCurrentIndex(redFlags_->findData(int(o.redFlags)));
    const bool range = o.minGlobalBatch > 0 || o.maxGlobalBatch > 0;
    batchMode_->setCurrentIndex(range ? 1 : 0);
    if (range) {
        batchMin_->setValue(int(std::max<long long>(1, o.minGlobalBatch)));
        batchMax_->setValue(int(std::max(o.minGlobalBatch, o.maxGlobalBatch)));
    }
    updateBatchWidgets();
}

void SearchPanel::updateBatchWidgets()
{
    const bool range = batchMode_->currentIndex() == 1;
    const long long batch = doc_->plan().training.globalBatchSequences;
    batchMode_->setItemText(0, tr("Batch fixed (%1)").arg(QString::fromStdString(trainplan::formatInteger(double(batch)))));
    if (range && batchMin_->value() == batchMin_->minimum() && batchMax_->value() == batchMax_->minimum()) {
        // A first range around the plan's batch: half to twice.
        batchMin_->setValue(int(std::max<long long>(1, batch / 2)));
        batchMax_->setValue(int(batch * 2));
    }
    batchMin_->setVisible(range);
    batchMax_->setVisible(range);
    dash_->setVisible(range);
    dollars_->setVisible(trainplan::SearchObjective(objective_->currentData().toInt()) == trainplan::SearchObjective::Cost);
}

bool SearchPanel::isRunning() const
{
    return runner_->isRunning();
}

const trainplan::SearchResult& SearchPanel::result() const
{
    return runner_->result();
}

void SearchPanel::startSearch()
{
    const trainplan::SearchOptions o = options();
    if (!runner_->start(doc_->plan(), o))
        return;
    searchedRange_ = o.minGlobalBatch > 0 || o.maxGlobalBatch > 0;
    searchedKey_ = searchKey(doc_->plan(), searchedRange_);
    progress_->setValue(0);
    setStatus(tr("Searching…"));
    updateButtons();
    emit searchStarted();
}

void SearchPanel::cancelSearch()
{
    runner_->cancel();
    if (runner_->isRunning())
        setStatus(tr("Cancelling…"));
}

void SearchPanel::onFinished()
{
    const auto& r = runner_->result();
    const bool cost = r.objective == trainplan::SearchObjective::Cost
        || std::any_of(r.rows.begin(), r.rows.end(), [](const trainplan::SearchRow& row) { return row.cost > 0; });
    model_->setResult(r);
    table_->setColumnHidden(SearchResultsModel::Cost, !cost);
    table_->setColumnHidden(SearchResultsModel::Ep, !r.expertGrid);
    table_->setColumnHidden(SearchResultsModel::Etp, !r.expertGrid);
    scatter_->setMfuBasisNote(searchedKey_ ? QString::fromStdString(trainplan::mfuBasisNote(*searchedKey_)) : QString());
    scatter_->setResult(r);
    table_->setColumnHidden(SearchResultsModel::GlobalBatch, !scatter_->xIsDays());  // shown when the batch varies
    fitColumns();
    placeSplit();
    progress_->setValue(r.cancelled ? progress_->value() : progress_->maximum());

    const double rate = r.seconds > 0 ? r.evaluated / r.seconds : 0;
    QString text = tr("%1 layouts evaluated, %2 fit, in %3 s (%4/s) · %5 kept, %6 on the Pareto front")
                       .arg(QString::fromStdString(trainplan::formatInteger(double(r.evaluated))))
                       .arg(QString::fromStdString(trainplan::formatInteger(double(r.fitting))))
                       .arg(number(r.seconds))
                       .arg(rate >= trainplan::units::mega ? tr("%1 M").arg(rate / trainplan::units::mega, 0, 'f', 1)
                                                           : tr("%1 k").arg(rate / trainplan::units::kilo, 0, 'f', 0))
                       .arg(r.rows.size())
                       .arg(r.paretoCount);
    if (r.redFlagOrder == trainplan::RedFlagOrder::Hide && r.hiddenRedFlags > 0)
        text += tr(" · %1 with red flags hidden").arg(QString::fromStdString(trainplan::formatInteger(double(r.hiddenRedFlags))));
    if (r.cancelled)
        text = tr("Cancelled: partial results. ") + text;
    else if (r.fitting == 0)
        text = tr("No layout fits in memory: %1 evaluated.").arg(QString::fromStdString(trainplan::formatInteger(double(r.evaluated))));
    resultStatus_ = text;
    setStatus(text);
    stale_ = false;
    model_->setStale(false);
    scatter_->setStale(false);
    onPlanChanged();  // the plan may have changed while the search ran
    emit searchFinished();
}

void SearchPanel::onPlanChanged()
{
    if (searchedKey_ && !runner_->isRunning() && model_->rowCount() > 0) {
        const bool stale = !(searchKey(doc_->plan(), searchedRange_) == *searchedKey_);
        if (stale != stale_) {
            stale_ = stale;
            model_->setStale(stale_);
            scatter_->setStale(stale_);
            setStatus(stale_ ? tr("The plan changed: these results are stale. Search again to update them.") : resultStatus_);
        }
    }
    updateBatchWidgets();
    // The table's marker is cheap; marking the plan on the scatter re-lays out a chart, so
    // that waits while the dock is closed.
    model_->setCurrentLayout(trainplan::searchLayoutOf(doc_->plan()));
    if (isVisible())
        updateCurrentLayout();
    else
        currentLayoutStale_ = true;
    updateButtons();
}

void SearchPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (currentLayoutStale_) {
        currentLayoutStale_ = false;
        updateCurrentLayout();
    }
}

void SearchPanel::updateCurrentLayout()
{
    const trainplan::Analysis& analysis = doc_->analysis();
    model_->setCurrentLayout(trainplan::searchLayoutOf(analysis.plan));
    // Where the plan itself sits, predicted the way the search predicts (the analysis's).
    const auto& row = analysis.searchRow();
    scatter_->setCurrentPoint(row ? std::optional(scatter_->pointOf(*row)) : std::nullopt);
}

void SearchPanel::updateButtons()
{
    const bool running = runner_->isRunning();
    search_->setEnabled(!running);
    cancel_->setEnabled(running);
    // Shown once there is progress to show: an idle empty bar reads as a text field.
    progress_->setVisible(running || model_->rowCount() > 0);
    apply_->setEnabled(!running && !stale_ && selectedRow() >= 0);
    apply_->setToolTip(stale_ ? tr("The plan changed since this search: search again before applying")
                              : tr("Set the selected layout on the plan (one undo step; double-clicking a row does the same)"));
    for (QWidget* w : std::initializer_list<QWidget*>{objective_, dollars_, batchMode_, batchMin_, batchMax_, top_})
        w->setEnabled(!running);
}

void SearchPanel::setStatus(const QString& text)
{
    statusText_ = text;
    status_->setToolTip(text);
    status_->setText(status_->fontMetrics().elidedText(text, Qt::ElideRight, status_->width()));
}

bool SearchPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == status_ && event->type() == QEvent::Resize)
        status_->setText(status_->fontMetrics().elidedText(statusText_, Qt::ElideRight, status_->width()));
    return QWidget::eventFilter(watched, event);
}

void SearchPanel::fitColumns()
{
    // As narrow as header and contents allow (ResizeToContents reserves room for a sort arrow
    // in every column, which pushes the numbers off a 900-pixel pane).
    QHeaderView* header = table_->horizontalHeader();
    const QFontMetrics metrics = header->fontMetrics();
    for (int c = 0; c < SearchResultsModel::ColumnCount - 1; ++c) {
        const QString title = model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        header->resizeSection(
            c, std::max(static_cast<QAbstractItemView*>(table_)->sizeHintForColumn(c), metrics.horizontalAdvance(title) + 16));
    }
}

void SearchPanel::placeSplit()
{
    if (split_->orientation() == Qt::Vertical) {
        const int room = height();
        split_->setSizes({room / 2, room / 2});
        return;
    }
    // Side by side: the table as wide as its columns (Flags included), the plot at least 400.
    int needed = table_->verticalScrollBar()->sizeHint().width() + 2 * table_->frameWidth() + 4;
    for (int c = 0; c < SearchResultsModel::ColumnCount; ++c)
        if (!table_->isColumnHidden(c))
            needed += c == SearchResultsModel::Flags ? 130 : table_->horizontalHeader()->sectionSize(c);
    const int room = width();
    const int tableWidth = std::clamp(needed, room * 45 / 100, std::max(room * 45 / 100, room - 420));
    split_->setSizes({tableWidth, room - tableWidth});
}

QWidget* SearchPanel::focusFirstField()
{
    objective_->setFocus(Qt::ShortcutFocusReason);
    return objective_;
}

void SearchPanel::keyPressEvent(QKeyEvent* event)
{
    // Return in an option (the fields pass it on) runs the search, as in a dialog whose
    // default button is "Search layouts".
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && options_->isAncestorOf(focusWidget()) && search_->isEnabled()) {
        startSearch();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

void SearchPanel::resizeEvent(QResizeEvent* event)
{
    // Side by side when there is room for the table's columns and a plot; stacked otherwise.
    const Qt::Orientation orientation = width() >= 1250 ? Qt::Horizontal : Qt::Vertical;
    if (orientation != split_->orientation() || !splitPlaced_) {
        split_->setOrientation(orientation);
        placeSplit();
        splitPlaced_ = true;
    }
    QWidget::resizeEvent(event);
}

int SearchPanel::selectedRow() const
{
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return -1;
    return proxy_->mapToSource(rows.first()).row();
}

void SearchPanel::selectRow(int row)
{
    if (row < 0 || row >= model_->rowCount()) {
        table_->clearSelection();
        return;
    }
    const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index);
}

bool SearchPanel::applySelected()
{
    const int row = selectedRow();
    if (row < 0 || stale_ || runner_->isRunning())
        return false;
    const auto& l = model_->row(row).layout;
    doc_->applyPlan(trainplan::withSearchLayout(doc_->plan(), l),
                    tr("Apply searched layout %1").arg(QString::fromStdString(trainplan::parallelSizesText(l))));
    emit layoutApplied();
    return true;
}
