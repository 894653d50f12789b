// The step-time figures a plan may give itself (cluster.efficiency.*), in one table: the plan
// path, the figure the prediction uses (AcceleratorEfficiency) and the plan's own value
// (EfficiencySpec). The window's boxes, the PDF's inputs and efficiencyFor() walk it, so a new
// figure is added here once (and to the reader and writer, which check each field's type).
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>

#include "core/plan/Plan.h"
#include "core/presets/AcceleratorEfficiency.h"

namespace trainplan {

struct EfficiencyField {
    std::string_view path;  // "cluster.efficiency.matmul_fraction"
    double (*figure)(const AcceleratorEfficiency&);
    std::optional<double> (*given)(const EfficiencySpec&);
    void (*set)(EfficiencySpec&, std::optional<double>);  // rounds to whole numbers for the integer figures
    void (*apply)(const EfficiencySpec&, AcceleratorEfficiency&);  // the plan's figure, if given, in place of the preset's
};

namespace efficiencyfields {

template <auto Figure, auto Given>
constexpr EfficiencyField field(std::string_view path)
{
    return {path, [](const AcceleratorEfficiency& e) { return double(e.*Figure); },
        [](const EfficiencySpec& s) -> std::optional<double> {
            const auto& v = s.*Given;
            return v ? std::optional<double>(double(*v)) : std::nullopt;
        },
        [](EfficiencySpec& s, std::optional<double> v) {
            auto& slot = s.*Given;
            using Value = typename std::remove_reference_t<decltype(slot)>::value_type;
            if (!v)
                slot.reset();
            else if constexpr (std::is_integral_v<Value>)
                slot = static_cast<Value>(std::lround(*v));
            else
                slot = *v;
        },
        [](const EfficiencySpec& s, AcceleratorEfficiency& e) {
            if (const auto& v = s.*Given)
                e.*Figure = *v;
        }};
}

}  // namespace efficiencyfields

inline constexpr std::array<EfficiencyField, EfficiencySpec::kFields> kEfficiencyFields{{
    efficiencyfields::field<&AcceleratorEfficiency::matmulEfficiency, &EfficiencySpec::matmul>("cluster.efficiency.matmul_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::smCount, &EfficiencySpec::smCount>("cluster.efficiency.sm_count"),
    efficiencyfields::field<&AcceleratorEfficiency::gemmTileM, &EfficiencySpec::gemmTileM>("cluster.efficiency.gemm_tile_m"),
    efficiencyfields::field<&AcceleratorEfficiency::gemmTileN, &EfficiencySpec::gemmTileN>("cluster.efficiency.gemm_tile_n"),
    efficiencyfields::field<&AcceleratorEfficiency::gemmKHalf, &EfficiencySpec::gemmKHalf>("cluster.efficiency.gemm_k_half"),
    efficiencyfields::field<&AcceleratorEfficiency::flashAttentionEfficiency, &EfficiencySpec::flashAttention>(
        "cluster.efficiency.flash_attention_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::flash3AttentionEfficiency, &EfficiencySpec::flashAttention3>(
        "cluster.efficiency.flash_attention_3_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::hbmBytesPerSecond, &EfficiencySpec::hbmBytesPerSecond>(
        "cluster.efficiency.hbm_bandwidth_gb_per_s"),
    efficiencyfields::field<&AcceleratorEfficiency::hbmEfficiency, &EfficiencySpec::hbm>("cluster.efficiency.hbm_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::intraNodeCollectiveEfficiency, &EfficiencySpec::scaleUpCollective>(
        "cluster.efficiency.scale_up_collective_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::interNodeCollectiveEfficiency, &EfficiencySpec::networkCollective>(
        "cluster.efficiency.network_collective_fraction"),
    efficiencyfields::field<&AcceleratorEfficiency::kernelOverheadSeconds, &EfficiencySpec::kernelOverheadSeconds>(
        "cluster.efficiency.kernel_overhead_us"),
    efficiencyfields::field<&AcceleratorEfficiency::kernelLaunchSeconds, &EfficiencySpec::kernelLaunchSeconds>(
        "cluster.efficiency.kernel_launch_us"),
    efficiencyfields::field<&AcceleratorEfficiency::scaleUpStepSeconds, &EfficiencySpec::scaleUpStepSeconds>(
        "cluster.efficiency.scale_up_step_latency_us"),
    efficiencyfields::field<&AcceleratorEfficiency::networkStepSeconds, &EfficiencySpec::networkStepSeconds>(
        "cluster.efficiency.network_step_latency_us"),
}};

}  // namespace trainplan
