#include "core/plan/ShownUnits.h"

#include "core/base/Units.h"

namespace trainplan {

ShownUnit shownUnit(const PlanField& field)
{
    // Keys carry their unit (docs/architecture.md): "_fraction" is one, and MFU is a fraction by
    // definition.
    if (field.key().ends_with("_fraction") || field.path == "training.mfu")
        return {" %", 100.0, 1.0};
    // Trillions of tokens read as thousands of billions; every other count as given.
    if (field.path == "training.tokens")
        return {" B tokens", 1.0, units::giga};
    if (field.unit.empty())
        return {};
    if (field.unit == "hours")
        return {" h"};
    if (field.unit == "sequences")
        return {" seq"};
    return {" " + std::string(field.unit)};
}

double shownValue(const PlanField& field, double siValue)
{
    const ShownUnit u = shownUnit(field);
    return siValue / field.toSi * u.multiply / u.divide;
}

double siFromShown(const PlanField& field, double shownValue)
{
    const ShownUnit u = shownUnit(field);
    return shownValue * u.divide / u.multiply * field.toSi;
}

}  // namespace trainplan
