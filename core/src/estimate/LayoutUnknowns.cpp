#include "estimate/LayoutUnknowns.h"

#include "estimate/PipelineModel.h"

namespace trainplan {

unsigned actingLayoutUnknowns(const Plan& plan)
{
    unsigned bits = plan.layout.unknownFields;
    if (plan.layout.tp <= 1)
        bits &= ~unsigned(kUnknownSequenceParallel);
    // Without a valid interleaving both ends are 1F1B; without a FlashAttention kernel in the
    // framework the layout's choice cannot act.
    if ((bits & kUnknownSchedule) && fewestInterleavingChunks(plan) == 0)
        bits &= ~unsigned(kUnknownSchedule);
    if ((bits & kUnknownFlashAttention) && frameworkSwitch(plan.framework, &FrameworkSpec::flashAttention) == FlashAttentionVersion::None)
        bits &= ~unsigned(kUnknownFlashAttention);
    return bits;
}

}  // namespace trainplan
