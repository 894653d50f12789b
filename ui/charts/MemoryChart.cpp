#include "charts/MemoryChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QLegend>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <cmath>

#include "charts/ChartStyle.h"
#include "document/PlanDocument.h"
#include "style/Theme.h"

namespace {

constexpr double kGB = 1e9;  // the chart's unit: GB = 1e9 bytes

double niceCeiling(double v)
{
    if (v <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * magnitude >= v)
            return step * magnitude;
    return 10 * magnitude;
}

}  // namespace

MemoryChart::MemoryChart(PlanDocument* document, QWidget* parent)
    : QChartView(parent)
    , doc_(document)
    , bars_(new QStackedBarSeries)
    , capacity_(new QLineSeries)
    , stageAxis_(new QBarCategoryAxis)
    , lineAxisX_(new QValueAxis)
    , gbAxis_(new QValueAxis)
{
    const char* names[] = {"Weights", "Gradients", "Optimizer", "Activations", "Buffers"};
    const QColor colors[] = {theme::weights(), theme::gradients(), theme::optimizer(), theme::activations(), theme::buffers()};
    for (int i = 0; i < 5; ++i) {
        sets_[i] = new QBarSet(tr(names[i]));
        sets_[i]->setColor(colors[i]);
        sets_[i]->setBorderColor(colors[i].darker(115));
        // Stages over capacity are "selected": drawn in a hatched, darker tone.
        sets_[i]->setSelectedColor(colors[i].darker(160));
        bars_->append(sets_[i]);
    }
    bars_->setBarWidth(0.6);
    capacity_->setName(tr("Capacity"));
    QPen pen(theme::capacity(), 2, Qt::DashLine);
    capacity_->setPen(pen);

    auto* chart = new QChart;
    chart->addSeries(bars_);
    chart->addSeries(capacity_);
    chart->addAxis(stageAxis_, Qt::AlignBottom);
    chart->addAxis(gbAxis_, Qt::AlignLeft);
    chart->addAxis(lineAxisX_, Qt::AlignTop);
    bars_->attachAxis(stageAxis_);
    bars_->attachAxis(gbAxis_);
    capacity_->attachAxis(lineAxisX_);
    capacity_->attachAxis(gbAxis_);
    lineAxisX_->setVisible(false);
    gbAxis_->setTitleText(tr("GB per GPU"));
    stageAxis_->setTitleText(tr("Pipeline stage"));
    gbAxis_->setLabelFormat("%.0f");
    chartstyle::apply(chart, this);
    setMinimumSize(320, 220);
    connect(doc_, &PlanDocument::planChanged, this, &MemoryChart::refresh);
    refresh();
}

void MemoryChart::refresh()
{
    const auto& est = doc_->estimate();
    const int n = int(est.stages.size());
    QStringList labels;
    QList<qreal> values[5];
    double top = est.capacityBytes / kGB;
    for (const auto& st : est.stages) {
        const auto& m = st.memory;
        const double parts[] = {m.weights, m.gradients, m.optimizer, m.activations, m.buffers};
        for (int i = 0; i < 5; ++i)
            values[i].append(parts[i] / kGB);
        top = std::max(top, m.total / kGB);
        // Plain stage numbers (the axis is titled) so narrow panes never truncate them.
        QString label = QString::number(st.index + 1);
        if (!st.fits)
            label += QStringLiteral(" \u2716");  // heavy X: over capacity
        labels << label;
    }
    // Most ticks (MFU, batch, reliability) leave memory as it was: skip the chart relayout.
    std::vector<double> shown;
    for (const auto& v : values)
        shown.insert(shown.end(), v.begin(), v.end());
    shown.push_back(est.capacityBytes);
    if (shown == shownValues_ && labels == stageAxis_->categories())
        return;
    shownValues_ = std::move(shown);
    for (int i = 0; i < 5; ++i) {
        if (sets_[i]->count() != n) {
            sets_[i]->remove(0, sets_[i]->count());
            sets_[i]->append(values[i]);
        } else {
            for (int s = 0; s < n; ++s)
                sets_[i]->replace(s, values[i][s]);
        }
        sets_[i]->deselectAllBars();
        for (int s = 0; s < n; ++s)
            if (!est.stages[size_t(s)].fits)
                sets_[i]->selectBar(s);
    }
    if (stageAxis_->categories() != labels) {
        stageAxis_->clear();
        stageAxis_->append(labels);
    }
    const double cap = est.capacityBytes / kGB;
    capacity_->replace(QList<QPointF>{{-0.5, cap}, {n - 0.5, cap}});
    lineAxisX_->setRange(-0.5, n - 0.5);
    gbAxis_->setRange(0, niceCeiling(top * 1.08));
    // The pane already says what this is; the title speaks only when something is wrong.
    chart()->setTitle(est.fits ? QString() : tr("<font color='%1'>A stage does NOT fit in %2 GB</font>").arg(theme::capacity().name()).arg(cap, 0, 'f', 0));
}

void MemoryChart::resizeEvent(QResizeEvent* event)
{
    chartstyle::fitLegend(chart(), width());
    QChartView::resizeEvent(event);
}

QStringList MemoryChart::categories() const
{
    return stageAxis_->categories();
}

double MemoryChart::barValue(int set, int stage) const
{
    return sets_[set]->at(stage);
}

double MemoryChart::capacityLine() const
{
    return capacity_->count() ? capacity_->at(0).y() : 0.0;
}
