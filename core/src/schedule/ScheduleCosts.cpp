// Op durations for the schedule simulator from the plan's cost model.
#include "schedule/Schedule.h"

namespace trainplan {

// Per GPU and micro-batch, with T = b s / cp tokens on the GPU and TP splitting every matmul:
//   linear layers, forward:   2 P_layer T / t      (2 FLOPs per parameter per token: the
//                                                  forward third of 6 N; Kaplan et al. 2020, Sec. 2.1)
//   attention core, forward:  4 (a d) s T / t      (QK^T and AV; the forward third of
//                                                  12 L h s per token; PaLM, Chowdhery et al. 2022, App. B)
//   LM head, forward:         2 V h T / t on the last stage; the embedding lookup on stage 0
//                             does no matmul and is left out
//   backward:                 2 x forward (input and weight gradients, one forward-sized
//                             matmul each; Kaplan et al. 2020, Sec. 2.1; Narayanan et al.
//                             2021, App. "Floating-point operations")
//   weight-gradient part W:   the linear layers' forward FLOPs again (Qi et al. 2023, Table 1:
//                             W has the forward's matmul FLOPs and no attention-core term);
//                             the attention core's gradient and any recompute stay in B
//   recompute:                full adds every layer's forward to the backward; selective the
//                             attention core's forward (Korthikanti et al. 2022, Sec. 5)
// Seconds: the plan's MFU is end to end (docs/plan-format.md: time = FLOPs / (MFU peak GPUs)), so
// the bubble is already inside it. Ops therefore run at the rate that makes the mean stage's
// busy time equal the estimate's step time less the plan's closed-form bubble:
//   k = est.time.stepSeconds (1 - bubble) / (mean busy seconds at peak).
// Uniform stages then reproduce the estimate's step; uneven stages, sends and the DP tail
// show up as extra time. Every schedule kind uses the same op durations, so comparisons
// are fair. Sends take est.communication.ppSecondsPerSend, the DP reduction
// est.communication.dpSeconds.
ScheduleCosts scheduleCosts(const Plan& plan, const Estimate& est, ScheduleKind kind)
{
    const auto& l = plan.layout;
    const auto& model = plan.model;
    ScheduleCosts costs;
    costs.p = l.pp;
    costs.m = est.pipeline.microbatches;
    costs.v = kind == ScheduleKind::Interleaved ? l.virtualStages : 1;
    costs.sendSeconds = est.communication.ppSecondsPerSend;
    costs.dpSyncSeconds = est.communication.dpSeconds;

    const double tokens = double(plan.training.microBatchSize) * model.sequenceLength / l.cp;
    const double secondsPerFlop = 1.0 / (plan.cluster.peakFlopsPerGpu * l.tp);  // at peak; scaled below
    const double qDim = double(model.attentionHeads) * model.headDim;
    const double linear = 2.0 * est.parameters.perLayer * tokens * secondsPerFlop;
    const double attention = 4.0 * qDim * model.sequenceLength * tokens * secondsPerFlop;
    const double lmHead = 2.0 * est.parameters.wordEmbedding * tokens * secondsPerFlop;
    double recompute = 0.0;
    switch (l.recompute) {
    case Recompute::None: break;
    case Recompute::Selective: recompute = attention; break;
    case Recompute::Full: recompute = linear + attention; break;
    }
    const StageCosts perLayer{linear + attention, 2.0 * (linear + attention) + recompute, linear};

    // Layers per stage as the memory estimate split them (splitLayers(), PipelineModel.h);
    // each stage's layers spread over its v chunks, any remainder on the first chunks.
    const int v = costs.v;
    costs.stages.resize(size_t(costs.p) * v);
    for (int i = 0; i < costs.p; ++i) {
        const StageEstimate& stage = est.stages[i];
        for (int c = 0; c < v; ++c) {
            const double layers = stage.layers / v + (c < stage.layers % v ? 1 : 0);
            StageCosts& sc = costs.stages[size_t(c) * costs.p + i];
            sc.forwardSeconds = layers * perLayer.forwardSeconds;
            sc.backwardSeconds = layers * perLayer.backwardSeconds;
            sc.weightGradSeconds = layers * perLayer.weightGradSeconds;
            if (stage.hasLmHead && c == v - 1) {
                sc.forwardSeconds += lmHead;
                sc.backwardSeconds += 2.0 * lmHead;
                sc.weightGradSeconds += lmHead;
            }
        }
    }
    double busy = 0.0;
    for (const auto& sc : costs.stages)
        busy += sc.forwardSeconds + sc.backwardSeconds;
    const double meanBusyAtPeak = busy * double(costs.m) / costs.p;
    const double k = meanBusyAtPeak > 0 ? est.time.stepSeconds * (1.0 - est.pipeline.bubbleFraction) / meanBusyAtPeak : 0.0;
    for (auto& sc : costs.stages) {
        sc.forwardSeconds *= k;
        sc.backwardSeconds *= k;
        sc.weightGradSeconds *= k;
    }
    return costs;
}

ScheduleCosts scheduleCosts(const Plan& plan, const Estimate& est)
{
    return scheduleCosts(plan, est, scheduleKindOf(plan.layout.schedule));
}

}  // namespace trainplan
