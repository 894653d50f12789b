// Where a figure turns from fine to worth a look or wrong: every threshold that colours or flags a
// figure in the window, the report or the slides, with why it sits there and where it comes from.
// Views ask these verdicts and never compare a figure with a number of their own, so one plan
// reads the same everywhere and a threshold moves in one place.
#pragma once

#include "core/estimate/Estimate.h"
#include "core/estimate/LayoutChecks.h"
#include "core/estimate/MemoryRange.h"

namespace trainplan {

// How a figure reads: as planned, worth a look (amber), or wrong (red).
enum class Verdict { Fine, Warning, Error };

// Memory. The fullest GPU reads as its range's verdict (MemoryFit.h: the range against capacity less
// training.memory_margin_fraction): red when even the low end is over, amber when the range
// straddles it ("may not fit", which also raises MEMORY_MAY_NOT_FIT), else fine.
inline Verdict memoryVerdict(MemoryFit fit)
{
    switch (fit) {
    case MemoryFit::Fits: return Verdict::Fine;
    case MemoryFit::MayNotFit: return Verdict::Warning;
    case MemoryFit::DoesNotFit: return Verdict::Error;
    }
    return Verdict::Fine;
}

inline Verdict memoryVerdict(const MemoryRange& range)
{
    return memoryVerdict(range.fit);
}

// A stage keeping less than twice the margin free is tight: the first to run out when activations
// or the framework's buffers come out larger than modelled (the memory range allows the model 15 %
// above, MemoryRange.cpp). This tool's rule, not a published figure; at the default margin (5 %)
// it is "more than 90 % full".
inline constexpr double kTightMemoryMargins = 2.0;

// A stage that fits but is tight: the report names it among the risks.
inline bool stageIsTight(const StageEstimate& stage, const Estimate& est)
{
    return stage.fits && stage.headroomBytes < kTightMemoryMargins * est.marginBytes;
}

// Pipeline bubble. Above kLargeBubbleFraction (20 % of the pipeline's time idle, LayoutChecks.h:
// the LARGE_BUBBLE red flag) a bubble figure is amber, whichever basis shows it (the closed form
// or the predicted, simulated one). From kBubbleRiskFraction (10 %, half the red flag: this tool's
// rule) the report lists it among the risks, before it is large enough to flag. For scale: worked
// example A's 1F1B bubble is 3/19 = 16 % (Narayanan et al. 2021, docs/worked-examples.md).
inline constexpr double kBubbleRiskFraction = 0.10;

inline Verdict bubbleVerdict(double bubbleFraction)
{
    return bubbleFraction > kLargeBubbleFraction ? Verdict::Warning : Verdict::Fine;
}

inline bool bubbleIsRisk(double bubbleFraction)
{
    return bubbleFraction >= kBubbleRiskFraction;
}

// Exposed communication (TP, CP, ZeRO, PP sends, DP tail) of at least 5 % of the step is where a
// slower link than modelled shows first; the report lists each such part among the risks. This
// tool's rule: below it, a link twice as slow as modelled moves the step by under 5 %, inside the
// step-time model's own error (×0.88 to ×1.18 of the step at 90 % coverage, StepTimeRange.cpp).
inline constexpr double kExposedCommunicationRiskFraction = 0.05;

inline bool communicationIsRisk(double exposedSeconds, double stepSeconds)
{
    return exposedSeconds >= kExposedCommunicationRiskFraction * stepSeconds;
}

// An MoE layout whose exposed expert all-to-all and load imbalance take more than this share of
// the predicted step is flagged (WarningCode::AllToAllDominates): DeepSeek-V3's design goal was to
// hide the all-to-all entirely (technical report, Sec. 3.2.1); a quarter of the step exposed is
// the point where a layout change (EP inside a node, overlap, DeepEP) usually pays (judgement).
inline constexpr double kAllToAllDominatesShare = 0.25;

// The reality check's gates (RealityCheck.h): the step-time model's median |error| over the
// published runs stays within 10 % and every gated run within 25 %; tst_realitycheck holds the
// model to them and the reality-check view colours each run's error by them.
inline constexpr double kRealityMedianGate = 0.10;
inline constexpr double kRealityCaseGate = 0.25;

// One run's |error|: Fine within the median gate, Warning within the case gate, else Error.
inline Verdict realityErrorVerdict(double absError)
{
    if (absError <= kRealityMedianGate)
        return Verdict::Fine;
    return absError <= kRealityCaseGate ? Verdict::Warning : Verdict::Error;
}

}  // namespace trainplan
