// The one table of enum <-> file-name spellings, shared by the reader, the writer,
// the CLI and the UI's combo boxes.
#pragma once

#include "core/base/NameTable.h"
#include "core/plan/Plan.h"

namespace trainplan {

inline constexpr NameTable<FfnKind, 2> kFfnKindNames{{{FfnKind::SwiGlu, "swiglu"}, {FfnKind::Gelu, "gelu"}}};
inline constexpr NameTable<NormKind, 2> kNormNames{{{NormKind::RmsNorm, "rmsnorm"}, {NormKind::LayerNorm, "layernorm"}}};
inline constexpr NameTable<PositionEmbedding, 2> kPositionNames{
    {{PositionEmbedding::Rope, "rope"}, {PositionEmbedding::Learned, "learned"}}};
inline constexpr NameTable<PrecisionScheme, 3> kPrecisionNames{{
    {PrecisionScheme::Bf16WithFp32MasterAdam, "bf16-fp32-master-adam"},
    {PrecisionScheme::Bf16AdamNoMaster, "bf16-adam-no-master"},
    {PrecisionScheme::Fp32Adam, "fp32-adam"},
}};
inline constexpr NameTable<Schedule, 5> kScheduleNames{{{Schedule::GPipe, "gpipe"}, {Schedule::OneFOneB, "1f1b"},
    {Schedule::Interleaved, "interleaved"}, {Schedule::ZeroBubble, "zero-bubble"}, {Schedule::DualPipe, "dualpipe"}}};
inline constexpr NameTable<Recompute, 3> kRecomputeNames{
    {{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}}};
inline constexpr NameTable<MatmulPrecision, 5> kMatmulPrecisionNames{{{MatmulPrecision::Bf16, "bf16"},
                                                                      {MatmulPrecision::Fp8, "fp8"},
                                                                      {MatmulPrecision::Fp8Blockwise, "fp8-blockwise"},
                                                                      {MatmulPrecision::Mxfp8, "mxfp8"},
                                                                      {MatmulPrecision::Nvfp4, "nvfp4"}}};
inline constexpr NameTable<InNetworkReduction, 3> kInNetworkReductionNames{
    {{InNetworkReduction::None, "none"}, {InNetworkReduction::Nvls, "nvls"}, {InNetworkReduction::NvlsAndIbSharp, "nvls-and-ib-sharp"}}};
inline constexpr NameTable<RankOrder, 3> kRankOrderNames{{
    {RankOrder::TpCpDpPp, "tp-cp-dp-pp"},
    {RankOrder::TpCpPpDp, "tp-cp-pp-dp"},
    {RankOrder::TpDpCpPp, "tp-dp-cp-pp"},
}};

}  // namespace trainplan
