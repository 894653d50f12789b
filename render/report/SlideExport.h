// Slides for design reviews: every view as a 16:9 slide with a title and the key figures,
// written as PNG (1920x1080 and 2x), SVG, and one deck PDF. Presentation mode paints the
// same slides on screen.
#pragma once

#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

#include "report/ReportPainter.h"

class QPainter;
class ReportContext;

struct Slide {
    ReportView view;
    int section = 0;
    int page = 0;      // text views that overflow one slide continue on the next
    QString fileStem;  // "03-memory"
};

namespace slideexport {

inline constexpr double kWidth = 1920;
inline constexpr double kHeight = 1080;
inline constexpr double kTextScale = 1.8;  // slide type is 1.8x document type

std::vector<Slide> slides(const ReportContext& context);
// The one-line key figures shown on every slide.
QString keyFigures(const ReportContext& context);
void paintSlide(const ReportContext& context, const Slide& slide, QPainter& painter, const QRectF& rect);
bool writeAll(const ReportContext& context, const QString& directory, QString* error, QStringList* written = nullptr);
// One slide to one file: .svg writes SVG, anything else PNG at 1920x1080, and a path
// ending "@2x.png" at twice the pixels.
bool writeSlide(const ReportContext& context, const Slide& slide, const QString& path, QString* error);

}  // namespace slideexport
