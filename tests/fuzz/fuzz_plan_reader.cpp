// libFuzzer target: planFromText, and the cluster-profile reader (which reads its cluster through
// the plan reader), on arbitrary bytes. Rejection (PlanError) is fine; anything else escaping, a
// sanitizer report, or a non-finite figure from an accepted plan is a defect.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/planfile/ClusterProfile.h"
#include "core/planfile/WorkedExamples.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const trainplan::ClusterProfile profile = trainplan::clusterProfileFromText(text);
        fuzzchecks::checkAcceptedPlan(trainplan::withClusterProfile(trainplan::defaultPlan(), profile));
    } catch (const trainplan::PlanError&) {
    }
    trainplan::Plan plan;
    try {
        plan = trainplan::planFromText(text);
    } catch (const trainplan::PlanError&) {
        return 0;
    }
    fuzzchecks::checkAcceptedPlan(plan);
    return 0;
}
