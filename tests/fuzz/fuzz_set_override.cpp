// libFuzzer target: --set assignments (one per line, up to eight) applied to the default plan
// (worked example A), then read. The same checks as the reader's target apply.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/planfile/WorkedExamples.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const nlohmann::json base = trainplan::planToJson(trainplan::defaultPlan());
    const std::string input(reinterpret_cast<const char*>(data), size);
    nlohmann::json doc = base;
    trainplan::Plan plan;
    try {
        size_t start = 0;
        for (int n = 0; n < 8 && start <= input.size(); ++n) {
            const auto end = input.find('\n', start);
            trainplan::applyOverride(doc, input.substr(start, end == std::string::npos ? std::string::npos : end - start));
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
        plan = trainplan::planFromJson(doc);
    } catch (const trainplan::PlanError&) {
        return 0;
    }
    fuzzchecks::checkAcceptedPlan(plan);
    return 0;
}
