// The multi-page PDF report: the title with the ask, headline figures, red flags, the layout and
// why, inputs, memory and step time (charts and component tables), the pipeline timeline, the
// layout diagram, communication, reliability, sensitivity, risks, the staged validation plan and
// every step of the derivation. Sections flow onto pages by their measured heights (PageFlow), so
// pages end full. Vectors and embedded fonts only.
#pragma once

#include <QPageSize>
#include <QString>

#include <vector>

class ReportContext;

namespace pdfreport {

// Writes the report; returns false with a message on failure. Page count is returned
// through pages when not null.
bool write(const ReportContext& context, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pages = nullptr);

// How full each page of the report is: the share of the page body its blocks cover (gaps
// between blocks included), page by page, as write() lays them out.
std::vector<double> pageFill(const ReportContext& context, QPageSize::PageSizeId pageSize);

}  // namespace pdfreport
