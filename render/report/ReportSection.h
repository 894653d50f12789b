// The report as data: a list of sections, each a title, a kind and its content in reading order,
// built once per ReportContext (ReportContext::sections()). The PDF flows the parts onto pages
// (a page breaks only between parts), the slides and presentation mode take a section's parts
// by kind, and text views read their text from here: nothing re-splits generated HTML to find
// where a section or a stage starts.
#pragma once

#include <QString>

#include <vector>

#include "render/report/ReportPainter.h"

class ReportContext;

enum class ReportPartKind {
    Title,       // the plan's title, its layout in a line, the date and the ask (`html`: the ask line)
    Drawing,     // a chart or diagram: reportpainter::paint(`view`)
    Text,        // rich text: `html`, a body fragment at document size (no page around it)
    Derivation,  // steps [first, last) of derivation section `section` (ReportContext::derivation())
};

struct ReportPart {
    ReportPartKind kind = ReportPartKind::Text;
    ReportView view = ReportView::Summary;  // Drawing
    QString html;                           // Text; Title: the ask line
    int section = 0, first = 0, last = 0;   // Derivation
};

struct ReportSection {
    ReportView kind = ReportView::Summary;  // what the section is; Derivation sections also carry `section`
    int section = 0;                        // Derivation: the index into ReportContext::derivation()
    QString title;                          // its heading and the document's page header
    // Whether the title is drawn over the first part: false for the summary (the title part heads
    // the page) and for a section that continues the one before (the step time under the memory).
    bool headed = true;
    // In the document (the PDF) as well as the slides; false for what only the deck shows (the
    // ask's table, the short staged plan).
    bool inDocument = true;
    std::vector<ReportPart> parts;
};

namespace reportsections {

// Every section, in the document's order (the slides-only ones where the deck tells them).
std::vector<ReportSection> build(const ReportContext& context);
// The html of a section's parts of one kind, in order: its text (Text), or the ask line (Title).
QString text(const ReportSection& section, ReportPartKind kind = ReportPartKind::Text);

}  // namespace reportsections
