// A cluster described once and used for any plan: the plan's whole cluster section (the part and
// its figures, GPUs, nodes, links, efficiency figures, and a calibration's record of where they
// came from) under a name, in a file of its own. A calibration fitted on one model's run then
// predicts another model on the same cluster, framework release and date (issue: calibrate from
// one measured run, "or as a named cluster profile").
//
// The file: {"format": "trainplan.cluster-profile", "version": 1, "name": "…", "cluster": {…}},
// where "cluster" is exactly a plan file's cluster section, read by the plan reader, so every
// field is checked by the same table and named by the same path ("cluster.gpus").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/plan/Plan.h"

namespace trainplan {

struct ClusterProfile {
    std::string name;
    nlohmann::json cluster;  // a plan's "cluster" section, as planToJson writes it
};

inline constexpr const char* kClusterProfileFormat = "trainplan.cluster-profile";

// The plan's cluster as a profile document named `name`.
nlohmann::json clusterProfileToJson(const Plan& plan, const std::string& name);
// Checks the envelope (format, version, name, cluster) and every cluster field, by path; throws
// PlanError naming each problem.
ClusterProfile clusterProfileFromJson(const nlohmann::json& document);
ClusterProfile clusterProfileFromText(const std::string& text);
ClusterProfile loadClusterProfile(const std::string& path);

// A plan document with its cluster replaced by the profile's. A layout whose GPUs no longer
// multiply to the cluster's gets data parallelism "auto", so it follows the new GPU count.
void applyClusterProfile(nlohmann::json& planDocument, const ClusterProfile& profile);
Plan withClusterProfile(const Plan& plan, const ClusterProfile& profile);

}  // namespace trainplan
