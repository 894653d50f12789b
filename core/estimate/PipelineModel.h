// Pipeline stages, micro-batches in flight and the closed-form bubble.
#pragma once

#include <memory>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan {

struct ParameterCounts;  // Estimate.h

// Transformer layers on one pipeline stage: layout.stage_layers when given; else, for layers of
// one kind, an even split with any remainder given to the middle stages (the ends also hold the
// embedding and the LM head); for layers of several kinds, a split by cost (stageCostSplit).
int layersOfStage(const Plan& plan, int stage);

// A split by cost (stageCostSplit): each stage's layers and the layers of each kind among them.
struct CostSplit {
    std::vector<int> layers;
    std::vector<KindCounts> kinds;
};

// layersOfStage() for every stage of one plan, its divisions done once: the estimate asks for
// each of up to a stage per layer, for every layout a search visits.
class StageLayerSplit {
public:
    // counts: the plan's model's parameter counts when the caller has them (estimateInto), so
    // the cost split does not count each kind's layer again.
    explicit StageLayerSplit(const Plan& plan, const ParameterCounts* counts = nullptr);
    int layersOf(int stage) const
    {
        if (explicit_)
            return (*explicit_)[size_t(stage)];
        if (byCost_)
            return byCost_->layers[size_t(stage)];
        int layers = base_;
        if (stage >= 1 && stage <= p_ - 2 && stage <= remainder_)
            ++layers;
        if (stage == 0 && firstGetsOne_)
            ++layers;
        return layers;
    }
    // The layers of each kind on a stage whose first layer is firstLayer (the sum of the layers
    // of the stages before it).
    KindCounts kindsOf(int stage, int firstLayer) const
    {
        if (byCost_)
            return byCost_->kinds[size_t(stage)];
        return kindCountsIn(*model_, firstLayer, layersOf(stage));
    }

private:
    const ModelSpec* model_ = nullptr;
    const std::vector<int>* explicit_ = nullptr;
    std::shared_ptr<const CostSplit> byCost_;  // layers of several kinds: the cost split (shared with the cache)
    int p_ = 1, base_ = 0, remainder_ = 0;
    bool firstGetsOne_ = false;
};

// Layers per stage for p stages of a model whose layers differ in cost: contiguous runs, each
// stage at least one layer, that make the costliest stage as cheap as it can be (the classic
// linear-partition problem; a binary search on the bound with a greedy fill). A layer's cost is
// its forward FLOPs per token, 2 x the parameters a token passes through (all of a dense layer's;
// an MoE layer's active ones) + 4 a d s for attention (Kaplan et al. 2020, Sec. 2.1; PaLM App. B);
// the backward is twice that for every kind, so it weighs alike. Splits are remembered per thread. With
// layers of one cost the bound is ceil(L / p) layers, the even split's largest stage.
std::shared_ptr<const CostSplit> stageCostSplit(const Plan& plan, int p, const ParameterCounts* counts = nullptr);

void splitLayers(const Plan& plan, std::vector<int>& layersPerStage);

// Peak micro-batches whose activations a stage holds at once, in whole-stage units:
//   GPipe: m (all forwards before any backward; Huang et al. 2019)
//   1F1B: min(p - i, m) on stage i (Narayanan et al. 2021, Sec. 2.2.1)
//   interleaved 1F1B: Megatron-LM's warm-up of 2(p - i - 1) + (v - 1) p chunks plus the
//   one in steady state, each chunk 1/v of the stage; for stage 0 this is
//   p (1 + (p - 1)/(p v)) (Korthikanti et al. 2022, Sec. 4.2.3, their m = v here).
//   ZB-H1: min(p, m) on every stage (W is deferred; Qi et al. 2023, Sec. 3.1).
//   DualPipe: the rank's two stages together, dualPipeInFlight(stage, p).total().
double microbatchesInFlight(Schedule schedule, int stage, int p, long long m, int v);

// Peak micro-batches a DualPipe rank holds at once, in whole-stage units: with
// h = min(r, p - 1 - r), p - 1 - h of the stage on the rank's nearer half of its path and h + 1
// of the other between pairs, and one more of either while a pair's forward runs before its
// backward frees: p + 1 on every rank (DeepSeek-AI's DualPipe README, "activation PP + 1"; the
// schedule simulator's peaks, tst_dualpipe).
struct DualPipeInFlight {
    double directionZero = 0;  // of model stage r
    double directionOne = 0;   // of model stage p - 1 - r
    double eitherStage = 1;    // the pair's forward: counted at the larger of the two stages
    double total() const { return directionZero + directionOne + eitherStage; }
};
DualPipeInFlight dualPipeInFlight(int rank, int p);


// Bubble as a fraction of the step: (p - 1)/(m + p - 1) for GPipe and 1F1B,
// (p - 1)/(v m + p - 1) interleaved (Narayanan et al. 2021, Sec. 2.2; worked example A),
// (p - 1)/(3m + p - 1) for ZB-H1 with equal F, B and W (Qi et al. 2023), and for DualPipe with
// the same F, B and W and no overlap in its pairs (F&B = F + B), a bubble of
// (p/2 - 1)(F&B + B - 3W) = p - 2 against 3m of work: (p - 2)/(3m + p - 2) (DualPipe.h).
// The fewest model chunks per stage (2 to 8) with which the interleaved schedule runs this plan:
// the layers split evenly over p x v chunks and whole groups of p micro-batches
// (LayoutChecks.cpp); 0 when none does or there is one stage.
int fewestInterleavingChunks(const Plan& plan);

double bubbleFraction(Schedule schedule, int p, long long m, int v);

}  // namespace trainplan
