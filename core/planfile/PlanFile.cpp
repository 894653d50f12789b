#include "core/planfile/PlanFile.h"

#include <nlohmann/json.hpp>

#include "core/base/BoundedJson.h"
#include "core/planfile/PlanName.h"

namespace trainplan {

Plan planFromJson(const nlohmann::json& document)
{
    ReadPlan read = readPlanJson(document);
    Plan& plan = read.plan;
    // A file from before name_user_set: a name equal to the generated one (or none) follows,
    // any other name is the person's. A file that says false gets the name regenerated, so
    // --set model.layers=... renames the plan as the window would.
    const bool blank = plan.name.find_first_not_of(" \t\r\n") == std::string::npos;
    plan.nameUserSet = !blank && (read.nameUserSetGiven ? plan.nameUserSet : plan.name != generatedPlanName(plan));
    refreshPlanName(plan);
    return plan;
}

Plan planFromText(const std::string& text)
{
    return planFromJson(parseJsonBounded(text, "the plan"));
}

Plan loadPlanFile(const std::string& path)
{
    return planFromJson(parseJsonBounded(readPlanFileText(path), path));
}

}  // namespace trainplan
