// Memory per GPU for every pipeline stage, drawn into any QPainter: a stacked bar per stage
// (one segment per memory component and reserve term, its value written on it where it fits;
// the legend lists the parts some stage has), the stage's total above it, and the GPU's capacity as a labelled dashed line. A stage over
// capacity is drawn darker and marked with a cross. The window, the PDF report and the slides share it; hover text comes from the geometry
// of the last paint.
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

#include "core/estimate/Estimate.h"
#include "core/estimate/MemoryRange.h"

class QPainter;

class MemoryChartPainter {
public:
    // Components in stacking order (bottom first): the model and its activations, then the
    // runtime reserve term by term.
    enum Part {
        Weights,
        Gradients,
        Optimizer,
        Activations,
        ShardingBuffers,
        CudaContext,
        Workspace,
        NcclBuffers,
        Fragmentation,
        Allowance,
        PartCount
    };
    static QString partName(int part);
    static QColor partColor(int part);
    static double partBytes(const trainplan::MemoryBreakdown& m, int part);

    void setEstimate(const trainplan::Estimate& est);
    // The memory range of the fullest stage (estimate/MemoryRange.h): drawn as a whisker beside its
    // bar, coloured and titled by its verdict (MemoryFit.h) and quoted in its tooltip. Call after
    // setEstimate(); a range of 0, 0 draws none.
    void setRange(const trainplan::MemoryRange& range);
    trainplan::MemoryFit fit() const { return range_.fit; }

    int stageCount() const { return int(stages_.size()); }
    double valueBytes(int part, int stage) const;
    double totalBytes(int stage) const;
    bool stageFits(int stage) const { return stages_[size_t(stage)].fits; }
    double capacityBytes() const { return capacity_; }
    bool allFit() const { return allFit_; }
    // "1", "2 ✖" (over capacity): the stage axis labels.
    QStringList stageLabels() const;
    // What a person reading the chart is told first: empty when every stage fits and the range's
    // verdict is "fits".
    QString warningTitle() const;

    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;
    // The stage whose bar is under point (in the last paint's coordinates), or -1.
    int stageAt(QPointF point) const;
    QString toolTip(int stage) const;

private:
    struct Stage {
        double parts[PartCount] = {};
        double total = 0;
        int layers = 0;
        bool hasEmbedding = false, hasLmHead = false, fits = true;
    };
    std::vector<Stage> stages_;
    double capacity_ = 0;
    int fullest_ = 0;
    trainplan::MemoryRange range_;
    bool allFit_ = true;
    // Geometry of the last paint, for hit-testing.
    mutable QRectF plot_;
    mutable double slot_ = 0;
};
