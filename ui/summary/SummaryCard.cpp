#include "ui/summary/SummaryCard.h"

#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace {

constexpr int kHorizontalMargin = 10;
constexpr int kTopMargin = 6;
constexpr int kBottomMargin = 8;
constexpr int kLineSpacing = 1;

}  // namespace

SummaryCard::SummaryCard(const QString& title, QWidget* parent)
    : QFrame(parent)
    , title_(new QLabel(this))
    , value_(new QLabel(this))
    , detail_(new QLabel(this))
    , titleFull_(title)
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    // Reachable with Tab (Return opens its math) and clickable.
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::PointingHandCursor);
    QFont small = title_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    title_->setFont(small);
    title_->setForegroundRole(QPalette::PlaceholderText);
    QFont big = value_->font();
    big.setPointSizeF(big.pointSizeF() * 1.55);
    big.setBold(true);
    value_->setFont(big);
    detail_->setFont(small);
    detail_->setForegroundRole(QPalette::PlaceholderText);
    // Cards share the row equally; a text too long for its card is elided, never allowed to
    // widen one card and squeeze its neighbours.
    for (QLabel* label : {title_, value_, detail_})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setMinimumWidth(118);
    placeLines();
    elide();
}

// The three lines are placed by hand, not by a QLayout: a label's new text asks its parent's
// layout for a relayout, and QLayout::activate() passes that on to the window's whole layout
// though a card's lines keep their heights. Every tick changes some card, so with a layout
// every tick re-laid out the window.
QSize SummaryCard::sizeHint() const
{
    int height = kTopMargin + kBottomMargin + 2 * kLineSpacing + 2 * frameWidth();
    for (const QLabel* label : {title_, value_, detail_})
        height += label->fontMetrics().height();
    return {2 * kHorizontalMargin + 2 * frameWidth(), height};
}

QSize SummaryCard::minimumSizeHint() const
{
    return sizeHint();
}

void SummaryCard::placeLines()
{
    const QRect inside = contentsRect().adjusted(kHorizontalMargin, kTopMargin, -kHorizontalMargin, -kBottomMargin);
    int y = inside.top();
    for (QLabel* label : {title_, value_, detail_}) {
        const int h = label->fontMetrics().height();
        label->setGeometry(inside.left(), y, inside.width(), h);
        y += h + kLineSpacing;
    }
}

void SummaryCard::setTitle(const QString& title)
{
    if (titleFull_ == title)
        return;
    titleFull_ = title;
    elideLine(title_, titleFull_);
}

QString SummaryCard::titleText() const
{
    return titleFull_;
}

void SummaryCard::setValue(const QString& value, const QString& detail, const QColor& accent, const QString& shortDetail)
{
    // Most ticks leave most lines as they were, and eliding shapes text: only a changed line is
    // elided again.
    if (value != valueFull_) {
        valueFull_ = value;
        elideLine(value_, valueFull_);
    }
    if (detail != detailFull_ || shortDetail != detailShort_) {
        detailFull_ = detail;
        detailShort_ = shortDetail;
        elideLine(detail_, detailFull_);
    }
    if (accent != accent_) {
        accent_ = accent;
        // A palette, not a style sheet: setting a style sheet re-polishes the label, which cost
        // a tenth of a drag's tick (profiled) when a verdict changed the colour. An empty
        // palette sets no role, so the label follows the card's again. The role is the one the
        // label draws with: Text, as the card's background is Base.
        QPalette palette;
        if (accent.isValid())
            palette.setColor(value_->foregroundRole(), accent);
        value_->setPalette(palette);
    }
}

void SummaryCard::elide()
{
    elideLine(title_, titleFull_);
    elideLine(value_, valueFull_);
    elideLine(detail_, detailFull_);
}

void SummaryCard::elideLine(QLabel* label, const QString& full)
{
    const int width = label->contentsRect().width() > 0 ? label->contentsRect().width() : label->width();
    // The detail's shorter wording, whole, before the full one cut short.
    const bool shorter = label == detail_ && !detailShort_.isEmpty() && label->fontMetrics().horizontalAdvance(full) > width
        && label->fontMetrics().horizontalAdvance(detailShort_) <= width;
    const QString shown = shorter ? detailShort_ : label->fontMetrics().elidedText(full, Qt::ElideRight, std::max(20, width));
    if (label->text() != shown)
        label->setText(shown);
}

int SummaryCard::fullWidth() const
{
    int widest = 0;
    for (auto [label, full] : {std::pair{title_, &titleFull_}, std::pair{value_, &valueFull_}, std::pair{detail_, &detailFull_}})
        widest = std::max(widest, label->fontMetrics().horizontalAdvance(*full) + 1);
    return widest + 2 * kHorizontalMargin + 2 * frameWidth();
}

bool SummaryCard::isElided() const
{
    return title_->text() != titleFull_ || value_->text() != valueFull_
        || (detail_->text() != detailFull_ && (detailShort_.isEmpty() || detail_->text() != detailShort_));
}

void SummaryCard::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) {
        updateGeometry();  // the lines' heights come from their fonts
        placeLines();
    }
}

void SummaryCard::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    placeLines();
    elide();
}

void SummaryCard::mousePressEvent(QMouseEvent* event)
{
    pressed_ = event->button() == Qt::LeftButton;
    QFrame::mousePressEvent(event);
}

void SummaryCard::mouseReleaseEvent(QMouseEvent* event)
{
    // A click is a press and a release on the card: dragging off it cancels.
    const bool click = pressed_ && event->button() == Qt::LeftButton && rect().contains(event->position().toPoint());
    pressed_ = false;
    QFrame::mouseReleaseEvent(event);
    if (click)
        emit activated(false);
}

void SummaryCard::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
        emit activated(true);
        event->accept();
        return;
    default: QFrame::keyPressEvent(event);
    }
}

QString SummaryCard::valueText() const
{
    return valueFull_;
}

QColor SummaryCard::valueColor() const
{
    return value_->palette().color(value_->foregroundRole());
}

QString SummaryCard::detailText() const
{
    return detailFull_;
}

void SummaryCard::setFill(double fraction, const QColor& color)
{
    if (fraction == fill_ && color == fillColor_)
        return;  // a repaint of the card repaints its three lines too
    fill_ = fraction;
    fillColor_ = color;
    update();
}

void SummaryCard::paintEvent(QPaintEvent* event)
{
    QFrame::paintEvent(event);
    if (fill_ < 0)
        return;
    QPainter p(this);
    const QRectF track(10, height() - 6, width() - 20, 3);
    p.fillRect(track, palette().color(QPalette::Midlight));
    p.fillRect(QRectF(track.x(), track.y(), track.width() * std::min(1.0, fill_), track.height()), fillColor_);
}
