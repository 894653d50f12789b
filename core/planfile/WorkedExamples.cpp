#include "core/planfile/WorkedExamples.h"

#include <string>
#include <string_view>

#include "core/base/Units.h"
#include "core/estimate/ReliabilityModel.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/PlanName.h"

namespace trainplan {

namespace embedded {
extern const std::string_view kDefaultPlanJson;
extern const std::string_view kExampleBPlanJson;
}  // namespace embedded

Plan workedExamplePlan(WorkedExample example)
{
    static const Plan a = planFromText(std::string(embedded::kDefaultPlanJson));
    static const Plan b = planFromText(std::string(embedded::kExampleBPlanJson));
    return example == WorkedExample::B ? b : a;
}

WorkedExample workedExampleOf(const Plan& plan)
{
    for (WorkedExample which : {WorkedExample::A, WorkedExample::B}) {
        Plan example = workedExamplePlan(which);
        example.name = plan.name;
        example.nameUserSet = plan.nameUserSet;
        if (example == plan)
            return which;
    }
    return WorkedExample::None;
}

Plan defaultPlan()
{
    // Worked example A as shipped (examples/70b-2048-h100.json), its 1,000 h node MTBF included:
    // the window opens on the same plan, and the same figures, as the CLI on that file.
    return workedExamplePlan(WorkedExample::A);
}

}  // namespace trainplan
