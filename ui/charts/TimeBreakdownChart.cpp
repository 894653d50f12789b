#include "charts/TimeBreakdownChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

#include "charts/ChartStyle.h"
#include "document/PlanDocument.h"
#include "style/Theme.h"

TimeBreakdownChart::TimeBreakdownChart(PlanDocument* document, QWidget* parent)
    : QChartView(parent)
    , doc_(document)
    , secondsAxis_(new QValueAxis)
{
    const char* names[] = {"Compute", "Memory-bound", "Recompute", "TP/CP/ZeRO comm.", "PP sends", "Bubble", "DP tail"};
    const QColor colors[] = {theme::compute(),  theme::memoryBound(), theme::recompute(), theme::tpComm(),
                             theme::ppComm(),   theme::bubble(),      theme::dpExposed()};
    auto* series = new QHorizontalStackedBarSeries;
    for (int i = 0; i < PartCount; ++i) {
        sets_[i] = new QBarSet(tr(names[i]));
        sets_[i]->setColor(colors[i]);
        sets_[i]->setBorderColor(colors[i].darker(115));
        sets_[i]->append({0.0, 0.0});
        series->append(sets_[i]);
    }
    series->setBarWidth(0.55);
    auto* rows = new QBarCategoryAxis;
    // Short row names: the pane is often narrow.
    rows->append({tr("At MFU"), tr("Predicted")});
    auto* chart = new QChart;
    chart->addSeries(series);
    chart->addAxis(rows, Qt::AlignLeft);
    chart->addAxis(secondsAxis_, Qt::AlignBottom);
    series->attachAxis(rows);
    series->attachAxis(secondsAxis_);
    secondsAxis_->setTitleText(tr("seconds per step"));
    secondsAxis_->setLabelFormat("%.2f");
    chartstyle::apply(chart, this);
    setMinimumSize(320, 180);
    connect(doc_, &PlanDocument::planChanged, this, &TimeBreakdownChart::refresh);
    refresh();
}

void TimeBreakdownChart::refresh()
{
    const auto& e = doc_->estimate();
    const auto& c = doc_->predicted().components;
    const double step = e.time.stepSeconds;
    const double bubble = step * e.pipeline.bubbleFraction;
    const double assumed[PartCount] = {step - bubble, 0, 0, 0, 0, bubble, 0};
    const double predicted[PartCount] = {c.forwardCompute + c.backwardCompute, c.memoryBound + c.optimizer, c.recompute,
                                         c.tpCommunication + c.cpCommunication + c.zeroCommunication, c.ppSend, c.pipelineBubble,
                                         c.dpCommunication};
    for (int i = 0; i < PartCount; ++i) {
        sets_[i]->replace(AssumedRow, assumed[i]);
        sets_[i]->replace(PredictedRow, predicted[i]);
    }
    const double total = std::max(step, doc_->predicted().stepSeconds);
    secondsAxis_->setRange(0, total * 1.05);
    secondsAxis_->applyNiceNumbers();
    secondsAxis_->setLabelFormat(total < 0.1 ? "%.3f" : total < 10 ? "%.1f" : "%.0f");
}

void TimeBreakdownChart::resizeEvent(QResizeEvent* event)
{
    chartstyle::fitLegend(chart(), width());
    QChartView::resizeEvent(event);
}

double TimeBreakdownChart::value(int set, int row) const
{
    return sets_[set]->at(row);
}
