// Sensitivity of the plan: which inputs move the run most, as a tornado chart drawn by
// TornadoPainter. Reads the document's analysis (Analysis::sensitivity(): computed in the core
// from the settled plan, once per analysis, on first use), so the chart and the report's tornado
// show the same result. A hidden chart asks for nothing: it reads the analysis when shown or
// asked (tornado()). Right-click switches the basis and the measure.
#pragma once

#include <QWidget>

#include "core/analysis/Sensitivity.h"
#include "render/charts/TornadoPainter.h"

class PlanDocument;

class TornadoChart : public QWidget {
    Q_OBJECT

public:
    explicit TornadoChart(PlanDocument* document, QWidget* parent = nullptr);

    // Predicted step time (the model) or the assumed MFU: follows the window's choice.
    void setBasis(trainplan::SensitivityBasis basis);
    trainplan::SensitivityBasis basis() const { return basis_; }
    void setMeasure(TornadoPainter::Measure measure);
    TornadoPainter::Measure measure() const { return painter_.measure(); }

    // The painter with the current analysis's result.
    const TornadoPainter& tornado() const;
    QList<QRectF> barRects() const { return tornado().barRects(rect()); }
    // What reading the result cost the last time it changed: the core's sensitivity when this
    // analysis had not computed it yet, a copy when it had.
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
    void invalidate();

    PlanDocument* doc_;
    trainplan::SensitivityBasis basis_ = trainplan::SensitivityBasis::Predicted;
    // Brought up to date on first read after a change (tornado() is const for its readers).
    mutable TornadoPainter painter_;
    mutable bool stale_ = true;
    mutable double lastMs_ = 0;
};
