#include "ui/sizing/SizingChart.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "core/base/Format.h"

SizingChart::SizingChart(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(360, 260);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void SizingChart::setResult(const trainplan::SizingResult* result)
{
    result_ = result;
    painter_.setResult(result);
    update();
}

void SizingChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    painter_.paint(p, QRectF(rect()));
}

void SizingChart::mouseMoveEvent(QMouseEvent* event)
{
    const int i = painter_.pointAt(event->position());
    if (i < 0 || !result_) {
        QToolTip::hideText();
        return;
    }
    const trainplan::SizingPoint& pt = result_->points[size_t(i)];
    using namespace trainplan;
    QString text = QStringLiteral("<b>%1 %2</b><br>TP %3 · PP %4 · DP %5").arg(QString::fromStdString(formatInteger(pt.gpus)),
        QString::fromStdString(pt.accelerator)).arg(pt.layout.tp).arg(pt.layout.pp).arg(pt.layout.dp);
    if (pt.layout.cp > 1)
        text += QStringLiteral(" · CP %1").arg(pt.layout.cp);
    if (pt.layout.ep > 1)
        text += QStringLiteral(" · EP %1").arg(pt.layout.ep);
    text += QStringLiteral("<br>%1 days (%2 – %3), predicted, with failures").arg(QString::fromStdString(formatNumber(pt.days)),
        QString::fromStdString(formatNumber(pt.daysLow)), QString::fromStdString(formatNumber(pt.daysHigh)));
    text += pt.usd ? QStringLiteral("<br>$%1 · ").arg(QString::fromStdString(formatCount(*pt.usd))) : QStringLiteral("<br>");
    const QString mfu = QString::fromStdString(formatPercent(pt.mfu)) + (mfuBasisNote_.isEmpty() ? QString() : QLatin1Char(' ') + mfuBasisNote_);
    text += QStringLiteral("%1 GPU-hours · MFU %2").arg(QString::fromStdString(formatInteger(pt.gpuHours)), mfu);
    text += tr("<br><i>Double-click opens it as the plan.</i>");
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void SizingChart::mousePressEvent(QMouseEvent* event)
{
    const int i = painter_.pointAt(event->position());
    if (i >= 0)
        emit pointClicked(i);
}

void SizingChart::mouseDoubleClickEvent(QMouseEvent* event)
{
    const int i = painter_.pointAt(event->position());
    if (i >= 0)
        emit pointActivated(i);
}
