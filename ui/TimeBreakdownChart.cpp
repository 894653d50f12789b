#include "TimeBreakdownChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

#include "ChartStyle.h"
#include "PlanDocument.h"
#include "Theme.h"

TimeBreakdownChart::TimeBreakdownChart(PlanDocument* document, QWidget* parent)
    : QChartView(parent)
    , doc_(document)
    , secondsAxis_(new QValueAxis)
{
    const char* names[] = {"Compute", "Bubble", "TP comm", "PP comm", "DP (hidden)", "DP (exposed)"};
    const QColor colors[] = {theme::compute(), theme::bubble(), theme::tpComm(), theme::ppComm(), theme::dpHidden(), theme::dpExposed()};
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
    // Row "Step": the step at the assumed MFU; row "Comm.": the communication that must fit
    // inside it. Short names: the pane is often narrow.
    rows->append({tr("Comm."), tr("Step")});
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
    const auto& c = e.communication;
    const double step = e.time.stepSeconds;
    const double bubble = step * e.pipeline.bubbleFraction;
    const double dpExposed = std::max(0.0, c.dpSeconds - c.dpBackwardWindowSeconds);
    const double stepRow[] = {step - bubble, bubble, 0, 0, 0, 0};
    const double commRow[] = {0, 0, c.tpSecondsPerStep + c.cpSecondsPerStep, c.ppSecondsPerStep + c.zero3SecondsPerStep, c.dpSeconds - dpExposed, dpExposed};
    double total = step;
    double comm = 0;
    for (int i = 0; i < PartCount; ++i) {
        sets_[i]->replace(0, commRow[i]);
        sets_[i]->replace(1, stepRow[i]);
        comm += commRow[i];
    }
    total = std::max(total, comm);
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
