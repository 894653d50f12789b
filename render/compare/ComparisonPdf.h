// The comparison report: landscape pages, vectors and embedded fonts only. First the plans, every
// headline figure with its difference from plan A and what changed (flowing over as many pages
// as the inputs need); then memory per stage and the step's components of all plans overlaid;
// then one page per plan with its ranks-on-nodes diagram and its pipeline schedule.
#pragma once

#include <QPageSize>
#include <QString>

class ComparisonSet;

namespace comparisonpdf {

// Writes the report through the atomic writer (render/report/ExportFile.h); false with a message
// on failure, the previous file kept. The page count comes back through `pages` when not null.
bool write(const ComparisonSet& set, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pages = nullptr);

}  // namespace comparisonpdf
