// The one vocabulary of parallel dimensions. A layout splits its GPUs along each of these;
// the reader and writer, the rank map, the layout adjuster and search, the window's sliders and
// the report all loop over kParallelDims and read kParallelDimInfo rather than naming the
// dimensions one by one. A new dimension is one enum value, one row of the table and one
// LayoutSpec field.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace trainplan {

// In Megatron-LM's default rank order (tp-cp-dp-pp, fastest-varying first), which is also the
// order the table rows and rank strides are indexed by.
enum class ParallelDim { Tp, Cp, Dp, Pp };
inline constexpr std::size_t kParallelDimCount = 4;
inline constexpr std::array<ParallelDim, kParallelDimCount> kParallelDims{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Dp,
                                                                         ParallelDim::Pp};

// The sizes a slider offers when nothing else constrains the dimension (the GPU count follows):
// TP and CP split tensors and sequences, powers of two up to 64 in practice; PP is at most one
// stage per layer; DP counts replicas.
enum class FreeSizes { PowersOfTwoTo64, UpToLayers, UpTo4096 };

// What a dimension divides among its ranks. It decides which sizes the layout search tries
// (LayoutSearch.cpp), which ranks hold the same weights (those splitting the data: gradients
// reduce and ZeRO shards over them, Megatron-LM's "dp-cp" group) and what one model replica is
// (every dimension but the batch's).
enum class DimSplits {
    Heads,     // every layer's matrices, by attention heads (Shoeybi et al. 2019)
    Sequence,  // each sequence, into chunks (ring attention)
    Batch,     // the global batch, among model replicas
    Layers,    // the layers, into pipeline stages
};

struct ParallelDimInfo {
    ParallelDim dim;
    std::string_view key;    // "tp": the plan file's layout key (layout.tp)
    std::string_view label;  // "TP": short, for sliders, tables and diagram legends
    std::string_view name;   // "tensor parallelism"
    int displayOrder;        // where the window and the report list it (TP, PP, DP, CP)
    FreeSizes freeSizes;
    std::string_view summary;  // one line for a tooltip: what the dimension splits
    DimSplits splits;
    // Whether a short caption names it at size 1 ("TP 8 × PP 4 × DP 64"): CP is 1 in most
    // layouts, and a caption that always said "CP 1" would be noise.
    bool namedWhenOne;
};

// Indexed by ParallelDim.
inline constexpr std::array<ParallelDimInfo, kParallelDimCount> kParallelDimInfo{{
    {ParallelDim::Tp, "tp", "TP", "tensor parallelism", 0, FreeSizes::PowersOfTwoTo64,
     "Tensor parallelism: splits every layer's matrices; keep it inside a node (NVLink).", DimSplits::Heads, true},
    {ParallelDim::Cp, "cp", "CP", "context parallelism", 3, FreeSizes::PowersOfTwoTo64,
     "Context parallelism: splits long sequences across GPUs (ring attention).", DimSplits::Sequence, false},
    {ParallelDim::Dp, "dp", "DP", "data parallelism", 2, FreeSizes::UpTo4096, "Data parallelism: replicas that process different data.",
     DimSplits::Batch, true},
    {ParallelDim::Pp, "pp", "PP", "pipeline parallelism", 1, FreeSizes::UpToLayers, "Pipeline parallelism: splits the layers into stages.",
     DimSplits::Layers, true},
}};

// The row of kParallelDimInfo, and the slot of a per-dimension array (rank strides), of `dim`.
constexpr std::size_t parallelDimIndex(ParallelDim dim)
{
    return static_cast<std::size_t>(dim);
}
constexpr const ParallelDimInfo& parallelDimInfo(ParallelDim dim)
{
    return kParallelDimInfo[parallelDimIndex(dim)];
}
constexpr std::string_view parallelDimKey(ParallelDim dim)
{
    return parallelDimInfo(dim).key;
}
constexpr std::string_view parallelDimLabel(ParallelDim dim)
{
    return parallelDimInfo(dim).label;
}

// The member of `sizes` that holds `dim`, for the structs that keep one named field per dimension
// (LayoutSpec, SearchLayout, RankCoords): the one place a dimension meets its field's name.
template <typename Sizes>
constexpr auto& parallelDimField(Sizes& sizes, ParallelDim dim)
{
    switch (dim) {
    case ParallelDim::Tp: return sizes.tp;
    case ParallelDim::Cp: return sizes.cp;
    case ParallelDim::Dp: return sizes.dp;
    case ParallelDim::Pp: return sizes.pp;
    }
    return sizes.tp;
}

// The dimensions in the order the window and the report list them.
constexpr std::array<ParallelDim, kParallelDimCount> parallelDimsForDisplay()
{
    std::array<ParallelDim, kParallelDimCount> out{};
    for (const auto& info : kParallelDimInfo)
        out[static_cast<std::size_t>(info.displayOrder)] = info.dim;
    return out;
}

// Ranks that differ only in these dimensions hold the same weights: they split the data (the
// batch or the sequence), so gradients reduce, and ZeRO shards, over their product (DP x CP).
constexpr bool sharesWeights(ParallelDim dim)
{
    return parallelDimInfo(dim).splits == DimSplits::Batch || parallelDimInfo(dim).splits == DimSplits::Sequence;
}
// One model replica spans every dimension but the one that splits the batch (TP x CP x PP).
constexpr bool splitsReplica(ParallelDim dim)
{
    return parallelDimInfo(dim).splits != DimSplits::Batch;
}

// Calls f(dim) for each dimension in kParallelDims order, unrolled when compiled: once f is
// inlined (a lambda at the call site is), each call sees its dimension as a constant, so the
// table lookups and the switch of parallelDimField() fold away (a plain loop over kParallelDims
// cost a jump table per dimension in the layout search's hot loop).
template <typename F>
constexpr void forEachParallelDim(F&& f)
{
    [&]<std::size_t... I>(std::index_sequence<I...>) { (f(kParallelDims[I]), ...); }(std::make_index_sequence<kParallelDimCount>{});
}

// The product of the sizes of the dimensions `keep` accepts, for a struct with size(ParallelDim).
template <typename Sizes, typename Keep>
long long parallelSizeProduct(const Sizes& sizes, Keep keep)
{
    long long product = 1;
    forEachParallelDim([&](ParallelDim d) {
        if (keep(d))
            product *= sizes.size(d);
    });
    return product;
}

// Each dimension `keep` accepts, in display order, as its label and the text `valueOf` gives it,
// joined by `separator`: "TP 8 × PP 4 × DP 64 × CP 1". With an empty valueOf text, the label
// alone: "TP × PP × DP × CP".
template <typename ValueOf, typename Keep>
std::string parallelDimsText(ValueOf valueOf, std::string_view separator, Keep keep)
{
    std::string out;
    for (ParallelDim d : parallelDimsForDisplay()) {
        if (!keep(d))
            continue;
        if (!out.empty())
            out += separator;
        out += parallelDimLabel(d);
        const std::string value = valueOf(d);
        if (!value.empty())
            out += " " + value;
    }
    return out;
}
template <typename ValueOf>
std::string parallelDimsText(ValueOf valueOf, std::string_view separator)
{
    return parallelDimsText(valueOf, separator, [](ParallelDim) { return true; });
}
// Every dimension's label and size in display order: "TP 8 × PP 4 × DP 64 × CP 1".
template <typename Sizes>
std::string parallelSizesText(const Sizes& sizes, std::string_view separator = " × ")
{
    return parallelDimsText([&](ParallelDim d) { return std::to_string(sizes.size(d)); }, separator);
}
// Every dimension's value alone, in display order: "8 × 4 × 64 × 1" (under a "TP × PP × DP × CP"
// heading).
template <typename ValueOf>
std::string parallelValuesText(ValueOf valueOf, std::string_view separator = " × ")
{
    std::string out;
    for (ParallelDim d : parallelDimsForDisplay())
        out += (out.empty() ? std::string() : std::string(separator)) + valueOf(d);
    return out;
}
// Every dimension's label in display order: "TP × PP × DP × CP".
inline std::string parallelLabelsText(std::string_view separator = " × ")
{
    return parallelDimsText([](ParallelDim) { return std::string(); }, separator);
}

}  // namespace trainplan
