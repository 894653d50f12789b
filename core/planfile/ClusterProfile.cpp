#include "core/planfile/ClusterProfile.h"

#include "core/base/BoundedFile.h"
#include "core/base/BoundedJson.h"
#include "core/base/PlanError.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"

namespace trainplan {

namespace {

constexpr int kClusterProfileVersion = 1;
constexpr size_t kMaxProfileName = 200;

}  // namespace

nlohmann::json clusterProfileToJson(const Plan& plan, const std::string& name)
{
    return {{"format", kClusterProfileFormat}, {"version", kClusterProfileVersion}, {"name", name}, {"cluster", planToJson(plan)["cluster"]}};
}

ClusterProfile clusterProfileFromJson(const nlohmann::json& document)
{
    std::vector<PlanProblem> problems;
    if (!document.is_object())
        throw PlanError({PlanProblem{"", "a cluster profile is a JSON object"}});
    const auto format = document.find("format");
    if (format == document.end() || !format->is_string() || format->get<std::string>() != kClusterProfileFormat)
        problems.push_back({"format", std::string("expected \"") + kClusterProfileFormat + "\" (a cluster profile, not a plan)"});
    const auto version = document.find("version");
    if (version == document.end() || !version->is_number_integer() || version->get<long long>() != kClusterProfileVersion)
        problems.push_back({"version", "expected 1"});
    ClusterProfile profile;
    const auto name = document.find("name");
    if (name == document.end() || !name->is_string() || name->get<std::string>().empty())
        problems.push_back({"name", "the profile's name is required text"});
    else if (name->get<std::string>().size() > kMaxProfileName)
        problems.push_back({"name", "longer than 200 characters"});
    else
        profile.name = name->get<std::string>();
    const auto cluster = document.find("cluster");
    if (cluster == document.end() || !cluster->is_object())
        problems.push_back({"cluster", "the cluster section (as in a plan file) is required"});
    if (!problems.empty())
        throw PlanError(std::move(problems));
    profile.cluster = *cluster;
    // Every field, by the plan reader: the profile's cluster on the default plan must read.
    (void)withClusterProfile(defaultPlan(), profile);
    return profile;
}

ClusterProfile clusterProfileFromText(const std::string& text)
{
    return clusterProfileFromJson(parseJsonBounded(text, "cluster profile"));
}

ClusterProfile loadClusterProfile(const std::string& path)
{
    return clusterProfileFromText(readRegularFile(path));
}

void applyClusterProfile(nlohmann::json& planDocument, const ClusterProfile& profile)
{
    if (!planDocument.is_object())
        return;  // the plan reader reports it
    const nlohmann::json before = planDocument.contains("cluster") ? planDocument["cluster"] : nlohmann::json();
    planDocument["cluster"] = profile.cluster;
    const bool gpusChanged = !before.is_object() || before.value("gpus", nlohmann::json()) != profile.cluster.value("gpus", nlohmann::json());
    if (gpusChanged && planDocument.contains("layout") && planDocument["layout"].is_object()) {
        planDocument["layout"]["dp"] = "auto";
        planDocument["layout"].erase("dp_auto");
    }
}

Plan withClusterProfile(const Plan& plan, const ClusterProfile& profile)
{
    nlohmann::json document = planToJson(plan);
    applyClusterProfile(document, profile);
    return planFromJson(document);
}

}  // namespace trainplan
