// Paints one view of a plan into any QPainter and rectangle, so the PDF report, the
// slide PNG/SVG/deck exports and presentation mode all draw the same thing. Text is
// drawn as text and charts as vectors (no raster images in PDFs or SVGs).
#pragma once

#include <QFont>
#include <QRectF>
#include <QString>

#include <functional>
#include <vector>

class QPainter;
class ReportContext;

enum class ReportView {
    Summary,        // headline figures
    Inputs,         // model, cluster, training, layout, reliability
    Memory,         // memory per GPU by stage
    StepTime,       // where a step's time goes
    Timeline,       // pipeline schedule
    Layout,         // ranks on nodes and GPUs
    RedFlags,       // warnings
    Validation,     // staged validation and reliability plan (worked example B)
    Sensitivity,    // which inputs move the run's days most (tornado)
    Derivation,     // one section of the math (see section argument)
    Ask,            // GPUs x days and GPU-hours at both bases, with the predicted range
    LayoutWhy,      // what decides the layout and the alternatives it beats
    Communication,  // traffic, links and exposed time per parallel group
    Reliability,    // checkpoint cadence, failures, padded days
    Risks,          // red flags, near-capacity stages, exposed communication
    Staging,        // the staged validation plan: parity, one node, one replica, full scale
    Sizing,         // how many GPUs of which kind meet a deadline: days against cost (when sized)
};

namespace reportpainter {

// The report's typeface at a size, without ligatures so that text copied or searched in
// a PDF reads "fl", not the ligature glyph.
QFont font(double pointSize, bool bold = false);

QString viewTitle(ReportView view, const ReportContext& context, int section = 0);
int derivationSectionCount(const ReportContext& context);
// `scale` enlarges type and chart text (presentation mode, slides); 1 is document size.
// Text views flow over pages of the rectangle's size; `page` picks one (see pageCount).
void paint(ReportView view, const ReportContext& context, QPainter& painter, const QRectF& rect, int section = 0, double scale = 1.0,
    int page = 0);
// How many rectangles of this size a view needs (1 for drawings and charts).
int pageCount(ReportView view, const ReportContext& context, const QSizeF& size, int section = 0, double scale = 1.0);
bool isTextView(ReportView view);
// Rich text fitted to a rectangle: `html` is built at `scale` and, when it would overflow,
// again at smaller scales (down to 60 %) until it fits, so text is never clipped.
void paintHtmlFitted(QPainter& painter, const QRectF& rect, const std::function<QString(double scale)>& html, double scale);
// The height of rich text laid out at `width`.
double htmlHeight(const QString& html, double width);
// The height the ranks-on-nodes diagram draws at this width (its drawing, labels and legend),
// so a page can give it the space it uses rather than a band it floats in.
double layoutDiagramHeight(const ReportContext& context, double width, double scale = 1.0);
// A text view as a page at `scale`: its section's text (ReportContext::sections()); the derivation's
// section `section` for Derivation; empty for drawings.
QString viewHtml(ReportView view, const ReportContext& context, int section = 0, double scale = 1.0);
// Section bodies the report's sections are built from (ReportSection.h): the inputs in two columns,
// and the staged validation and reliability plan one fragment per stage (the introduction with the
// first), so that a page may break between stages.
QString inputsBody(const ReportContext& context);
std::vector<QString> validationBodies(const ReportContext& context);

}  // namespace reportpainter
