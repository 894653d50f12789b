// Sensitivity of the plan : which inputs move the run most, as a tornado chart drawn
// by TornadoPainter. Follows the document: trainplan::sensitivity() of the default plan takes
// a fraction of a millisecond, so it is recomputed directly on every planChanged (no debounce;
// lastUpdateMilliseconds() reports the cost). Right-click switches the basis and the measure.
#pragma once

#include <QWidget>

#include "charts/TornadoPainter.h"
#include "analysis/Sensitivity.h"

class PlanDocument;

class TornadoChart : public QWidget {
    Q_OBJECT

public:
    explicit TornadoChart(PlanDocument* document, QWidget* parent = nullptr);

    // Predicted step time (the model) or the assumed MFU: follows the window's choice.
    void setBasis(trainplan::SensitivityBasis basis);
    trainplan::SensitivityBasis basis() const { return options_.basis; }
    void setMeasure(TornadoPainter::Measure measure);
    TornadoPainter::Measure measure() const { return painter_.measure(); }
    void setFramework(const trainplan::FrameworkOptions& framework);

    const TornadoPainter& tornado() const { return painter_; }
    QList<QRectF> barRects() const { return painter_.barRects(rect()); }
    double lastUpdateMilliseconds() const { return lastMs_; }

    QSize sizeHint() const override { return {640, 420}; }
    QSize minimumSizeHint() const override { return {360, 240}; }

signals:
    void basisChanged(trainplan::SensitivityBasis basis);
    void measureChanged(TornadoPainter::Measure measure);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void refresh();

    PlanDocument* doc_;
    trainplan::SensitivityOptions options_;
    TornadoPainter painter_;
    double lastMs_ = 0;
};
