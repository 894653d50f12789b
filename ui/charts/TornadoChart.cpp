#include "charts/TornadoChart.h"

#include <QActionGroup>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QMenu>
#include <QPainter>
#include <QToolTip>

#include "document/PlanDocument.h"
#include "base/Units.h"

TornadoChart::TornadoChart(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(doc_, &PlanDocument::planChanged, this, &TornadoChart::refresh);
    refresh();
}

void TornadoChart::setBasis(trainplan::SensitivityBasis basis)
{
    if (basis == options_.basis)
        return;
    options_.basis = basis;
    refresh();
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

void TornadoChart::setFramework(const trainplan::FrameworkOptions& framework)
{
    if (framework == options_.framework)
        return;
    options_.framework = framework;
    refresh();
}

void TornadoChart::refresh()
{
    QElapsedTimer timer;
    timer.start();
    painter_.setResult(trainplan::sensitivity(doc_->plan(), options_));
    lastMs_ = timer.nsecsElapsed() / trainplan::units::nanosecondsPerMillisecond;
    update();
}

void TornadoChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);  // the painter's colours are for paper (the report), so is the ground
    painter_.paint(p, QRectF(rect()).adjusted(8, 6, -8, -4));
}

bool TornadoChart::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QRectF area = QRectF(rect()).adjusted(8, 6, -8, -4);
        const int k = painter_.barAt(area, help->pos());
        if (k >= 0)
            QToolTip::showText(help->globalPos(), painter_.toolTip(k), this);
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
        a->setChecked(options_.basis == b);
        bases->addAction(a);
    };
    addBasis(tr("Predicted step time"), trainplan::SensitivityBasis::Predicted);
    addBasis(tr("Assumed MFU"), trainplan::SensitivityBasis::Assumed);
    menu.exec(e->globalPos());
}
