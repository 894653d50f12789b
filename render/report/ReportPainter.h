// Paints one view of a plan into any QPainter and rectangle, so the PDF report, the
// slide PNG/SVG/deck exports and presentation mode all draw the same thing. Text is
// drawn as text and charts as vectors (no raster images in PDFs or SVGs).
#pragma once

#include <QFont>
#include <QRectF>
#include <QString>

class QPainter;
class ReportContext;

enum class ReportView {
    Summary,     // headline figures
    Inputs,      // model, cluster, training, layout, reliability
    Memory,      // memory per GPU by stage
    StepTime,    // where a step's time goes
    Timeline,    // pipeline schedule
    Layout,      // ranks on nodes and GPUs
    RedFlags,    // warnings
    Validation,  // staged validation and reliability plan (worked example B)
    Sensitivity, // which inputs move the run's days most (tornado)
    Derivation,  // one section of the math (see section argument)
};

namespace reportpainter {

// The report's typeface at a size, without ligatures so that text copied or searched in
// a PDF reads "fl", not the ligature glyph.
QFont font(double pointSize, bool bold = false);

QString viewTitle(ReportView view, const ReportContext& context, int section = 0);
int derivationSectionCount(const ReportContext& context);
// `scale` enlarges type and chart text (presentation mode, slides); 1 is document size.
// Text views flow over pages of the rectangle's size; `page` picks one (see pageCount).
void paint(ReportView view, const ReportContext& context, QPainter& painter, const QRectF& rect, int section = 0, double scale = 1.0, int page = 0);
// How many rectangles of this size a view needs (1 for drawings and charts).
int pageCount(ReportView view, const ReportContext& context, const QSizeF& size, int section = 0, double scale = 1.0);
bool isTextView(ReportView view);
QString viewHtml(ReportView view, const ReportContext& context, int section = 0, double scale = 1.0);

}  // namespace reportpainter
