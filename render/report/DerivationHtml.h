// The derivation as rich text, shared by the "Show the math" pane, the PDF report and
// presentation mode, so all three show the same steps in the same form.
#pragma once

#include <QString>

#include <vector>

#include "core/text/Derivation.h"

namespace derivationhtml {

// One section (or all, with sectionIndex = -1) as HTML. `scale` enlarges type for
// presentation mode. With one section, [firstStep, lastStep) selects its steps and the
// section heading is left to the caller (a page or slide title already names it).
QString render(const std::vector<trainplan::DerivationSection>& sections, int sectionIndex = -1, double scale = 1.0, int firstStep = 0,
               int lastStep = -1);
// Steps [firstStep, lastStep) of one section as a table fragment (no document around it), for
// pages and slides that put several sections' steps into one document.
QString stepsFragment(
    const std::vector<trainplan::DerivationSection>& sections, int sectionIndex, double scale, int firstStep, int lastStep);

}  // namespace derivationhtml
