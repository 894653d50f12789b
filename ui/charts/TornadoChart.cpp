#include "ui/charts/TornadoChart.h"

#include <QActionGroup>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QMenu>
#include <QPainter>
#include <QToolTip>

#include "core/base/Units.h"
#include "ui/document/PlanDocument.h"

TornadoChart::TornadoChart(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(doc_, &PlanDocument::planChanged, this, &TornadoChart::invalidate);
}

void TornadoChart::setBasis(trainplan::SensitivityBasis basis)
{
    if (basis == basis_)
        return;
    basis_ = basis;
    invalidate();
    emit basisChanged(basis);
}

void TornadoChart::setMeasure(TornadoPainter::Measure measure)
{
    if (measure == painter_.measure())
        return;
    painter_.setMeasure(measure);
    update();
    emit measureChanged(measure);
}

void TornadoChart::invalidate()
{
    stale_ = true;
    update();  // a hidden widget ignores it: nothing is computed for a chart nobody sees
}

const TornadoPainter& TornadoChart::tornado() const
{
    if (stale_) {
        QElapsedTimer timer;
        timer.start();
        painter_.setResult(doc_->analysis().sensitivity(basis_));
        lastMs_ = double(timer.nsecsElapsed()) / trainplan::units::nanosecondsPerMillisecond;
        stale_ = false;
    }
    return painter_;
}

void TornadoChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);  // the painter's colours are for paper (the report), so is the ground
    tornado().paint(p, QRectF(rect()).adjusted(8, 6, -8, -4));
}

bool TornadoChart::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QRectF area = QRectF(rect()).adjusted(8, 6, -8, -4);
        const int k = tornado().barAt(area, help->pos());
        if (k >= 0)
            QToolTip::showText(help->globalPos(), tornado().toolTip(k), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void TornadoChart::contextMenuEvent(QContextMenuEvent* e)
{
    QMenu menu(this);
    auto* measures = new QActionGroup(&menu);
    auto addMeasure = [&](const QString& text, TornadoPainter::Measure m) {
        QAction* a = menu.addAction(text, this, [this, m] { setMeasure(m); });
        a->setCheckable(true);
        a->setChecked(painter_.measure() == m);
        measures->addAction(a);
    };
    addMeasure(tr("Days with failures"), TornadoPainter::Measure::PaddedDays);
    addMeasure(tr("Step time"), TornadoPainter::Measure::StepSeconds);
    menu.addSeparator();
    auto* bases = new QActionGroup(&menu);
    auto addBasis = [&](const QString& text, trainplan::SensitivityBasis b) {
        QAction* a = menu.addAction(text, this, [this, b] { setBasis(b); });
        a->setCheckable(true);
        a->setChecked(basis_ == b);
        bases->addAction(a);
    };
    addBasis(tr("Predicted step time"), trainplan::SensitivityBasis::Predicted);
    addBasis(tr("Assumed MFU"), trainplan::SensitivityBasis::Assumed);
    menu.exec(e->globalPos());
}
