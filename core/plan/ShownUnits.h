// How a plan field's value is shown to a person: in its file unit (PlanFields.h), except where
// another reads more easily. The one place the window's inputs and the PDF's input rows convert.
#pragma once

#include <string>

#include "core/plan/PlanFields.h"

namespace trainplan {

// shown value = file value x multiply / divide, and back the other way round: two exact factors
// rather than one, so that 40 % is 40 / 100 and 1,400 B tokens 1,400 x 1e9, as typed.
struct ShownUnit {
    std::string suffix;  // " GB", " h", " %"; "" when the field has no unit
    double multiply = 1.0;
    double divide = 1.0;
};

// The file's unit, abbreviated where it is long ("hours" as "h"); fractions (a key ending in
// "_fraction", and the MFU) in per cent; the token budget in billions.
ShownUnit shownUnit(const PlanField& field);
// A Plan value (SI, PlanFields.h toSi) as shown, and back.
double shownValue(const PlanField& field, double siValue);
double siFromShown(const PlanField& field, double shownValue);

}  // namespace trainplan
