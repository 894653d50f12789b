#include "core/estimate/ActivationModel.h"

#include <algorithm>

namespace trainplan {

namespace {

// Dropout masks (one byte per element after attention and after the MLP) are part of Korthikanti
// et al.'s 34; a framework that runs without dropout stores neither: 2 of the 34 bytes. Unknown
// dropout keeps them (memory errs towards not fitting).
double dropoutMaskBytes(const Plan& plan)
{
    return frameworkSwitch(plan.framework, &FrameworkSpec::dropout).value_or(true) ? 0.0 : 2.0;
}

double localSequence(const Plan& plan)
{
    return double(plan.model.sequenceLength) / plan.layout.cp;
}

// Korthikanti et al. 2022, Table 2, as bytes for 16-bit activations:
//   no recompute, TP only:   s b h (10 + 24/t + 5 a s / (h t))
//   TP + sequence parallel:  s b h (34/t + 5 a s / (h t))
//   selective recompute, or flash attention, drops the 5 a s / (h t) score term
//   (FlashAttention never stores the s x s scores; Dao et al. 2022, Sec. 3.1).
// With t = 1 both rows reduce to the paper's no-parallelism s b h (34 + 5 a s / h).
// Scaled by bytes-per-element / 2 for FP32 activations. Context parallelism splits s.
ActivationEstimate storedActivations(const Plan& plan, bool ignoreRecompute)
{
    const auto& m = plan.model;
    const auto& l = plan.layout;
    const double t = l.tp;
    const double s = localSequence(plan);
    const double b = plan.training.microBatchSize;
    const double h = m.hiddenSize;
    const double a = m.attentionHeads;
    const double scale = activationBytesPerElement(plan.training.precision) / 2.0;

    ActivationEstimate e;
    e.sbh = s * b * h;
    // Without dropout the two mask bytes go: from the t-sharded part with SP, from the unsharded
    // 10 (the masks sit on the residual path, Korthikanti Sec. 4.2.2) without it.
    const double masks = dropoutMaskBytes(plan);
    e.linearCoefficient = l.sequenceParallel ? (34.0 - masks) / t : 10.0 - masks + 24.0 / t;
    const bool storesScores = !usesFlashAttention(plan) && (ignoreRecompute || l.recompute == Recompute::None);
    // Scores are a_local x s_local x s (each CP rank's queries against the whole sequence).
    e.attentionScoreTerm = storesScores ? 5.0 * a * s * l.cp / (h * t) : 0.0;
    e.perLayerPerMicrobatch = e.sbh * (e.linearCoefficient + e.attentionScoreTerm) * scale;
    return e;
}

}  // namespace

ActivationEstimate activationPerLayer(const Plan& plan)
{
    if (plan.layout.recompute != Recompute::Full)
        return storedActivations(plan, false);
    // Full recompute keeps only each layer's input: 2 s b h bytes (Korthikanti Table 2,
    // last row), divided by t when sequence parallelism shards it.
    ActivationEstimate e = storedActivations(plan, false);
    e.linearCoefficient = plan.layout.sequenceParallel ? 2.0 / plan.layout.tp : 2.0;
    e.attentionScoreTerm = 0.0;
    e.perLayerPerMicrobatch = e.sbh * e.linearCoefficient * activationBytesPerElement(plan.training.precision) / 2.0;
    return e;
}

double recomputeWorkingSet(const Plan& plan)
{
    if (plan.layout.recompute != Recompute::Full)
        return 0.0;
    return storedActivations(plan, true).perLayerPerMicrobatch;
}

bool usesFlashAttention(const Plan& plan)
{
    return frameworkSwitch(plan.framework, &FrameworkSpec::flashAttention).value_or(kUnknownFlashAttentionExpected)
        != FlashAttentionVersion::None;
}

double gradientBytesPerParameter(const Plan& plan)
{
    const double own = stateBytesPerParameter(plan.training.precision).gradients;
    return frameworkSwitch(plan.framework, &FrameworkSpec::fp32Gradients).value_or(false) ? std::max(own, 4.0) : own;
}

double gatheredParameterBytes(const Plan& plan, double layerParametersPerGpu)
{
    if (plan.layout.zeroStage < 3)
        return 0.0;
    const auto state = stateBytesPerParameter(plan.training.precision);
    return layerParametersPerGpu * (2.0 * state.weights + gradientBytesPerParameter(plan));
}

double logitsBytes(const Plan& plan)
{
    const double s = localSequence(plan);
    const double b = plan.training.microBatchSize;
    const double h = plan.model.hiddenSize;
    const double v = plan.model.vocabSize;
    return 4.0 * s * b * h / plan.layout.tp * (1.0 + v / h);
}

}  // namespace trainplan
