#include "timeline/TimelineView.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

#include "document/PlanDocument.h"
#include "timeline/TimelineCanvas.h"

TimelineView::TimelineView(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
    , canvas_(new TimelineCanvas(&scene_, this))
    , compare_(new QAction(tr("Compare schedules"), this))
    , fit_(new QAction(tr("Fit"), this))
{
    compare_->setCheckable(true);
    compare_->setToolTip(tr("Stack GPipe, 1F1B, interleaved 1F1B and zero-bubble (ZB-H1) timelines of this plan on one time axis"));
    fit_->setToolTip(tr("Show the whole step (double-click the timeline, or press 0)"));
    connect(compare_, &QAction::toggled, this, &TimelineView::setComparison);
    connect(fit_, &QAction::triggered, this, [this] {
        scene_.fit();
        canvas_->update();
    });

    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(0, 0, 0, 0);
    tools->setSpacing(4);
    for (QAction* action : {compare_, fit_}) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        tools->addWidget(button);
    }
    hint_ = new QLabel(tr("Wheel: zoom · drag: pan · double-click: fit · hover a block for its details"), this);
    hint_->setForegroundRole(QPalette::PlaceholderText);
    // The hint gives way to a narrow pane instead of widening it.
    hint_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    tools->addStretch(1);
    tools->addWidget(hint_);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addLayout(tools);
    column->addWidget(canvas_, 1);

    connect(doc_, &PlanDocument::planChanged, this, &TimelineView::refresh);
    refresh();
}

void TimelineView::refresh()
{
    scene_.setAnalysis(doc_->analysis());
    canvas_->update();
}

void TimelineView::setComparison(bool on)
{
    if (on != compare_->isChecked()) {
        compare_->setChecked(on);  // toggled() comes back here
        return;
    }
    if (on == scene_.comparison())
        return;
    scene_.setComparison(on);
    canvas_->update();
}

QImage TimelineView::renderImage(const QSize& size, double devicePixelRatio)
{
    QImage image(size * devicePixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio);
    QPainter p(&image);
    scene_.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
    canvas_->update();  // hit-testing follows the last paint: give it back to the canvas
    return image;
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Shown whole or not at all: the tool buttons take about 200 px.
    if (hint_)
        hint_->setVisible(width() >= hint_->sizeHint().width() + 220);
}

QSize TimelineView::sizeHint() const
{
    return {960, 560};
}

QSize TimelineView::minimumSizeHint() const
{
    // Below this the legend wraps to three lines and, comparing schedules, the in-flight
    // strip gives way to the rows.
    return {560, 360};
}
