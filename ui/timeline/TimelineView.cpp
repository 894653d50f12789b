#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/document/PlanDocument.h"
#include "ui/timeline/TimelineCanvas.h"

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
    hint_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    tools->addWidget(hint_, 1);  // takes the row's free width (resizeEvent hides it when short)
    tools->addStretch(0);        // ...which, while it is hidden, stays empty after the buttons

    // Rows keep a legible height in a low pane: the drawing scrolls instead of squeezing them.
    scene_.setScrollable(true);
    rowScroll_ = new QScrollBar(Qt::Vertical, this);
    rowScroll_->setToolTip(tr("More stages below (Shift+wheel or Page Down scrolls)"));
    rowScroll_->hide();
    connect(rowScroll_, &QScrollBar::valueChanged, this, [this](int v) {
        if (int(scene_.scroll()) == v)
            return;
        scene_.setScroll(v);
        canvas_->update();
    });
    connect(canvas_, &TimelineCanvas::scrolled, this, [this] { rowScroll_->setValue(int(std::lround(scene_.scroll()))); });
    connect(canvas_, &TimelineCanvas::resized, this, &TimelineView::updateRowScroll);
    auto* body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(0);
    body->addWidget(canvas_, 1);
    body->addWidget(rowScroll_);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addLayout(tools);
    column->addLayout(body, 1);

    connect(doc_, &PlanDocument::planChanged, this, &TimelineView::refresh);
    refresh();
}

void TimelineView::refresh()
{
    // An edit of the assumed MFU or the token budget changes no step's schedule (StepShape.h).
    StepShape shape = StepShape::of(doc_->plan());
    if (scheduled_ && *scheduled_ == shape)
        return;
    scheduled_ = std::move(shape);
    scene_.setAnalysis(doc_->analysis());
    updateRowScroll();
    canvas_->update();
}

void TimelineView::updateRowScroll()
{
    const double range = scene_.scrollRange(QSizeF(canvas_->size()));
    const QSignalBlocker block(rowScroll_);
    rowScroll_->setRange(0, int(std::ceil(range)));
    rowScroll_->setPageStep(std::max(1, canvas_->height()));
    rowScroll_->setSingleStep(std::max(1, canvas_->fontMetrics().height()));
    scene_.setScroll(std::min(scene_.scroll(), range));
    rowScroll_->setValue(int(std::lround(scene_.scroll())));
    rowScroll_->setVisible(range > 0);
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
    scene_.setAnalysis(doc_->analysis());
    updateRowScroll();
    canvas_->update();
}

QImage TimelineView::renderImage(const QSize& size, double devicePixelRatio)
{
    QImage image(size * devicePixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio);
    QPainter p(&image);
    // A picture shows every row, however low it is: no scrolling in it.
    scene_.setScrollable(false);
    scene_.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
    scene_.setScrollable(true);
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
