// Where a step's time goes, drawn into any QPainter: the predicted step by component
// (compute, memory-bound work, recompute, exposed TP/CP/ZeRO collectives, PP sends, bubble,
// exposed DP tail, kernel overheads) beside the step at the assumed MFU (compute and bubble only),
// on one seconds axis. Each segment carries its value where it fits, each row its total, and the
// predicted row its honest range as a whisker. Window, PDF and
// slides share it; hover text comes from the geometry of the last paint.
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

#include "core/analysis/Analysis.h"

class QPainter;

class StepTimeChartPainter {
public:
    enum Part { Compute, MemoryBound, Recompute, Collectives, EpAllToAll, ExpertImbalance, PpSend, Bubble, DpExposed, KernelOverhead, PartCount };
    enum Row { AssumedRow, PredictedRow, RowCount };
    static QString partName(int part);
    static QColor partColor(int part);

    void setAnalysis(const trainplan::Analysis& analysis);

    double value(int part, int row) const { return values_[row][part]; }  // seconds
    double total(int row) const;
    QString rowLabel(int row) const;  // names the basis the way every view does

    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;
    // The (row, part) under point in the last paint, or {-1, -1}.
    std::pair<int, int> segmentAt(QPointF point) const;
    QString toolTip(int row, int part) const;
    // The last paint's plot area (bars and grid; tick labels start 2 px under it) and its
    // range line's text (empty when no range was drawn).
    QRectF plotRect() const { return plot_; }
    QRectF rangeLabelRect() const { return rangeLabel_; }
    double barHeight() const { return barH_; }

private:
    double values_[RowCount][PartCount] = {};
    double rangeLow_ = 0, rangeHigh_ = 0;  // predicted step at the optimistic and pessimistic ends
    double rangeCoverage_ = 0;             // the model-error band's level (PredictedRange::coverage)
    double mfu_[RowCount] = {};
    mutable QRectF plot_, rangeLabel_;
    mutable double rowPitch_ = 0, secondsPerPixel_ = 0, barH_ = 0;
};
