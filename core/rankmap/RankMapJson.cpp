#include "core/rankmap/RankMapJson.h"

#include <nlohmann/json.hpp>
#include <string>

namespace trainplan {

using nlohmann::json;

json rankMapSummaryToJson(const RankMapSummary& s)
{
    json dims = json::object();
    for (const DimensionSummary& d : s.dims) {
        dims[std::string(parallelDimKey(d.dim))] = {
            {"group_size", d.groupSize},
            {"groups", d.groups},
            {"stride", d.stride},
            {"groups_inside_node", d.groupsInsideNode},
            {"groups_crossing_nodes", d.groupsCrossingNodes},
            {"crosses_nodes", d.crossesNodes()},
            {"payload_bytes_per_step", d.traffic.payloadBytesPerStep},
            {"sent_bytes_per_gpu_per_step", d.traffic.sentBytesPerGpuPerStep},
        };
    }
    return json{
        {"world_size", s.worldSize},
        {"gpus_per_node", s.gpusPerNode},
        {"nvlink_domain", s.nvlinkDomain},
        {"nodes", s.nodes},
        {"ranks_per_replica", s.ranksPerReplica},
        {"replicas", s.replicas},
        {"nodes_per_replica", s.nodesPerReplica},
        {"gradient_groups_cross_nodes", s.gradientGroupsCrossNodes},
        {"dims", std::move(dims)},
    };
}

json rankLocationToJson(const RankMap& map, int rank)
{
    json coords = json::object();
    const RankCoords c = map.coordinates(rank);
    for (ParallelDim d : kParallelDims)
        coords[std::string(parallelDimKey(d))] = c[d];
    return json{{"rank", rank}, {"node", map.node(rank)}, {"local_gpu", map.localGpu(rank)}, {"coordinates", std::move(coords)}};
}

}  // namespace trainplan
