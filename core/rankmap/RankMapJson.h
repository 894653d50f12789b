// The rank map's summary as JSON (snake_case keys, bytes per step), for the CLI and reports.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/rankmap/RankMap.h"

namespace trainplan {

// {"world_size", "gpus_per_node", "nodes", "ranks_per_replica", "replicas",
//  "nodes_per_replica", "gradient_groups_cross_nodes",
//  "dims": {"tp": {"group_size", "groups", "stride", "groups_inside_node",
//                  "groups_crossing_nodes", "crosses_nodes",
//                  "payload_bytes_per_step", "sent_bytes_per_gpu_per_step"}, "cp", "dp", "pp"}}
nlohmann::json rankMapSummaryToJson(const RankMapSummary& summary);

// {"rank", "node", "local_gpu", "coordinates": {"tp", "cp", "dp", "pp"}}
nlohmann::json rankLocationToJson(const RankMap& map, int rank);

}  // namespace trainplan
