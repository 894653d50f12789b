// Slides for a design review, in the order a reviewer presents them: title, the ask, the
// layout and why, memory, time and pipeline, communication, reliability, risks and the staged
// validation plan, then the derivation as an appendix. 16:9, each with a title and the key
// figures, written as PNG (1920x1080 and 2x), SVG, and one deck PDF. Presentation mode paints
// the same slides on screen.
#pragma once

#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

#include "render/report/ReportPainter.h"

class QPainter;
class ReportContext;

// What a slide shows. The deck runs in review order (slides()); View is one report view alone,
// for exporting a single pane as a slide.
enum class SlideKind {
    Title,            // plan name, date, the one-line ask
    Ask,              // GPUs x days and GPU-hours at both bases, the range, sensitivity
    LayoutWhy,        // the layout, what decides it, the alternatives it beats
    Memory,           // memory per GPU by stage, with the component table
    TimeAndPipeline,  // the step's components, the bubble, the timeline
    Communication,
    Reliability,
    Risks,            // risks and the staged validation plan
    Appendix,         // the derivation, packed two columns a slide
    View,
};

// A run of one derivation section's steps [first, last) in an appendix column.
struct AppendixPiece {
    int section = 0;
    int first = 0;
    int last = 0;
};

struct Slide {
    ReportView view;
    int section = 0;
    int page = 0;      // text views that overflow one slide continue on the next
    QString fileStem;  // "03-memory"
    SlideKind kind = SlideKind::View;
    std::vector<std::vector<AppendixPiece>> columns;  // Appendix: the steps each column holds
};

namespace slideexport {

inline constexpr double kWidth = 1920;
inline constexpr double kHeight = 1080;
inline constexpr double kTextScale = 1.8;  // slide type is 1.8x document type

std::vector<Slide> slides(const ReportContext& context);
// The slide's title as the deck shows it (the title slide's is the plan's title).
QString slideTitle(const ReportContext& context, const Slide& slide);
// The one-line key figures shown on every slide.
QString keyFigures(const ReportContext& context);
void paintSlide(const ReportContext& context, const Slide& slide, QPainter& painter, const QRectF& rect);
// Every slide in every form, and the deck, into `directory` (SlideFolder.h says how it is
// replaced). `written` gets the files' paths; `kept` the entries of the folder TrainPlan did not
// write and left in place.
bool writeAll(const ReportContext& context, const QString& directory, QString* error, QStringList* written = nullptr,
              QStringList* kept = nullptr);
// One slide to one file: .svg writes SVG, anything else PNG at 1920x1080, and a path
// ending "@2x.png" at twice the pixels.
bool writeSlide(const ReportContext& context, const Slide& slide, const QString& path, QString* error);

}  // namespace slideexport
