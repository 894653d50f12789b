// The dashboard's chart look in one place: compact margins, a slightly smaller bottom
// legend, no animation (every slider tick repaints at once) and no antialiasing (bars
// are axis-aligned rectangles; antialiasing costs milliseconds per frame and buys nothing).
#pragma once

class QChart;
class QChartView;

namespace chartstyle {

// Shows chart in view, styled. QChartView::setChart() does not delete the chart the view showed
// before (not even the one its constructor made): the caller deletes it, or styles that one.
void apply(QChart* chart, QChartView* view);
// A narrow pane cannot fit a row of legend entries: stack them on the right instead.
void fitLegend(QChart* chart, int viewWidth);

}  // namespace chartstyle
