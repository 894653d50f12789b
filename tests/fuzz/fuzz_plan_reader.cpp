// libFuzzer target: planFromText on arbitrary bytes. Rejection (PlanError) is fine; anything
// else escaping, a sanitizer report, or a non-finite figure from an accepted plan is a defect.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    trainplan::Plan plan;
    try {
        plan = trainplan::planFromText(text);
    } catch (const trainplan::PlanError&) {
        return 0;
    }
    fuzzchecks::checkAcceptedPlan(plan);
    return 0;
}
