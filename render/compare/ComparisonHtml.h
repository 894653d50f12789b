// The comparison as rich text: the plans with their letters, every headline figure with each
// later plan's difference from the first, and what changed (the input fields that differ, by
// their field-table titles). Cells are core/text/PlanComparison.h's, so the CLI's text, the
// window and the PDF read the same words. Colours by theme role (@ink, @muted, …: Theme.h).
#pragma once

#include <QString>

class ComparisonSet;

namespace comparisonhtml {

QString plans(const ComparisonSet& set);
QString figures(const ComparisonSet& set);
QString changes(const ComparisonSet& set);
// The three together as one page body at `scale` (10 pt at 1), colours resolved.
QString page(const ComparisonSet& set, double scale = 1.0);

}  // namespace comparisonhtml
