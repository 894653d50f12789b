// The multi-page PDF report: title page with headline figures, inputs, memory and time
// charts, pipeline timeline, layout diagram, red flags, the staged validation and
// reliability plan, and every step of the derivation. Vectors and embedded fonts only.
#pragma once

#include <QPageSize>
#include <QString>

class ReportContext;

namespace pdfreport {

// Writes the report; returns false with a message on failure. Page count is returned
// through pages when not null.
bool write(const ReportContext& context, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pages = nullptr);

}  // namespace pdfreport
