#include "ui/layoutdiagram/LayoutDiagramView.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "ui/document/PlanDocument.h"

LayoutDiagramView::LayoutDiagramView(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    setMouseTracking(true);  // the pointing-hand cursor over GPUs
    setFocusPolicy(Qt::ClickFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);  // the painter fills every pixel
    connect(doc_, &PlanDocument::planChanged, this, &LayoutDiagramView::refresh);
    refresh();
}

void LayoutDiagramView::refresh()
{
    const trainplan::Plan& plan = doc_->plan();
    if (drawnLayout_ && *drawnLayout_ == plan.layout && drawnCluster_ == plan.cluster && drawnModel_ == plan.model)
        return;
    drawnLayout_ = plan.layout;
    drawnCluster_ = plan.cluster;
    drawnModel_ = plan.model;
    const auto before = diagram_.selectedRank();
    diagram_.setPlan(doc_->plan(), doc_->estimate());
    if (diagram_.selectedRank() != before)  // the selected rank no longer exists
        emit selectedRankChanged(-1);
    update();
}

void LayoutDiagramView::selectRank(std::optional<int> rank)
{
    const auto before = diagram_.selectedRank();
    diagram_.setSelectedRank(rank);
    if (diagram_.selectedRank() != before)
        emit selectedRankChanged(diagram_.selectedRank().value_or(-1));
    update();
}

QSize LayoutDiagramView::sizeHint() const
{
    return {960, 560};
}

QSize LayoutDiagramView::minimumSizeHint() const
{
    // Below this the node labels no longer fit beside their boxes and are left out.
    return {560, 360};
}

bool LayoutDiagramView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = diagram_.toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void LayoutDiagramView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    diagram_.paint(p, QRectF(rect()));
    ++paintCount_;
}

void LayoutDiagramView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    selectRank(diagram_.rankAt(event->position()));
}

void LayoutDiagramView::mouseMoveEvent(QMouseEvent* event)
{
    setCursor(diagram_.rankAt(event->position()) ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
}

void LayoutDiagramView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && diagram_.selectedRank()) {
        selectRank(std::nullopt);
        return;
    }
    QWidget::keyPressEvent(event);
}
