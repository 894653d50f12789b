// Tokens per parameter against the compute-optimal ratio: Hoffmann et al. 2022, "Training
// Compute-Optimal Large Language Models" (arXiv 2203.15556), find that parameters and training
// tokens should grow in equal proportion, about 20 tokens per parameter (their Table 3 and Fig. 1;
// Chinchilla itself, 70B on 1.4T tokens, is the example). The study is of dense models, so a
// mixture-of-experts model is measured by its active parameters. The estimate's JSON, the
// derivation, the parameters card and the sizing all read it here.
#pragma once

#include "core/estimate/Estimate.h"

namespace trainplan {

inline constexpr double kChinchillaTokensPerParameter = 20.0;

// Training tokens per (active) parameter; 0 when there are no parameters.
inline double tokensPerParameter(double tokens, const ParameterCounts& parameters)
{
    return parameters.active > 0 ? tokens / parameters.active : 0.0;
}

// Within a factor of 1.5 of 20 reads as near compute-optimal; the study's IsoFLOP curves are flat
// there (Fig. 3: a factor of 1.5 either way costs a few percent of loss-equivalent compute).
enum class TrainingRegime { UnderTrained, NearComputeOptimal, PastComputeOptimal };

inline TrainingRegime trainingRegime(double tokensPerParameterRatio)
{
    const double r = tokensPerParameterRatio / kChinchillaTokensPerParameter;
    return r > 1.5 ? TrainingRegime::PastComputeOptimal : r < 1 / 1.5 ? TrainingRegime::UnderTrained : TrainingRegime::NearComputeOptimal;
}

inline const char* trainingRegimeText(TrainingRegime regime)
{
    switch (regime) {
    case TrainingRegime::UnderTrained: return "under-trained for its size (more tokens, or a smaller model, would use the compute better)";
    case TrainingRegime::PastComputeOptimal: return "trained past compute-optimal (a smaller model on more tokens, as for cheaper inference)";
    case TrainingRegime::NearComputeOptimal: break;
    }
    return "near compute-optimal";
}

}  // namespace trainplan
