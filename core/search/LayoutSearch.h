// Layout search: every valid parallel layout of the plan's model on the plan's cluster, the
// ones that fit in memory (estimate()), ranked by predicted time (StepTimeModel.h), with the
// Pareto front of memory against time and the simplest layout that fits.
//
// "Simplest" (worked example B, "Choose a first layout": try the lightest sharding that fits before full
// parameter sharding, and "do not start with every parallelism dimension"), lexicographically:
//   1. fewest heavy mechanisms: pipeline (PP > 1), full parameter sharding (ZeRO-3), context
//      parallelism (CP > 1), tensor parallelism over the network (TP > GPUs per node), an expert
//      group over the network (EP x ETP > GPUs per node);
//   2. lowest ZeRO stage;
//   3. least recompute (none < selective < full);
//   4. smallest model-parallel group (TP x PP x CP);
//   5. no interleaving (fewest virtual stages);
//   then the fastest among equals.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/estimate/MemoryFit.h"
#include "core/estimate/Warning.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

// Where layouts that raise the app's own red flags (checkLayoutAdvisories(): TP across nodes, a
// large bubble, DP not hidden...) go: after every layout without them (the default), nowhere, or
// among the others by the objective alone. Each row lists its flags either way.
enum class RedFlagOrder { Last, Hide, Mixed };

enum class SearchObjective {
    Time,      // predicted training time (step time x steps; step time when the batch is fixed)
    GpuHours,  // predicted GPU-hours (same order as Time: every layout uses all GPUs)
    Cost,      // GPU-hours x costPerGpuHour
};

struct SearchOptions {
    SearchObjective objective = SearchObjective::Time;
    double costPerGpuHour = 0.0;
    int top = 50;  // results kept besides the Pareto front and the simplest layout
    // Global batch in sequences: 0/0 keeps the plan's; otherwise every DP x 2^k in [min, max].
    long long minGlobalBatch = 0;
    long long maxGlobalBatch = 0;
    bool allowTpAcrossNodes = true;  // such layouts are kept but flagged (tpAcrossNodes)
    RedFlagOrder redFlags = RedFlagOrder::Last;
    // Keep only layouts whose every stage leaves training.memory_margin_fraction of capacity free;
    // false also keeps the ones that fit with less (their rows say so by headroomBytes).
    bool requireMemoryMargin = true;
    int maxTp = 64;
    int maxCp = 16;
    int maxVirtualStages = 8;
    int maxMicroBatch = 16;
    std::optional<FrameworkOptions> framework;  // unset: the plan's own framework section
    // Rows with the same figures (sameFigures()) whose layouts differ only in how DP and CP split
    // their product or in the micro-batch size are ranked once: the simplest of them is the row and
    // the others are listed as its equivalents (SearchResult::equivalents), so `top` counts
    // distinct options. Off, every fitting layout is its own row.
    bool groupEquivalents = false;
    // Skip layouts that provably do not fit (a larger micro-batch of a layout that does not fit);
    // off, every layout is estimated (the exhaustive search the pruning is tested against).
    bool pruneExactly = true;
    // Keep only the fitting rows the ranking can still show (SearchShortlist.h: rows made before
    // prove the others off the front, not the simplest and outside the best `top`); off, every
    // fitting row goes to the ranking (what the shortlist is tested against). On, a layout with
    // recompute is not predicted when the shortlist would drop it even at a proven lower bound of
    // its step, from the same layout's without recompute (any schedule but DualPipe).
    bool shortlistRows = true;
};

struct SearchLayout {
    int tp = 1, pp = 1, dp = 1, cp = 1;
    // The expert grid (LayoutSpec::ep, etp): for an MoE model the search tries every EP dividing
    // the experts and every ETP (powers of two within a node dividing the expert width) whose
    // EP x ETP divides TP x CP x DP; 1 and 1 for a dense model.
    int ep = 1, etp = 1;
    int virtualStages = 1;
    int microBatch = 1;
    int zeroStage = 0;
    Recompute recompute = Recompute::None;
    bool sequenceParallel = false;
    long long globalBatch = 0;
    Schedule schedule = Schedule::OneFOneB;

    // The size of one parallel dimension (ParallelDims.h).
    int size(ParallelDim dim) const { return parallelDimField(*this, dim); }
    int& size(ParallelDim dim) { return parallelDimField(*this, dim); }

    bool operator==(const SearchLayout&) const = default;
};

struct SearchRow {
    SearchLayout layout;
    double stepSeconds = 0;
    double totalSeconds = 0;  // predicted compute time of the whole run
    double mfu = 0;
    double memoryBytes = 0;   // the fullest GPU (estimate's memory.per_gpu_bytes.total)
    double headroomBytes = 0; // capacity - memoryBytes
    bool withinMargin = false; // fits, but some stage leaves less than the margin free
    double gpuHours = 0;
    double cost = 0;
    bool tpAcrossNodes = false;
    // The fullest GPU's memory verdict (MemoryFit.h), the one the analysis gives the applied plan:
    // the ranking puts every "fits" before "may not fit" (a tier of its own, never the first row
    // while a layout of the same red-flag tier fits).
    MemoryFit memoryFit = MemoryFit::Fits;
    unsigned redFlags = 0;  // the layout's warning-level red flags, a mask of warningBit() (Warning.h)
    bool pareto = false;    // no other fitting layout uses no more memory and no more time
    bool simplest = false;
};

// A layout ranked as another row: same figures, differing only in DP x CP split or micro-batch.
struct SearchEquivalent {
    size_t row = 0;  // index into SearchResult::rows of the row it equals
    SearchLayout layout;
};

struct SearchResult {
    long long evaluated = 0;       // layouts valid for the model and cluster, estimated or pruned
    long long pruned = 0;          // of those, skipped as provably not fitting (SearchOptions::pruneExactly)
    long long fitting = 0;         // of those, the ones that fit in memory (with the margin when required)
    long long shortlisted = 0;     // of the fitting, the rows the ranking read (all without SearchOptions::shortlistRows)
    long long unpredicted = 0;     // of the fitting, rows the shortlist dropped on a lower bound of their step, unpredicted
    long long underMargin = 0;     // fit, but left out for leaving less than the margin free
    long long hiddenRedFlags = 0;  // fit, but left out for raising red flags (RedFlagOrder::Hide)
    RedFlagOrder redFlagOrder = RedFlagOrder::Last;
    double marginBytes = 0;  // training.memory_margin_fraction x capacity
    double seconds = 0;      // wall time of the search
    bool cancelled = false;
    SearchObjective objective = SearchObjective::Time;
    bool expertGrid = false;  // the model has MoE layers: rows differ in EP and ETP too
    // The best `top` by the objective, plus every Pareto layout and the simplest one, best first:
    // rows[0, top) are the ranking (topRows()), the rest only complete the front and the simplest.
    std::vector<SearchRow> rows;
    int top = 0;
    size_t topRows() const { return std::min(rows.size(), size_t(std::max(0, top))); }
    int paretoCount = 0;
    // With SearchOptions::groupEquivalents: the layouts folded into each row, by row, best first.
    bool grouped = false;
    std::vector<SearchEquivalent> equivalents;
    std::vector<SearchLayout> equivalentsOf(size_t row) const;
};

// Figures closer than this (relative) read the same in every view: the step, MFU and memory are
// shown to three digits and GPU-hours to the hour, so 0.25 % is below what a reader compares.
inline constexpr double kSameFiguresTolerance = 0.0025;

// Whether two rows are the same option under another DP x CP split or micro-batch: every
// other layout field equal, the same flags, and every figure (step, run time, memory, MFU,
// GPU-hours, cost) within kSameFiguresTolerance.
bool sameFigures(const SearchRow& a, const SearchRow& b);

// Red flags whose advice is another layout the search itself tries and ranks by the objective:
// EP_SPANS_NODES says a smaller EP inside a node also fits, and the search weighs exactly that
// layout against this one by predicted time (a wider EP can win: fewer experts per GPU, larger
// expert GEMMs, less recompute). Such flags are listed on the row but neither demote nor hide it.
inline constexpr unsigned kFlagsTheSearchWeighs = warningBit(WarningCode::EpSpansNodes);

// A row's place before the objective (smaller first): with RedFlagOrder::Last, rows without red
// flags (other than kFlagsTheSearchWeighs) come first; within that, "fits", then "may not fit", then "does not fit".
int rankTier(const SearchRow& row, RedFlagOrder order);

// "last", "hide", "mixed": the CLI's --red-flags values and the JSON's red_flag_order.
const char* redFlagOrderName(RedFlagOrder order);
// The order named so, or nothing.
std::optional<RedFlagOrder> redFlagOrderNamed(std::string_view name);

// Progress in [0, 1], called from the searching thread.
using SearchProgress = std::function<void(double fraction)>;

// Runs on the calling thread; cancel (checked every few thousand layouts) stops it early with
// what was found so far. Never throws for a plan that PlanReader accepted.
SearchResult searchLayouts(const Plan& plan, const SearchOptions& options = {}, std::atomic<bool>* cancel = nullptr,
                           const SearchProgress& progress = {});

// The plan's own layout as a row of a search with these options, predicted the way the search
// predicts (closed-form pipeline); est must be estimate(plan). Nothing when its step cannot be
// predicted (not finite or not positive). Where the plan sits on the search's scatter.
std::optional<SearchRow> searchRowOf(const Plan& plan, const Estimate& est, const SearchOptions& options = {});

// The plan with a result's layout applied (for "Apply"): TP, PP, DP, CP, EP, ETP, schedule,
// virtual stages, ZeRO, recompute, SP, micro-batch and global batch; explicit stage splits are
// dropped.
Plan withSearchLayout(const Plan& plan, const SearchLayout& layout);
SearchLayout searchLayoutOf(const Plan& plan);

// The simplicity key of the header comment (items 1-5); smaller is simpler.
std::array<int, 5> simplicityKey(const SearchLayout& layout, int gpusPerNode);

// A layout as every JSON writer gives it: a key per parallel dimension (tp, pp, dp, cp), ep, etp,
// virtual_stages, micro_batch, zero, recompute, sequence_parallel, global_batch, schedule.
nlohmann::json searchLayoutToJson(const SearchLayout& layout);

// search.evaluated, search.fitting, search.seconds, search.results[] (layout{a key per parallel
// dimension (tp, pp, dp, cp), ep, etp, virtual_stages, micro_batch, zero, recompute, sequence_parallel, global_batch, schedule},
// step_seconds, mfu, memory_bytes, headroom_bytes, within_margin, gpu_hours, cost, days, pareto,
// simplest, tp_across_nodes, memory{verdict}, red_flags[] (codes), group, equivalents[] (layouts with the
// same figures, when grouped)), plus objective, cancelled, pareto_count, under_margin, margin_bytes,
// red_flag_order, hidden_red_flags and grouped; under a
// top-level "search" key. A row's group id is the same wherever the row appears.
nlohmann::json searchToJson(const SearchResult& result);

}  // namespace trainplan
