// The design-review sections of the report and the slides as rich text, each from one
// Analysis (and the layout rationale): the ask, the layout and why, memory and step-time
// components with their values, communication, reliability, and risks with the staged
// validation plan. Bodies only: ReportPainter wraps them in the page style at a scale.
#pragma once

#include <QString>

class ReportContext;

namespace reviewhtml {

// The one-line ask: "2,048 × H100 for 10.5 days (predicted, with failures)".
QString askLine(const ReportContext& context);
QString ask(const ReportContext& context);
QString layoutWhy(const ReportContext& context);
QString memoryTable(const ReportContext& context);
QString stepTable(const ReportContext& context);
QString communication(const ReportContext& context);
QString reliability(const ReportContext& context);
QString risks(const ReportContext& context);
QString validationStages(const ReportContext& context);
// Red flags as a short section: one line when there are none.
QString redFlags(const ReportContext& context);

}  // namespace reviewhtml
