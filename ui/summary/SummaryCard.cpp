#include "ui/summary/SummaryCard.h"

#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

namespace {

constexpr int kHorizontalMargin = 10;

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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(kHorizontalMargin, 6, kHorizontalMargin, 8);
    layout->setSpacing(1);
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
    layout->addWidget(title_);
    layout->addWidget(value_);
    layout->addWidget(detail_);
    // Cards share the row equally; a text too long for its card is elided, never allowed to
    // widen one card and squeeze its neighbours.
    for (QLabel* label : {title_, value_, detail_})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setMinimumWidth(118);
    elide();
}

void SummaryCard::setTitle(const QString& title)
{
    if (titleFull_ == title)
        return;
    titleFull_ = title;
    elide();
}

QString SummaryCard::titleText() const
{
    return titleFull_;
}

void SummaryCard::setValue(const QString& value, const QString& detail, const QColor& accent, const QString& shortDetail)
{
    // Most ticks leave most cards as they were: eliding shapes text, and a style sheet re-polishes.
    if (value != valueFull_ || detail != detailFull_ || shortDetail != detailShort_) {
        valueFull_ = value;
        detailFull_ = detail;
        detailShort_ = shortDetail;
        elide();
    }
    if (accent != accent_) {
        accent_ = accent;
        value_->setStyleSheet(accent.isValid() ? QString("color: %1").arg(accent.name()) : QString());
    }
}

void SummaryCard::elide()
{
    for (auto [label, full] : {std::pair{title_, &titleFull_}, std::pair{value_, &valueFull_}, std::pair{detail_, &detailFull_}}) {
        const int width = label->contentsRect().width() > 0 ? label->contentsRect().width() : label->width();
        // The detail's shorter wording, whole, before the full one cut short.
        const bool shorter = label == detail_ && !detailShort_.isEmpty()
            && label->fontMetrics().horizontalAdvance(*full) > width && label->fontMetrics().horizontalAdvance(detailShort_) <= width;
        const QString shown = shorter ? detailShort_ : label->fontMetrics().elidedText(*full, Qt::ElideRight, std::max(20, width));
        if (label->text() != shown)
            label->setText(shown);
    }
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

void SummaryCard::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
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
    default:
        QFrame::keyPressEvent(event);
    }
}

QString SummaryCard::valueText() const
{
    return valueFull_;
}

QColor SummaryCard::valueColor() const
{
    return value_->palette().color(QPalette::WindowText);
}

QString SummaryCard::detailText() const
{
    return detailFull_;
}

void SummaryCard::setFill(double fraction, const QColor& color)
{
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
