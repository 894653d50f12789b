// The timeline's level of detail: blocks thinner than a few pixels are not drawn one by one
// (a p = 64, m = 1,024, v = 4 step has half a million of them) but summed per device pixel
// column, and each column of a stage's row is drawn as a small stacked bar, forward on top,
// then backward, then W, in proportion to the busy time in that column; the rest stays
// transparent so the bubble shading shows through. Rows under kMinStackedHeight device
// pixels cannot show a stack (a 1 px row would flicker between parts from row to row) and
// get the parts' colours blended by share instead. One image per lane, one drawImage.
#pragma once

#include <QColor>
#include <QImage>
#include <QRectF>
#include <QSize>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

class QPainter;

class TimelineDensityImage {
public:
    enum Part { Forward, Backward, WeightGrad, PartCount };
    static constexpr int kMinStackedHeight = 3;

    // Starts an image over `area` (logical units) at the device's pixel ratio. `expected`
    // (device pixels) is the largest area the image is likely to need, e.g. the device's size:
    // the image grows to it at once, and its pages are touched then, so an area that grows later
    // (the next PP or TP tick) finds memory that is already there.
    void begin(const QRectF& area, double devicePixelRatio, const std::array<QColor, PartCount>& colors, QSize expected = {});
    // Rows are filled one at a time: beginRow, add the row's thin blocks, endRow.
    void beginRow(double top, double bottom);
    // Busy from logical x0 to x1. Inline: it runs once per thin block, half a million
    // times per paint; most start and end in the same column or the next.
    void add(Part part, double x0, double x1)
    {
        const double c0 = (x0 - area_.left()) * ratio_, c1 = (x1 - area_.left()) * ratio_;
        const int first = int(c0), last = int(c1);
        if (c0 >= 0 && c1 < columns_ && last - first <= 1) {
            // Within one column, or across one column boundary.
            const double boundary = std::min(c1, double(first + 1));
            coverage_[size_t(first) * PartCount + part] += float(boundary - c0);
            coverage_[size_t(last) * PartCount + part] += float(c1 - boundary);
            touchedFirst_ = std::min(touchedFirst_, first);
            touchedLast_ = std::max(touchedLast_, last);
            return;
        }
        addSpanning(part, c0, c1);
    }
    void endRow();
    void draw(QPainter& painter) const;

    bool isEmpty() const { return columnsFilled_ == 0; }
    int columnsFilled() const { return columnsFilled_; }  // row pixel columns holding time
    int columns() const { return columns_; }

private:
    void addSpanning(Part part, double c0, double c1);
    void blendRow(int y0, int y1);

    QRectF area_;
    double ratio_ = 1;
    int columns_ = 0, rows_ = 0;  // device pixels in use, from the image's top left
    QImage image_;  // at least columns_ x rows_; kept across paints
    bool cleared_ = false;
    std::array<std::uint32_t, PartCount> colors_{};
    std::vector<float> coverage_;  // per column and part: the fraction of the pixel busy
    std::vector<std::uint32_t> heights_;  // per part, then column: cumulative bar heights (forward's, backward's, W's)
    int touchedFirst_ = 0, touchedLast_ = -1;
    double rowTop_ = 0, rowBottom_ = 0;
    int columnsFilled_ = 0;
};
