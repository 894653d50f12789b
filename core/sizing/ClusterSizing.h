// Sizing the cluster: the inverse of the planner's question. Given the plan's model, token budget
// and batch, a deadline and perhaps a budget, which accelerator and how many GPUs, laid out how?
// For each candidate accelerator and each GPU count (whole nodes, in the steps clusters are
// bought in: 1, 1.5, 2, 3, 4, 6, 8 … times a power of two of nodes) the layout search finds the
// fastest layout that fits; the analysis of that plan gives the wall time with failures (and its
// range), GPU-hours, cost and energy on the predicted basis. The answer: every point, the Pareto
// front of days against cost per accelerator, the cheapest point that meets the deadline (and the
// budget), and where adding GPUs stops paying (marginal scaling efficiency below a threshold).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/estimate/ComputeOptimal.h"
#include "core/plan/Plan.h"
#include "core/search/LayoutSearch.h"

namespace trainplan {

struct SizingCandidate {
    std::string accelerator;                  // a preset's name, or the plan's own part ("" = the plan's)
    std::optional<double> pricePerGpuHourUsd;  // unset: the plan's price for its own part, else none
};

struct SizingOptions {
    double deadlineDays = 0;             // required, > 0
    std::optional<double> budgetUsd;     // > 0 when given
    long long minGpus = 0, maxGpus = 0;  // 0: one node, and 32,768 GPUs
    std::vector<SizingCandidate> accelerators;  // empty: the plan's own accelerator
    // The largest global batch a run may use, tokens per step; unset keeps the plan's batch.
    std::optional<double> maxGlobalBatchTokens;
    // Adding GPUs "stops paying" where a step up in GPUs buys less than this share of the ideal
    // speed-up: (days before / days after) / (GPUs after / GPUs before) below it.
    double scalingThreshold = 0.7;
};

struct SizingPoint {
    std::string accelerator;
    int gpus = 0;
    bool usable = false;       // a layout fits; otherwise the figures below are 0
    SearchLayout layout;
    double days = 0;           // predicted wall time with the failure and checkpoint allowance
    double daysLow = 0, daysHigh = 0;  // its honest range (the predicted step's range)
    double gpuHours = 0;       // predicted, with failures
    std::optional<double> usd;  // GPU-hours with failures x price
    std::optional<double> mwh;  // facility energy with failures
    double mfu = 0;
    double marginalEfficiency = 0;  // against the previous usable count of this accelerator; 1 for the first
    bool meetsDeadline = false;
    bool withinBudget = true;
    bool pareto = false;       // no point of this accelerator is both no slower and no dearer
    bool knee = false;         // the last count before a step up stops paying
    bool batchLimited = false;  // DP x micro-batch uses the whole global batch: more GPUs cannot add DP
};

struct SizingResult {
    std::vector<SizingPoint> points;  // by accelerator (the order asked), then GPUs ascending
    std::optional<size_t> cheapest;   // the cheapest point meeting the deadline and the budget
    bool costInDollars = false;       // "cheapest" by dollars (every candidate priced) or by GPU-hours
    double deadlineDays = 0;
    std::optional<double> budgetUsd;
    double scalingThreshold = 0;
    // Tokens per parameter against the compute-optimal ~20 (core/estimate/ComputeOptimal.h).
    double tokensPerParameter = 0;
    bool moeActiveParameters = false;  // the ratio uses active parameters (the study is of dense models)
    std::vector<std::string> sentences;  // the explanation, in a reviewer's words
    long long layoutsEvaluated = 0;
    double seconds = 0;
    bool cancelled = false;
};

// Throws PlanError naming the option (sizing.deadline_days, sizing.accelerators[i], …) for bad
// options. `progress` runs on the calling thread's workers in [0, 1]; `cancel` stops early.
SizingResult sizeCluster(const Plan& plan, const SizingOptions& options, std::atomic<bool>* cancel = nullptr,
    const std::function<void(double)>& progress = {});

// The GPU counts sized for this node size and range (whole nodes, 1-1.5-2 steps).
std::vector<int> sizingGpuCounts(int gpusPerNode, long long minGpus, long long maxGpus);

// The plan a point describes: the accelerator, GPU count and layout applied.
Plan planForPoint(const Plan& plan, const SizingPoint& point, const SizingOptions& options);

nlohmann::json sizingToJson(const SizingResult& result);
std::string sizingToText(const SizingResult& result);

}  // namespace trainplan
