#include "summary/SummaryCard.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

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
    setMinimumWidth(118);
}

void SummaryCard::setValue(const QString& value, const QString& detail, const QColor& accent)
{
    value_->setText(value);
    detail_->setText(detail);
    value_->setStyleSheet(accent.isValid() ? QString("color: %1").arg(accent.name()) : QString());
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
    return detail_->text();
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
