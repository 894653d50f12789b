// What lights up when a GPU is selected in the layout diagram: its TP group, its pipeline
// neighbours, its gradient (DP, or DP x CP) group and, for an MoE model, its EP group, each with the link it uses and the
// bytes that link carries per step. Facts only; the geometry decides how they are drawn.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "core/rankmap/RankMap.h"

struct LayoutDiagramLink {
    trainplan::ParallelDim dim = trainplan::ParallelDim::Tp;
    int from = -1;             // PP links: the sending rank; group links: the selected rank
    int to = -1;               // PP links: the receiving rank; group links: -1
    int groupSize = 1;
    bool crossesNodes = false;  // network rather than NVLink
    bool expert = false;        // the EP group's all-to-all (dim is then unused)
    trainplan::GroupTraffic traffic;
    QString text;              // "TP 8 · NVLink · 21.5 GB/step", "PP stage 1 → 2 · network · 268 MB/step"
    QString tag;               // "TP · NVLink · 21.5 GB/step", drawn beside the link
};

struct LayoutDiagramSelection {
    int rank = -1;
    std::vector<int> tpRanks;        // the TP group, ascending
    std::optional<int> previousStage;
    std::optional<int> nextStage;
    std::vector<int> gradientRanks;  // RankMap::gradientGroupRanks: DP x CP, ascending
    std::vector<int> epRanks;        // an MoE layer's EP group (ExpertGrid::epGroup), ascending
    std::vector<LayoutDiagramLink> links;  // TP, PP in, PP out, DP, EP: those that exist
    QString title;                   // "Rank 517 · node 64 · GPU 5 · TP 5 · CP 0 · DP 0 · PP 1"

    bool isValid() const { return rank >= 0; }
};
