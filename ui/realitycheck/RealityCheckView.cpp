#include "ui/realitycheck/RealityCheckView.h"

#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/Thresholds.h"
#include "core/base/Units.h"
#include "render/style/Fonts.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"
#include "ui/charts/ChartStyle.h"

using trainplan::RealityMetric;

namespace {

// The plot's band either side of y = x: the median gate (analysis/Thresholds.h), drawn.
constexpr double kBand = trainplan::kRealityMedianGate;

constexpr RealityMetric kMetrics[] = {
    RealityMetric::HardwareTflopsPerGpu, RealityMetric::Mfu, RealityMetric::IterationSeconds, RealityMetric::LayerMilliseconds,
    RealityMetric::TokensPerSecondPerGpu};

QColor metricColor(RealityMetric m)
{
    switch (m) {
    case RealityMetric::HardwareTflopsPerGpu:
        return theme::compute();
    case RealityMetric::Mfu:
        return theme::optimizer();
    case RealityMetric::IterationSeconds:
        return theme::gradients();
    case RealityMetric::LayerMilliseconds:
        return theme::activations();
    case RealityMetric::PeakMemoryGib:
        return theme::weights();
    case RealityMetric::TokensPerSecondPerGpu:
        return theme::epComm();
    }
    return Qt::black;
}

QScatterSeries::MarkerShape metricShape(RealityMetric m)
{
    switch (m) {
    case RealityMetric::HardwareTflopsPerGpu:
        return QScatterSeries::MarkerShapeCircle;
    case RealityMetric::Mfu:
        return QScatterSeries::MarkerShapeRectangle;
    case RealityMetric::IterationSeconds:
        return QScatterSeries::MarkerShapeTriangle;
    case RealityMetric::LayerMilliseconds:
        return QScatterSeries::MarkerShapeRotatedRectangle;
    case RealityMetric::PeakMemoryGib:
        return QScatterSeries::MarkerShapeStar;
    case RealityMetric::TokensPerSecondPerGpu:
        return QScatterSeries::MarkerShapePentagon;
    }
    return QScatterSeries::MarkerShapeCircle;
}

QString shortName(RealityMetric m)
{
    switch (m) {
    case RealityMetric::HardwareTflopsPerGpu:
        return QObject::tr("TFLOP/s");
    case RealityMetric::Mfu:
        return QObject::tr("MFU");
    case RealityMetric::IterationSeconds:
        return QObject::tr("Iter. s");
    case RealityMetric::LayerMilliseconds:
        return QObject::tr("Layer ms");
    case RealityMetric::PeakMemoryGib:
        return QObject::tr("Peak GiB");
    case RealityMetric::TokensPerSecondPerGpu:
        return QObject::tr("Tokens/s");
    }
    return {};
}

double plotted(RealityMetric metric, double value)
{
    return metric == RealityMetric::Mfu ? value * 100.0 : value;  // MFU in percent
}

QString axisLabel(RealityMetric metric)
{
    switch (metric) {
    case RealityMetric::HardwareTflopsPerGpu:
        return QObject::tr("TFLOP/s per GPU (Eq. 3)");
    case RealityMetric::Mfu:
        return QObject::tr("MFU, %");
    case RealityMetric::IterationSeconds:
        return QObject::tr("iteration, s");
    case RealityMetric::LayerMilliseconds:
        return QObject::tr("one layer, ms");
    case RealityMetric::PeakMemoryGib:
        return QObject::tr("peak memory, GiB");
    case RealityMetric::TokensPerSecondPerGpu:
        return QObject::tr("tokens/s per GPU");
    }
    return {};
}

// The predicted-against-measured plot: one series per metric, the y = x line and the ±10 %
// band. All metrics share log axes (their units differ by two orders of magnitude, and on log
// axes "10 % off" is the same distance everywhere); one metric alone uses linear axes, where
// the band is wide enough to read each case's error. Cases evaluated but not gated (DeepSpeed
// ZeRO-3 rows) are hollow.
void plotCases(QChartView* view, const std::vector<trainplan::RealityRow>& rows, const RealityMetric* only)
{
    // A fresh chart per call: the axes change type (log or linear) with the metric shown.
    QChart* old = view->chart();
    auto* c = new QChart;
    chartstyle::apply(c, view);
    c->setTitleFont(fonts::pixels(11));
    c->setTitle(theme::styled(
        QObject::tr("<font color='@muted'>Solid line: predicted = measured; dashed: ±%1 %</font>").arg(kBand * 100, 0, 'g', 3)));
    view->setRenderHint(QPainter::Antialiasing, true);  // apply() turns it off; diagonals need it
    delete old;

    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::vector<QAbstractSeries*> cases;
    for (RealityMetric m : kMetrics) {
        if (only && *only != m)
            continue;
        // Gated cases filled; evaluated-but-not-gated ones hollow, in the metric's colour.
        for (bool gated : {true, false}) {
            auto* s = new QScatterSeries;
            QStringList tips;  // per point, for the hover tooltip
            for (const auto& r : rows) {
                if (r.metric != m || r.gated != gated)
                    continue;
                const QPointF p(plotted(m, r.measured), plotted(m, r.predicted));
                s->append(p);
                tips << QObject::tr("<b>%1</b><br>%2<br>predicted %3, measured %4: %5%6 %")
                            .arg(markup::escaped(QString::fromStdString(r.id)), markup::escaped(QString::fromStdString(r.location)))
                            .arg(p.y(), 0, 'g', 4)
                            .arg(p.x(), 0, 'g', 4)
                            .arg(r.error >= 0 ? "+" : "−")
                            .arg(std::abs(r.error) * 100, 0, 'f', 1);
                lo = std::min({lo, p.x(), p.y()});
                hi = std::max({hi, p.x(), p.y()});
            }
            if (s->count() == 0) {
                delete s;
                continue;
            }
            const QColor color = metricColor(m);
            s->setName(gated ? shortName(m) : QObject::tr("not gated"));
            s->setMarkerShape(metricShape(m));
            s->setMarkerSize(m == RealityMetric::IterationSeconds ? 12 : 10);
            s->setColor(gated ? color : QColor(Qt::white));
            s->setBorderColor(color.darker(gated ? 140 : 100));
            if (!gated)
                s->setPen(QPen(color, 2));
            QObject::connect(s, &QScatterSeries::hovered, view, [tips, s](const QPointF& point, bool state) {
                const int k = int(s->points().indexOf(point));
                if (state && k >= 0)
                    QToolTip::showText(QCursor::pos(), tips.value(k));
                else
                    QToolTip::hideText();
            });
            cases.push_back(s);
        }
    }
    if (!(hi > 0)) {
        lo = 1;
        hi = 100;
    }

    QAbstractAxis* x;
    QAbstractAxis* y;
    double from, to;
    if (only) {
        // Linear, the same range on both axes so y = x is the diagonal.
        from = lo - (hi - lo) * 0.12;
        to = hi + (hi - lo) * 0.12;
        if (to - from < 1e-9) {
            from = lo * 0.8;
            to = hi * 1.2;
        }
        from = std::max(0.0, from);
        auto* vx = new QValueAxis;
        auto* vy = new QValueAxis;
        for (QValueAxis* a : {vx, vy}) {
            a->setRange(from, to);
            a->applyNiceNumbers();
            a->setLabelFormat("%g");
        }
        from = vx->min();
        to = vx->max();
        x = vx;
        y = vy;
    } else {
        from = lo / 1.25;
        to = hi * 1.25;
        auto* lx = new QLogValueAxis;
        auto* ly = new QLogValueAxis;
        for (QLogValueAxis* a : {lx, ly}) {
            a->setBase(10);
            a->setRange(from, to);
            a->setLabelFormat("%g");
            a->setMinorTickCount(8);
            a->setMinorGridLineVisible(true);
        }
        x = lx;
        y = ly;
    }
    x->setTitleText(only ? QObject::tr("Measured: %1").arg(axisLabel(*only)) : QObject::tr("Measured (log scale)"));
    y->setTitleText(only ? QObject::tr("Predicted") : QObject::tr("Predicted (log scale)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);

    // y = x and the ±10 % band: straight on linear and on log-log axes alike.
    auto line = [&](double k, const QString& name, Qt::PenStyle style, QColor color) {
        auto* l = new QLineSeries;
        l->setName(name);
        l->append(from, from * k);
        l->append(to, to * k);
        l->setPen(QPen(color, k == 1.0 ? 1.5 : 1.0, style));
        c->addSeries(l);
        l->attachAxis(x);
        l->attachAxis(y);
        return l;
    };
    // The lines are named in the chart's title, keeping the legend to the cases.
    for (QLineSeries* l : {line(1.0, QObject::tr("y = x"), Qt::SolidLine, theme::inkSoft()),
             line(1.0 + kBand, QObject::tr("+%1 %").arg(kBand * 100, 0, 'g', 3), Qt::DashLine, theme::faint()),
             line(1.0 - kBand, QObject::tr("−%1 %").arg(kBand * 100, 0, 'g', 3), Qt::DashLine, theme::faint())})
        c->legend()->markers(l).first()->setVisible(false);
    for (QAbstractSeries* s : cases) {
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    c->legend()->setAlignment(Qt::AlignBottom);  // five short entries fit under 340 pixels
    c->legend()->setShowToolTips(true);          // a truncated entry still tells its name
}

constexpr int kSortRole = Qt::UserRole + 1;

// The data's ids start with the paper ("narayanan21-", "korthikanti22-"); the metric column
// and the plot already say which paper, so the table shows the rest (the full id in a tooltip).
QString shortCaseName(const QString& id)
{
    static const QRegularExpression paper(QStringLiteral("^[a-z]+\\d{2}-"));
    const QString rest = QString(id).remove(paper);
    return rest.isEmpty() ? id : rest;
}

QString valueText(RealityMetric m, double v)
{
    switch (m) {
    case RealityMetric::HardwareTflopsPerGpu:
        return QString::number(v, 'f', 1);  // the Metric column gives the unit
    case RealityMetric::Mfu:
        return QStringLiteral("%1 %").arg(v * 100, 0, 'f', 1);
    case RealityMetric::IterationSeconds:
        return QStringLiteral("%1 s").arg(v, 0, 'g', 3);
    case RealityMetric::LayerMilliseconds:
        return QStringLiteral("%1 ms").arg(v, 0, 'f', 1);
    case RealityMetric::PeakMemoryGib:
        return QStringLiteral("%1 GiB").arg(v, 0, 'f', 1);
    case RealityMetric::TokensPerSecondPerGpu:
        return QStringLiteral("%1 tok/s").arg(v, 0, 'f', 0);
    }
    return {};
}

// By the reality check's gates (analysis/Thresholds.h), the ones tst_realitycheck holds the model to.
QColor errorColor(double absError)
{
    return theme::verdict(trainplan::realityErrorVerdict(absError), theme::ok());
}

QStandardItem* item(const QString& text, const QVariant& sortKey, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter)
{
    auto* it = new QStandardItem(text);
    it->setData(sortKey, kSortRole);
    it->setData(int(align), Qt::TextAlignmentRole);
    it->setEditable(false);
    return it;
}

}  // namespace

RealityCheckView::RealityCheckView(QWidget* parent)
    : QWidget(parent)
    , summaryLabel_(new QLabel)
    , metricBox_(new QComboBox)
    , model_(new QStandardItemModel(this))
    , proxy_(new QSortFilterProxyModel(this))
    , table_(new QTableView)
    , validationModel_(new QStandardItemModel(this))
    , validation_(new QTableView)
    , validationNote_(new QLabel)
    , chart_(new QChartView)
{
    // Styles the chart the view made for itself: QChartView::setChart() only releases the one
    // it replaces, so handing it a new chart here leaked the view's own (LeakSanitizer).
    chartstyle::apply(chart_->chart(), chart_);
    chart_->setMinimumSize(260, 260);
    summaryLabel_->setWordWrap(true);
    summaryLabel_->setTextFormat(Qt::RichText);
    summaryLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    model_->setHorizontalHeaderLabels({tr("Case"), tr("Metric"), tr("Predicted"), tr("Measured"), tr("Error"), tr("Gated")});
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(kSortRole);
    table_->setModel(proxy_);
    // The data's order (Narayanan's tables, then Korthikanti's) until a header is clicked.
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->setSortingEnabled(true);
    table_->setTextElideMode(Qt::ElideMiddle);  // long case ids keep their distinguishing ends
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);  // the id takes what is left
    table_->horizontalHeader()->setMinimumSectionSize(36);
    table_->setMinimumWidth(260);

    metricBox_->addItem(tr("Every metric (log axes)"), int(PlotMetric::All));
    metricBox_->addItem(tr("TFLOP/s per GPU, counting recompute"), int(PlotMetric::TflopsPerGpu));
    metricBox_->addItem(tr("MFU"), int(PlotMetric::Mfu));
    metricBox_->addItem(tr("Iteration time (Korthikanti 2022)"), int(PlotMetric::IterationSeconds));
    metricBox_->addItem(tr("Layer time (Korthikanti Table 4)"), int(PlotMetric::LayerMilliseconds));
    connect(metricBox_, &QComboBox::currentIndexChanged, this, [this] { setPlotMetric(PlotMetric(metricBox_->currentData().toInt())); });

    auto* chartSide = new QWidget;
    auto* chartColumn = new QVBoxLayout(chartSide);
    chartColumn->setContentsMargins(0, 0, 0, 0);
    auto* plotRow = new QHBoxLayout;
    plotRow->addWidget(new QLabel(tr("Plot")));
    plotRow->addWidget(metricBox_, 1);
    chartColumn->addLayout(plotRow);
    chartColumn->addWidget(chart_, 1);

    split_ = new QSplitter(Qt::Horizontal);
    split_->addWidget(table_);
    split_->addWidget(chartSide);
    split_->setStretchFactor(0, 1);
    split_->setStretchFactor(1, 1);
    split_->setChildrenCollapsible(false);

    // In and out of sample: the error of predictions for runs the calibration saw, and for each
    // family predicted with the calibration fitted without it.
    validationModel_->setHorizontalHeaderLabels(
        {tr("Rows"), tr("n"), tr("In sample: median"), tr("p90"), tr("Out of sample: median"), tr("p90"), tr("Optimism")});
    validationModel_->horizontalHeaderItem(6)->setToolTip(
        tr("Mean signed error out of sample: above 0, the model predicts faster runs than were measured."));
    validation_->setModel(validationModel_);
    validation_->setSelectionBehavior(QAbstractItemView::SelectRows);
    validation_->setAlternatingRowColors(true);
    validation_->verticalHeader()->hide();
    validation_->verticalHeader()->setDefaultSectionSize(validation_->fontMetrics().height() + 6);
    validation_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    validation_->setTextElideMode(Qt::ElideMiddle);
    validationNote_->setWordWrap(true);
    validationNote_->setTextFormat(Qt::RichText);
    validationNote_->setText(tr("Validating: refitting the calibration once per family…"));
    auto* validationPage = new QWidget;
    auto* validationColumn = new QVBoxLayout(validationPage);
    validationColumn->setContentsMargins(0, 0, 0, 0);
    validationColumn->addWidget(validationNote_);
    validationColumn->addWidget(validation_, 1);

    auto* tabs = new QTabWidget;
    tabs->setDocumentMode(true);
    tabs->addTab(split_, tr("Cases"));
    tabs->addTab(validationPage, tr("In and out of sample"));

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(6);
    column->addWidget(summaryLabel_);
    column->addWidget(tabs, 1);
    summaryLabel_->setText(tr("Reality check: runs when shown."));
}

RealityCheckView::~RealityCheckView()
{
    cancel_ = true;
    if (worker_.joinable())
        worker_.join();
}

void RealityCheckView::showEvent(QShowEvent* event)
{
    ensureLoaded();
    QWidget::showEvent(event);
}

void RealityCheckView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (width() < 200)
        return;
    // Side by side when the table and a plot both have room; stacked in a narrow panel.
    constexpr int kSideBySideWidth = 720;
    const Qt::Orientation orientation = width() >= kSideBySideWidth ? Qt::Horizontal : Qt::Vertical;
    if (splitPlaced_ && orientation == split_->orientation())
        return;
    split_->setOrientation(orientation);
    if (orientation == Qt::Vertical) {
        // The plot near square under the table, as wide as the panel.
        const int room = split_->height();
        const int chartHeight = std::clamp(width(), room / 2, std::max(room / 2, room - 160));
        split_->setSizes({room - chartHeight, chartHeight});
    } else {
        // A predicted-against-measured plot reads best near square: give it about its height.
        const int chartWidth = std::clamp(split_->height() - 20, 360, std::max(360, width() * 42 / 100));
        split_->setSizes({width() - chartWidth, chartWidth});
    }
    splitPlaced_ = true;
}

void RealityCheckView::ensureLoaded()
{
    if (!loaded_)
        load(QString::fromLatin1(kDefaultPath), QString::fromLatin1(kCalibrationPath));
}

const trainplan::RealitySummary& RealityCheckView::summary()
{
    ensureLoaded();
    return summary_;
}

bool RealityCheckView::load(const QString& path, const QString& calibrationPath)
{
    loaded_ = true;  // a failure is shown once, not retried on every show
    summary_ = {};
    error_.clear();
    const auto read = [this](const QString& p, nlohmann::json& out) {
        QFile file(p);
        if (!file.open(QIODevice::ReadOnly)) {
            error_ = tr("Cannot read %1: %2").arg(p, file.errorString());
            return false;
        }
        const QByteArray bytes = file.readAll();
        try {
            out = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd());
        } catch (const std::exception& e) {
            error_ = tr("Cannot use %1: %2").arg(p, QString::fromUtf8(e.what()));
            return false;
        }
        return true;
    };
    nlohmann::json published, calibration;
    std::vector<trainplan::RealityCase> cases;
    if (read(path, published) && (calibrationPath.isEmpty() || read(calibrationPath, calibration))) {
        try {
            cases = trainplan::realityCases(published);
            if (!calibrationPath.isEmpty()) {
                for (auto& c : trainplan::calibrationCases(calibration))
                    cases.push_back(std::move(c));
                for (auto& c : trainplan::calibrationMoeCases(calibration))
                    cases.push_back(std::move(c));
                summary_ = trainplan::realityCheck(published, calibration);
            } else {
                summary_ = trainplan::realityCheck(published);
            }
        } catch (const std::exception& e) {
            error_ = tr("Cannot use %1: %2").arg(path, QString::fromUtf8(e.what()));
            cases.clear();
        }
    }
    fill();
    if (error_.isEmpty())
        startValidation(std::move(cases));
    return error_.isEmpty();
}

void RealityCheckView::startValidation(std::vector<trainplan::RealityCase> cases)
{
    // A validation of data no longer shown stops at its next grid point.
    cancel_ = true;
    if (worker_.joinable())
        worker_.join();
    cancel_ = false;
    validated_ = false;
    validationModel_->removeRows(0, validationModel_->rowCount());
    validationNote_->setText(tr("Validating: refitting the calibration once per family…"));
    worker_ = std::thread([this, cases = std::move(cases)] {
        trainplan::ModelValidation result = trainplan::validateModel(cases, &cancel_);
        if (cancel_)
            return;
        // Queued to the view's thread; Qt drops it if the view is gone by then (the destructor
        // joins this thread first, so `this` is alive while it runs).
        QMetaObject::invokeMethod(
            this,
            [this, result = std::move(result)]() mutable {
                validationResult_ = std::move(result);
                validated_ = true;
                fillValidation();
            },
            Qt::QueuedConnection);
    });
}

void RealityCheckView::fillValidation()
{
    validationModel_->removeRows(0, validationModel_->rowCount());
    const auto& v = validationResult_;
    const auto percent = [](double x) { return QStringLiteral("%1 %").arg(x * 100, 0, 'f', 1); };
    const auto signedPercent = [](double x) { return QStringLiteral("%1%2 %").arg(x >= 0 ? "+" : "−").arg(std::abs(x) * 100, 0, 'f', 1); };
    const auto addRow = [&](const QString& label, const trainplan::ErrorStats* in, const trainplan::ErrorStats* out, bool heading) {
        QList<QStandardItem*> items;
        auto* name = item(label, label, Qt::AlignLeft | Qt::AlignVCenter);
        if (heading) {
            QFont f = name->font();
            f.setBold(true);
            name->setFont(f);
        }
        const trainplan::ErrorStats* counted = out ? out : in;
        items << name << item(counted ? QString::number(counted->count) : QString(), counted ? counted->count : 0);
        items << item(in ? percent(in->median) : QStringLiteral("—"), in ? in->median : 0.0);
        items << item(in ? percent(in->p90) : QStringLiteral("—"), in ? in->p90 : 0.0);
        items << item(out ? percent(out->median) : QStringLiteral("—"), out ? out->median : 0.0);
        items << item(out ? percent(out->p90) : QStringLiteral("—"), out ? out->p90 : 0.0);
        items << item(out ? signedPercent(out->meanSigned) : QStringLiteral("—"), out ? out->meanSigned : 0.0);
        if (out)
            items[4]->setForeground(errorColor(out->median));
        validationModel_->appendRow(items);
    };
    const auto find = [](const std::vector<std::pair<std::string, trainplan::ErrorStats>>& groups, const std::string& key) {
        const auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        return it == groups.end() ? nullptr : &it->second;
    };
    addRow(tr("Every gated row"), &v.inSample, &v.outOfSample, true);
    for (const auto& [key, stats] : v.inSampleByAccelerator)
        addRow(tr("Accelerator: %1").arg(QString::fromStdString(key)), &stats, find(v.outOfSampleByAccelerator, key), false);
    for (const auto& [key, stats] : v.inSampleByFramework)
        addRow(tr("Framework: %1").arg(QString::fromStdString(key)), &stats, find(v.outOfSampleByFramework, key), false);
    for (const auto& fold : v.folds)
        addRow(tr("Family: %1").arg(QString::fromStdString(fold.family)), find(v.inSampleByFamily, fold.family), &fold.heldOut, false);
    QHeaderView* header = validation_->horizontalHeader();
    for (int c = 1; c < validationModel_->columnCount(); ++c)
        header->resizeSection(c,
            std::max(static_cast<QAbstractItemView*>(validation_)->sizeHintForColumn(c),
                header->fontMetrics().horizontalAdvance(validationModel_->headerData(c, Qt::Horizontal).toString()) + 14));
    const auto ratio = [](double x) { return QStringLiteral("%1").arg(x, 0, 'f', 2); };
    validationNote_->setText(
        tr("In sample: the calibration (a scale on every accelerator's GEMM efficiency, %1; a fixed cost per kernel, %2 µs) fitted on "
           "every gated row, each family weighted once. Out of sample: each family predicted with the calibration fitted without it "
           "— the better guide for a run like none of these.<br><b>Step-time range</b> (what the plan leaves unknown, widened by the "
           "%3 band of these held-out errors, ×%4 to ×%5 of the step): in sample %6 of runs inside, median high/low %7; leave one "
           "family out (each family against a band from the others alone) %8 inside, median high/low %9.")
            .arg(v.fitted.matmulScale, 0, 'f', 3)
            .arg(v.fitted.kernelOverheadSeconds * trainplan::units::microsecondsPerSecond, 0, 'f', 1)
            .arg(QStringLiteral("%1 %").arg(v.band.coverage * 100, 0, 'f', 0), ratio(std::exp(v.band.logLow)),
                ratio(std::exp(v.band.logHigh)), percent(v.inSampleRange.coverage), ratio(v.inSampleRange.medianWidth),
                percent(v.outOfSampleRange.coverage), ratio(v.outOfSampleRange.medianWidth)));
}

void RealityCheckView::fill()
{
    model_->removeRows(0, model_->rowCount());
    if (!error_.isEmpty()) {
        summaryLabel_->setText(QStringLiteral("<font color='%1'>%2</font>").arg(theme::capacity().name(), markup::escaped(error_)));
        plotCases(chart_, {}, nullptr);
        return;
    }
    const auto& s = summary_;
    for (const auto& r : s.rows) {
        const double absError = std::abs(r.error);
        QList<QStandardItem*> items;
        const QString fullId = QString::fromStdString(r.id);
        auto* id = item(shortCaseName(fullId), fullId, Qt::AlignLeft | Qt::AlignVCenter);
        id->setData(fullId, kIdRole);
        id->setToolTip(QStringLiteral("%1<br>%2<br>%3<br>predicted range %4 to %5%6")
                           .arg(markup::escaped(fullId), markup::escaped(QString::fromStdString(r.family)),
                               markup::escaped(QString::fromStdString(r.location)), valueText(r.metric, r.low), valueText(r.metric, r.high),
                               r.inRange ? QString() : tr(" (measured outside)")));
        items << id;
        items << item(shortName(r.metric), int(r.metric), Qt::AlignLeft | Qt::AlignVCenter);
        items << item(valueText(r.metric, r.predicted), r.predicted);
        items << item(valueText(r.metric, r.measured), r.measured);
        auto* err = item(QStringLiteral("%1%2 %").arg(r.error >= 0 ? "+" : "−").arg(absError * 100, 0, 'f', 1), absError);
        items << err;
        auto* gated = item(r.gated ? tr("yes") : tr("no"), int(r.gated), Qt::AlignLeft | Qt::AlignVCenter);
        if (!r.gated)
            gated->setToolTip(tr("Evaluated, not gated: a stack or workload the plan cannot describe (DeepSpeed's ZeRO-3 gathers, "
                                 "MegaScale's modified block), or a peak-memory row"));
        items << gated;
        for (auto* it : items)
            if (!r.gated)
                it->setForeground(theme::faint());
        if (r.gated)
            err->setForeground(errorColor(absError));
        model_->appendRow(items);
    }

    // Number columns as narrow as header and values allow (ResizeToContents reserves a sort
    // arrow's room in each), leaving the case ids the rest.
    QHeaderView* header = table_->horizontalHeader();
    for (int c = 1; c < model_->columnCount(); ++c)
        header->resizeSection(c,
            std::max(static_cast<QAbstractItemView*>(table_)->sizeHintForColumn(c),
                header->fontMetrics().horizontalAdvance(model_->headerData(c, Qt::Horizontal).toString()) + 14));

    // The colour answers "is the median within the gate".
    const bool pass = trainplan::realityErrorVerdict(s.medianAbsError) == trainplan::Verdict::Fine;
    const int notGated = int(s.rows.size()) - s.gatedCount;
    // The memory verdict of the published layouts (all of which trained): "does not fit" in red.
    const std::array<int, 3> fit = trainplan::realityFitCounts(s);
    const QString verdicts = tr(" Memory verdicts of the %1 published layouts: %2 fit, %3 may not fit, "
                                "<font color='%4'>%5 do not fit</font>.")
                                 .arg(fit[0] + fit[1] + fit[2])
                                 .arg(fit[0])
                                 .arg(fit[1])
                                 .arg(theme::verdict(trainplan::memoryVerdict(fit[2] > 0 ? trainplan::MemoryFit::DoesNotFit
                                                                                        : trainplan::MemoryFit::Fits),
                                          theme::ink())
                                          .name())
                                 .arg(fit[2]);
    summaryLabel_->setText(
        tr("<b>Median error <font color='%1'>%2 %</font>, worst %3 % (%4)</b> over %5 published, measured runs (%6), with the "
           "calibration the presets carry.%7 Measured inside the predicted range: %8 of runs, median high/low %9.")
            .arg((pass ? theme::ok() : theme::capacity()).name())
            .arg(s.medianAbsError * 100, 0, 'f', 1)
            .arg(s.worstAbsError * 100, 0, 'f', 1)
            .arg(markup::escaped(QString::fromStdString(s.worstId)))
            .arg(s.gatedCount)
            .arg(tr("Megatron-LM papers of 2021–22; Megatron-Core on H100, BigScience and MegaScale"))
            .arg(notGated > 0
                    ? tr(" %n more shown grey: evaluated, not gated (a workload or stack the plan cannot describe).", nullptr, notGated)
                    : QString())
            .arg(QStringLiteral("%1 %").arg(s.rangeCoverage * 100, 0, 'f', 0))
            .arg(s.medianRangeWidth, 0, 'f', 2)
            + verdicts);
    setPlotMetric(plotMetric_);
}

void RealityCheckView::setPlotMetric(PlotMetric metric)
{
    plotMetric_ = metric;
    const int index = metricBox_->findData(int(metric));
    if (metricBox_->currentIndex() != index) {
        const QSignalBlocker block(metricBox_);
        metricBox_->setCurrentIndex(index);
    }
    RealityMetric m = RealityMetric::Mfu;
    switch (metric) {
    case PlotMetric::All:
        plotCases(chart_, summary_.rows, nullptr);
        return;
    case PlotMetric::TflopsPerGpu:
        m = RealityMetric::HardwareTflopsPerGpu;
        break;
    case PlotMetric::Mfu:
        m = RealityMetric::Mfu;
        break;
    case PlotMetric::IterationSeconds:
        m = RealityMetric::IterationSeconds;
        break;
    case PlotMetric::LayerMilliseconds:
        m = RealityMetric::LayerMilliseconds;
        break;
    }
    plotCases(chart_, summary_.rows, &m);
}
