#include "summary/SummaryCard.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

SummaryCard::SummaryCard(const QString& title, QWidget* parent)
    : QFrame(parent)
    , title_(new QLabel(title, this))
    , value_(new QLabel(this))
    , detail_(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 8);
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
}

void SummaryCard::setTitle(const QString& title)
{
    if (title_->text() != title)
        title_->setText(title);
}

QString SummaryCard::titleText() const
{
    return title_->text();
}

void SummaryCard::setValue(const QString& value, const QString& detail, const QColor& accent)
{
    value_->setText(value);
    detailFull_ = detail;
    elide();
    value_->setStyleSheet(accent.isValid() ? QString("color: %1").arg(accent.name()) : QString());
}

void SummaryCard::elide()
{
    const int width = detail_->contentsRect().width() > 0 ? detail_->contentsRect().width() : detail_->width();
    const QString shown = detail_->fontMetrics().elidedText(detailFull_, Qt::ElideRight, std::max(20, width));
    if (detail_->text() != shown)
        detail_->setText(shown);
}

void SummaryCard::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    elide();
}

QString SummaryCard::valueText() const
{
    return value_->text();
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
