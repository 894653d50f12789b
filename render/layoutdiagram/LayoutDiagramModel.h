// What the layout diagram says about a plan, independent of where it is drawn: which nodes
// hold model replica 1 (the front row), which stages each holds, how many replicas stand
// behind, the captions, and whether a TP group crosses a node. Built once per plan change
// in O(world); every placement fact comes from trainplan::RankMap.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/plan/Plan.h"
#include "core/rankmap/ExpertGrid.h"
#include "core/rankmap/RankMap.h"
#include "render/layoutdiagram/LayoutDiagramSelection.h"

// A node of the front row: one that holds ranks of replica 1 (DP coordinate 0).
struct LayoutDiagramNode {
    int node = 0;
    int firstStage = 0;  // pipeline stages of the replica-1 ranks it holds (0-based)
    int lastStage = 0;
    bool sharedWithOtherReplicas = false;  // some of its GPUs belong to other DP replicas
    bool tpCrossesNodes = false;           // a TP group on it continues on another node
};

class LayoutDiagramModel {
public:
    LayoutDiagramModel(const trainplan::Plan& plan, const trainplan::Estimate& estimate);

    const trainplan::RankMap& rankMap() const { return map_; }
    const trainplan::Estimate& estimate() const { return est_; }
    int stages() const { return map_.size(trainplan::ParallelDim::Pp); }
    int replicas() const { return map_.size(trainplan::ParallelDim::Dp); }

    // The front row, in node order (which is rank order).
    const std::vector<LayoutDiagramNode>& frontNodes() const { return front_; }
    int frontIndexOfNode(int node) const;  // -1 for a node behind
    // The front-row node a rank stands behind: the node of its DP-0 peer (same TP, CP and
    // PP coordinates), so a stack of ghosts behind a node means "the same GPUs, other data".
    int columnOf(int rank) const;
    bool inReplicaOne(int rank) const { return map_.coordinate(rank, trainplan::ParallelDim::Dp) == 0; }
    int replicasInFront() const { return replicasInFront_; }
    int replicasBehind() const { return replicas() - replicasInFront_; }
    int nodesBehind() const { return map_.nodes() - int(front_.size()); }

    // The expert grid of an MoE model (ExpertGrid.h), when its sizes make one.
    const trainplan::ExpertGrid* experts() const { return experts_ ? &*experts_ : nullptr; }
    // Whether an EP group leaves its node (its all-to-all then crosses the network).
    bool epCrossesNodes() const { return epNodes_ > 1; }
    // "Experts: EP 64 × ETP 1 × EDP 2 over each stage's 128 GPUs · 4 of 256 routed experts per GPU ·
    // an EP group spans 8 nodes, so its all-to-all crosses the network"; empty for a dense model.
    QString expertCaption() const;

    // Rule check drawn on the diagram: the estimate's TP_SPANS_NODES red flag.
    const trainplan::Warning* tpWarning() const { return tpWarning_ ? &*tpWarning_ : nullptr; }
    QString tpWarningText() const;

    // Text. "Stage 1", "Stages 1–4"; "layers 1–20 + embedding"; captions as in worked example A.
    QString stageText(int firstStage, int lastStage) const;
    QString layersText(int firstStage, int lastStage) const;
    QString frontCaption() const;    // "REPLICA 1 OF 64 · 4 NODES · 32 GPUS"
    QString layoutCaption() const;   // "TP 8 × PP 4 × DP 64 = 2,048 GPUs on 256 nodes · rank order tp-cp-dp-pp"
    QString backCaption() const;     // "REPLICAS 2 … 64 (SAME LAYOUT, DIFFERENT DATA)"
    QString backCountText() const;   // "× 63 replicas, same layout · 252 nodes"
    QString describeRank(int rank) const;  // the hover text: rank, node, local GPU, coordinates
    // Rack-scale parts (an NVLink domain of several nodes, as an NVL72 rack of 18 trays of 4):
    // a node is a tray of a rack, "rack 1, tray 16"; else "node 64". Both 0-based, as ranks are.
    bool racks() const { return map_.nvlinkDomain() > map_.gpusPerNode(); }
    int rackOf(int node) const;  // the NVLink domain (rack) a node's first GPU is in; -1 without racks
    QString nodeName(int node) const;

    LayoutDiagramSelection selectionFor(int rank) const;

private:
    LayoutDiagramLink groupLink(trainplan::ParallelDim dim, int rank, int groupSize, bool crossesNodes) const;
    LayoutDiagramLink pipelineLink(int from, int to) const;

    trainplan::RankMap map_;
    trainplan::Estimate est_;
    std::string rankOrderName_;
    bool dualPipe_ = false;  // DualPipe: stage i's GPUs also run stage p - 1 - i (reverse direction)
    std::vector<LayoutDiagramNode> front_;
    std::vector<int> frontIndexByNode_;
    int replicasInFront_ = 1;
    std::optional<trainplan::Warning> tpWarning_;
    std::optional<trainplan::ExpertGrid> experts_;
    int epNodes_ = 1;        // nodes the slowest EP group spans (groupPlacement)
    bool epStraddles_ = false;  // some EP groups straddle a domain boundary (no multiple of the domain)
    int routedExperts_ = 0;  // the model's routed experts E
};
