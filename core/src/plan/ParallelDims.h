// The one vocabulary of parallel dimensions. A layout splits its GPUs along each of these;
// the reader and writer, the rank map, the layout adjuster and search, the window's sliders and
// the report all loop over kParallelDims and read kParallelDimInfo rather than naming the
// dimensions one by one. A new dimension is one enum value, one row of the table and one
// LayoutSpec field.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

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

struct ParallelDimInfo {
    ParallelDim dim;
    std::string_view key;    // "tp": the plan file's layout key (layout.tp)
    std::string_view label;  // "TP": short, for sliders, tables and diagram legends
    std::string_view name;   // "tensor parallelism"
    int displayOrder;        // where the window and the report list it (TP, PP, DP, CP)
    FreeSizes freeSizes;
    std::string_view summary;  // one line for a tooltip: what the dimension splits
};

// Indexed by ParallelDim.
inline constexpr std::array<ParallelDimInfo, kParallelDimCount> kParallelDimInfo{{
    {ParallelDim::Tp, "tp", "TP", "tensor parallelism", 0, FreeSizes::PowersOfTwoTo64,
     "Tensor parallelism: splits every layer's matrices; keep it inside a node (NVLink)."},
    {ParallelDim::Cp, "cp", "CP", "context parallelism", 3, FreeSizes::PowersOfTwoTo64,
     "Context parallelism: splits long sequences across GPUs (ring attention)."},
    {ParallelDim::Dp, "dp", "DP", "data parallelism", 2, FreeSizes::UpTo4096, "Data parallelism: replicas that process different data."},
    {ParallelDim::Pp, "pp", "PP", "pipeline parallelism", 1, FreeSizes::UpToLayers, "Pipeline parallelism: splits the layers into stages."},
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

}  // namespace trainplan
