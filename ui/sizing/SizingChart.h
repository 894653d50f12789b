// The sizing chart in the window (render/sizing/SizingChartPainter.h): hover names a point,
// a click selects it and a double click opens it as the plan.
#pragma once

#include <QWidget>

#include "render/sizing/SizingChartPainter.h"

class SizingChart : public QWidget {
    Q_OBJECT

public:
    explicit SizingChart(QWidget* parent = nullptr);
    void setResult(const trainplan::SizingResult* result);
    // Said after each MFU in the tooltip (trainplan::mfuBasisNote of the sized plan).
    void setMfuBasisNote(const QString& note) { mfuBasisNote_ = note; }

signals:
    void pointClicked(int index);
    void pointActivated(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    SizingChartPainter painter_;
    const trainplan::SizingResult* result_ = nullptr;
    QString mfuBasisNote_;
};
