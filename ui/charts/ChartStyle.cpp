#include "ui/charts/ChartStyle.h"

#include <QChart>
#include <QChartView>
#include <QLegend>

namespace chartstyle {

void apply(QChart* chart, QChartView* view)
{
    chart->legend()->setAlignment(Qt::AlignBottom);
    QFont legendFont = chart->legend()->font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.9);
    chart->legend()->setFont(legendFont);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    chart->setAnimationOptions(QChart::NoAnimation);
    view->setChart(chart);
    view->setRenderHint(QPainter::Antialiasing, false);
    // Repaint only what changed, without saving painter state per item: charts repaint on
    // every slider tick.
    view->setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    view->setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
}

void fitLegend(QChart* chart, int viewWidth)
{
    chart->legend()->setAlignment(viewWidth < 520 ? Qt::AlignRight : Qt::AlignBottom);
}

}  // namespace chartstyle
