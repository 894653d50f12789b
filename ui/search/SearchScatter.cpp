#include "ui/search/SearchScatter.h"

#include <QMouseEvent>

SearchScatter::SearchScatter(QWidget* parent)
    : PaintedChart(parent)
{
    setMinimumSize(320, 240);
}

void SearchScatter::setResult(const trainplan::SearchResult& result)
{
    painter_.setResult(result);
    update();
}

void SearchScatter::setCurrentPoint(const std::optional<QPointF>& point)
{
    painter_.setCurrentPoint(point);
    update();
}

void SearchScatter::setSelectedRow(int row)
{
    painter_.setSelectedRow(row);
    update();
}

void SearchScatter::setStale(bool stale)
{
    painter_.setStale(stale);
    update();
}

QString SearchScatter::title() const
{
    QStringList lines;
    for (const auto& note : painter_.notes())
        lines << note.text;
    return lines.join(QLatin1Char('\n'));
}

void SearchScatter::mouseReleaseEvent(QMouseEvent* event)
{
    PaintedChart::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton)
        return;
    const int row = rowAt(event->position().toPoint(), 10);
    if (row >= 0)
        emit rowClicked(row);
}
