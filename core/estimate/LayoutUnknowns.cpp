#include "core/estimate/LayoutUnknowns.h"

#include "core/estimate/PipelineModel.h"

namespace trainplan {

LayoutUnknownEnds layoutUnknownEnds(const Plan& plan)
{
    LayoutUnknownEnds ends;
    ends.interleavingChunks = fewestInterleavingChunks(plan);
    return ends;
}

unsigned actingLayoutUnknowns(const Plan& plan)
{
    const unsigned given = plan.layout.unknownFields;
    if (given == 0)
        return 0;
    const LayoutUnknownEnds ends = layoutUnknownEnds(plan);
    unsigned bits = 0;
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if ((given & u.bit) && u.acts(plan.layout, ends))
            bits |= u.bit;
    return bits;
}

}  // namespace trainplan
