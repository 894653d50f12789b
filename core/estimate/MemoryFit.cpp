#include "core/estimate/MemoryFit.h"

#include "core/estimate/Estimate.h"

namespace trainplan {

double usableMemoryBytes(const Estimate& est)
{
    return est.capacityBytes - est.marginBytes;
}

MemoryFit memoryFitOf(double lowBytes, double highBytes, double usableBytes)
{
    if (lowBytes > usableBytes)
        return MemoryFit::DoesNotFit;
    return highBytes > usableBytes ? MemoryFit::MayNotFit : MemoryFit::Fits;
}

const char* memoryFitName(MemoryFit fit)
{
    switch (fit) {
    case MemoryFit::Fits: return "fits";
    case MemoryFit::MayNotFit: return "may not fit";
    case MemoryFit::DoesNotFit: return "does not fit";
    }
    return "fits";
}

}  // namespace trainplan
