#include "render/timeline/TimelineDensityImage.h"

#include <QPainter>

#include "core/base/LargeBuffer.h"

#include <cmath>
#include <cstring>

void TimelineDensityImage::begin(const QRectF& area, double devicePixelRatio, const std::array<QColor, PartCount>& colors, QSize expected)
{
    area_ = area;
    ratio_ = devicePixelRatio > 0 ? devicePixelRatio : 1.0;
    columns_ = std::max(0, int(std::ceil(area.width() * ratio_)));
    rows_ = std::max(0, int(std::ceil(area.height() * ratio_)));
    // The image only grows: a lane whose height changes on every PP tick would otherwise get
    // a fresh allocation each paint, and the kernel's page faults on it cost more than the
    // filling itself. Only the top-left columns_ x rows_ are used and drawn.
    // Its pixels are huge-page backed (LargeBuffer.h): the first paint of a 64-stage lane at
    // 1920x1080 touched about 7 MB of fresh pages, 20 ms of page faults on this project's machines.
    // It grows at once to the expected size, touched while growing: a growth in the middle of
    // a drag (the TP slider's step onto 128, whose lane is taller) spent about a fifth of the
    // tick in page faults on fresh rows.
    if ((image_.width() < columns_ || image_.height() < rows_) && columns_ > 0 && rows_ > 0) {
        const int width = std::max({image_.width(), columns_, expected.width()});
        const int height = std::max({image_.height(), rows_, expected.height()});
        const qsizetype bytesPerLine = qsizetype(width) * qsizetype(sizeof(std::uint32_t));
        const size_t bytes = size_t(bytesPerLine) * size_t(height);
        auto* pixels = static_cast<uchar*>(trainplan::allocateLarge(bytes));
        std::memset(pixels, 0, bytes);
        image_ = QImage(pixels, width, height, bytesPerLine, QImage::Format_ARGB32_Premultiplied, trainplan::releaseLarge, pixels);
    }
    image_.setDevicePixelRatio(ratio_);
    cleared_ = false;  // cleared on the first row that has something to show
    for (int part = 0; part < PartCount; ++part)
        colors_[size_t(part)] = colors[size_t(part)].rgba();  // opaque, so premultiplied as is
    coverage_.assign(size_t(columns_) * PartCount, 0.0f);
    heights_.resize(size_t(columns_) * PartCount);
    touchedFirst_ = columns_;
    touchedLast_ = -1;
    columnsFilled_ = 0;
}

void TimelineDensityImage::beginRow(double top, double bottom)
{
    rowTop_ = top;
    rowBottom_ = bottom;
    touchedFirst_ = columns_;
    touchedLast_ = -1;
}

void TimelineDensityImage::addSpanning(Part part, double c0, double c1)
{
    // Device pixel columns; column c covers [c, c + 1).
    c0 = std::clamp(c0, 0.0, double(columns_));
    c1 = std::clamp(c1, 0.0, double(columns_));
    if (!(c1 > c0))
        return;
    const int first = int(c0);
    const int last = std::min(columns_ - 1, int(std::ceil(c1)) - 1);
    for (int c = first; c <= last; ++c)
        coverage_[size_t(c) * PartCount + part] += float(std::min(c1, c + 1.0) - std::max(c0, double(c)));
    touchedFirst_ = std::min(touchedFirst_, first);
    touchedLast_ = std::max(touchedLast_, last);
}

void TimelineDensityImage::endRow()
{
    if (touchedLast_ < touchedFirst_)
        return;
    if (!cleared_) {
        const size_t rowBytes = size_t(columns_) * sizeof(std::uint32_t);
        for (int y = 0; y < rows_; ++y)
            std::memset(image_.scanLine(y), 0, rowBytes);  // transparent
        cleared_ = true;
    }
    const int y0 = std::clamp(int(std::lround((rowTop_ - area_.top()) * ratio_)), 0, rows_);
    const int y1 = std::clamp(std::max(y0 + 1, int(std::lround((rowBottom_ - area_.top()) * ratio_))), 0, rows_);
    if (y1 - y0 < kMinStackedHeight) {
        blendRow(y0, y1);
        return;
    }
    const float height = float(y1 - y0);
    // Cumulative bar heights per column: forward on top, then backward, then W.
    std::uint32_t* endForward = &heights_[0];
    std::uint32_t* endBackward = endForward + columns_;
    std::uint32_t* endWeightGrad = endBackward + columns_;
    for (int c = touchedFirst_; c <= touchedLast_; ++c) {
        float* cover = &coverage_[size_t(c) * PartCount];
        const float total = cover[Forward] + cover[Backward] + cover[WeightGrad];
        const float scale = (total > 1.0f ? 1.0f / total : 1.0f) * height;  // rounding can overfill a column
        const float forward = cover[Forward] * scale, backward = forward + cover[Backward] * scale;
        endForward[c] = std::uint32_t(forward + 0.5f);
        endBackward[c] = std::uint32_t(backward + 0.5f);
        endWeightGrad[c] = std::uint32_t(backward + cover[WeightGrad] * scale + 0.5f);
        cover[Forward] = cover[Backward] = cover[WeightGrad] = 0;
        columnsFilled_ += total > 0;
    }
    // Pixel h rows below the row's top: forward above its end, then backward, then W, then
    // transparent. The ends only grow from part to part, so three comparisons pick the colour;
    // four pixels at a time (a stage row of a 64-stage lane at 1920x1080 is about 1,700 x 5
    // pixels, and this ran pixel by pixel at a quarter of the timeline's paint).
    using Pixels = std::uint32_t __attribute__((vector_size(16)));
    constexpr int kLanes = int(sizeof(Pixels) / sizeof(std::uint32_t));
    const Pixels forwardColor = Pixels{} + colors_[Forward], backwardColor = Pixels{} + colors_[Backward],
                 weightGradColor = Pixels{} + colors_[WeightGrad];
    for (int y = y0; y < y1; ++y) {
        auto* line = reinterpret_cast<std::uint32_t*>(image_.scanLine(y));
        const std::uint32_t h = std::uint32_t(y - y0);
        const Pixels row = Pixels{} + h;
        int c = touchedFirst_;
        for (; c + kLanes <= touchedLast_ + 1; c += kLanes) {
            Pixels f, b, w;
            std::memcpy(&f, endForward + c, sizeof f);
            std::memcpy(&b, endBackward + c, sizeof b);
            std::memcpy(&w, endWeightGrad + c, sizeof w);
            const Pixels inForward = Pixels(row < f), inBackward = Pixels(row < b), inWeightGrad = Pixels(row < w);
            const Pixels pixels = (inForward & forwardColor) | (inBackward & ~inForward & backwardColor)
                | (inWeightGrad & ~inBackward & weightGradColor);
            std::memcpy(line + c, &pixels, sizeof pixels);
        }
        for (; c <= touchedLast_; ++c)
            line[c] = h < endForward[c] ? colors_[Forward]
                : h < endBackward[c]    ? colors_[Backward]
                : h < endWeightGrad[c]  ? colors_[WeightGrad]
                                        : 0u;
    }
    touchedFirst_ = columns_;
    touchedLast_ = -1;
}

void TimelineDensityImage::blendRow(int y0, int y1)
{
    // Each column's colour is the parts' colours weighted by their busy share, its alpha the
    // total share (premultiplied ARGB), so idle time lets the bubble show through.
    auto channel = [](std::uint32_t rgb, int shift) { return float((rgb >> shift) & 0xff); };
    for (int c = touchedFirst_; c <= touchedLast_; ++c) {
        float* cover = &coverage_[size_t(c) * PartCount];
        const float total = cover[Forward] + cover[Backward] + cover[WeightGrad];
        const float scale = total > 1.0f ? 1.0f / total : 1.0f;
        float a = 0, r = 0, g = 0, b = 0;
        for (int part = 0; part < PartCount; ++part) {
            const float share = cover[part] * scale;
            const std::uint32_t rgb = colors_[size_t(part)];
            a += share * 255.0f;
            r += share * channel(rgb, 16);
            g += share * channel(rgb, 8);
            b += share * channel(rgb, 0);
            cover[part] = 0;
        }
        const std::uint32_t pixel =
            std::uint32_t(a + 0.5f) << 24 | std::uint32_t(r + 0.5f) << 16 | std::uint32_t(g + 0.5f) << 8 | std::uint32_t(b + 0.5f);
        for (int y = y0; y < y1; ++y)
            reinterpret_cast<std::uint32_t*>(image_.scanLine(y))[c] = pixel;
        columnsFilled_ += total > 0;
    }
    touchedFirst_ = columns_;
    touchedLast_ = -1;
}

void TimelineDensityImage::draw(QPainter& painter) const
{
    if (!cleared_)
        return;
    painter.drawImage(area_.topLeft(), image_, QRectF(0, 0, columns_, rows_));
}
