#include "core/text/Derivation.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "core/analysis/Analysis.h"
#include "core/analysis/MemoryFitSentence.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/estimate/ActivationModel.h"
#include "core/estimate/ComputeOptimal.h"
#include "core/estimate/ModelStateModel.h"
#include "core/estimate/MoeArithmetic.h"
#include "core/estimate/ParameterModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/estimate/ReliabilityModel.h"
#include "core/estimate/ReserveModel.h"
#include "core/estimate/ShardingBuffers.h"
#include "core/plan/EnumNames.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

namespace trainplan {

namespace {

std::string sci(double v) { return formatSci(v, 4); }
std::string num(double v) { return formatNumber(v, 4); }
std::string integer(double v) { return formatInteger(v); }
// A count that need not be whole, with thousands separators and as many decimals (up to four)
// as it takes to show the fraction: "333,786.4", never rounded to a neighbouring whole number.
std::string exactCount(double v)
{
    const double whole = std::floor(v);
    const double fraction = v - whole;
    if (fraction < 1e-9)
        return formatInteger(whole);
    for (int decimals = 1; decimals <= 4; ++decimals) {
        const double scale = std::pow(10.0, decimals);
        const long long digits = std::llround(fraction * scale);
        if ((digits > 0 && digits < (long long)scale) || decimals == 4) {
            std::string tail = std::to_string(std::min(digits, (long long)scale - 1));
            tail.insert(0, size_t(decimals) - tail.size(), '0');
            return formatInteger(whole) + "." + tail;
        }
    }
    return formatInteger(whole);
}


// Each step's source names where its formula comes from. A worked example's own figure is shown
// only when the plan is that example, in the note and marked "for comparison" (compare()).
class SectionBuilder {
public:
    SectionBuilder(std::string title, WorkedExample example) : example_(example) { section_.title = std::move(title); }

    DerivationStep& add(std::string id, std::string title, std::string formula, std::string substituted, double value,
                        std::string unit, std::string result, std::string source)
    {
        section_.steps.push_back(DerivationStep{std::move(id), std::move(title), std::move(formula), std::move(substituted), value,
                                                std::move(unit), std::move(result), std::move(source), {}});
        return section_.steps.back();
    }

    DerivationStep& last() { return section_.steps.back(); }

    // Appends a worked example's own figure to the step's note when the plan is that example.
    void compare(DerivationStep& step, WorkedExample which, const std::string& figure) const
    {
        if (which != example_ || which == WorkedExample::None)
            return;
        const std::string text = std::string("for comparison, worked example ") + (which == WorkedExample::A ? "A" : "B") + ": " + figure;
        step.note = step.note.empty() ? text : step.note + "; " + text;
    }

    DerivationSection take() { return std::move(section_); }

private:
    DerivationSection section_;
    WorkedExample example_;
};

constexpr WorkedExample A = WorkedExample::A;
constexpr WorkedExample B = WorkedExample::B;

std::string check(bool ok) { return ok ? "pass" : "FAIL"; }

// MoE, MLA or MTP: the model FLOPs are Megatron-LM's count (MoeArithmetic.h), each of its terms
// a step; 6 N_active D is shown for comparison, as the report quotes it.
void addMegatronFlopsSteps(SectionBuilder& s, const Plan& plan, const Estimate& e)
{
    const auto& m = plan.model;
    const auto& p = e.parameters;
    const auto& f = e.flops;
    const double D = plan.training.tokens;
    const MegatronFlopsTerms t = megatronFlopsTerms(transformerShapeOf(m));
    s.add("flops.model_6nd", "6 N_active D (a comparison)", "6 · N_active · D", "6 × " + sci(p.active) + " × " + sci(D), f.model6nd, "FLOPs",
          formatSci(f.model6nd) + " FLOPs", "Kaplan et al. 2020, Sec. 2.1, with the parameters a token touches")
        .note = "the model FLOPs below use Megatron-LM's count, which MFU reports on";
    // The layers of each kind as the count takes them: MTP depths count as layers of the last kind.
    const std::string h = integer(m.hiddenSize), mats = integer(ffnMatrixCount(m.kind(0).ffnKind));
    const bool lastIsMoe = m.hasMoeLayers();
    int moeLayers = 0;
    for (int k = 0; k < m.kindCount(); ++k)
        moeLayers += m.kind(k).moe ? m.layersOfKind(k) : 0;
    const int denseLayers = m.layers - moeLayers + (lastIsMoe ? 0 : m.mtpLayers);
    moeLayers += lastIsMoe ? m.mtpLayers : 0;
    std::string ffnValues;
    if (denseLayers > 0)
        ffnValues = integer(denseLayers) + " × " + mats + " × " + h + " × " + integer(m.ffnHiddenSize);
    if (moeLayers > 0 && m.moe)
        ffnValues += (ffnValues.empty() ? "" : " + ") + integer(moeLayers) + " × " + mats + " × " + h + " × (" + integer(m.moe->topK)
                     + " × " + integer(m.moe->expertFfnHiddenSize) + " + " + integer(m.moe->sharedExperts) + " × "
                     + integer(m.moe->sharedWidth()) + ")";
    std::string attentionValues = integer(double(m.layers) + m.mtpLayers) + " × (";
    if (m.mla) {
        const MlaSpec& la = *m.mla;
        const std::string heads = integer(m.attentionHeads);
        attentionValues += (la.qLoraRank > 0 ? integer(la.qLoraRank) + " × (" + h + " + " + heads + " × "
                                                   + integer(double(la.qkNopeHeadDim) + la.qkRopeHeadDim) + " + 1)"
                                             : h + " × " + heads + " × " + integer(double(la.qkNopeHeadDim) + la.qkRopeHeadDim))
                           + " + " + integer(la.kvLoraRank) + " × (" + h + " + " + heads + " × "
                           + integer(double(la.qkNopeHeadDim) + la.vHeadDim) + " + 1) + " + h + " × " + integer(la.qkRopeHeadDim) + " + "
                           + heads + " × " + integer(la.vHeadDim) + " × " + h + ")";
    } else {
        attentionValues += "2 × " + h + " × " + integer(double(m.attentionHeads) * m.headDim) + " + 2 × " + h + " × "
                           + integer(double(m.kvHeads) * m.headDim) + ")";
    }
    s.add("flops.ffn_weights", "Feed-forward weights a token's GEMMs read", "L_dense·M·h·f + L_moe·M·h·(k·f_e + S·f_s), M = " + mats + " FFN matrices",
          ffnValues, t.ffnWeights, "weights", formatCount(t.ffnWeights),
          "Megatron-LM num_floating_point_operations (routed experts a token visits and the shared ones; not the router)");
    s.add("flops.attention_weights", "Attention projection weights per token",
          m.mla ? "(L + D_mtp) · (q_r·(h + a·d_qk + 1) + kv_r·(h + a·(d_nope + d_v) + 1) + h·d_rope + a·d_v·h)"
                : "(L + D_mtp) · (2·h·a·d + 2·h·k·d)",
          attentionValues, t.attentionWeights, "weights", formatCount(t.attentionWeights),
          "Megatron-LM num_floating_point_operations (one column for each latent's norm)");
    s.add("flops.attention_per_token", "Attention core FLOPs per token", "6 · (L + D_mtp) · s · a · (d_qk + d_v) · ½",
          "6 × " + integer(double(m.layers) + m.mtpLayers) + " × " + integer(m.sequenceLength) + " × " + integer(m.attentionHeads)
              + " × (" + integer(m.mla ? double(m.mla->qkNopeHeadDim) + m.mla->qkRopeHeadDim : double(m.headDim)) + " + "
              + integer(m.mla ? double(m.mla->vHeadDim) : double(m.headDim)) + ") × 0.5",
          f.attentionPerToken, "FLOPs", formatSci(f.attentionPerToken) + " FLOPs/token",
          "Megatron-LM num_floating_point_operations (causal half of Q K^T and the values)");
    s.add("flops.per_token", "Model FLOPs per token (Megatron-LM's count)", "6 · (FFN + attention + MTP + logits weights) + attention core",
          "6 × (" + formatCount(t.ffnWeights) + " + " + formatCount(t.attentionWeights) + " + " + formatCount(t.mtpWeights) + " + "
              + formatCount(t.logitWeights) + ") + " + formatSci(t.attentionCore),
          f.perToken, "FLOPs", formatSci(f.perToken) + " FLOPs/token",
          "Megatron-LM num_floating_point_operations; logits once for the model and once per MTP depth");
    s.add("flops.attention", "Attention core FLOPs over the run", "attention core per token · D",
          formatSci(f.attentionPerToken) + " × " + sci(D), f.attention, "FLOPs", formatSci(f.attention) + " FLOPs", "per token × D");
    s.add("flops.total", "Model FLOPs", "per token · D", formatSci(f.perToken) + " × " + sci(D), f.total, "FLOPs",
          formatSci(f.total) + " FLOPs", "Megatron-LM num_floating_point_operations × tokens");
    const char* recomputeFormula = plan.layout.recompute == Recompute::Full       ? "model + recomputed layers' forward (⅓ of their share)"
                                   : plan.layout.recompute == Recompute::Selective ? "model + attention core forward (⅓ of it)"
                                                                                   : "model (no recompute)";
    s.add("flops.hardware", "Hardware FLOPs (with recompute)", recomputeFormula,
          plan.layout.recompute == Recompute::None ? formatSci(f.total) : formatSci(f.total) + " + " + formatSci(f.recompute), f.hardware,
          "FLOPs", formatSci(f.hardware) + " FLOPs", "Korthikanti et al. 2022, Sec. 5 (recompute repeats the forward, a third of the count)");
}

DerivationSection computeSection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& m = plan.model;
    const auto& p = e.parameters;
    const auto& f = e.flops;
    const auto& t = e.time;
    const double D = plan.training.tokens;
    const double qDim = double(m.attentionHeads) * m.headDim;
    const double kvDim = double(m.kvHeads) * m.headDim;
    SectionBuilder s("Compute and time", example);

    if (m.mla) {
        // Multi-head latent attention (MoeArithmetic.cpp, attentionParameters).
        const MlaSpec& la = *m.mla;
        const std::string h = integer(m.hiddenSize), heads = integer(m.attentionHeads);
        const std::string qk = integer(double(la.qkNopeHeadDim) + la.qkRopeHeadDim);
        const std::string q = la.qLoraRank > 0 ? "h·q_r + q_r + q_r·a·(d_nope + d_rope)" : "h·a·(d_nope + d_rope)";
        const std::string qValues = la.qLoraRank > 0 ? h + " × " + integer(la.qLoraRank) + " + " + integer(la.qLoraRank) + " + "
                                                           + integer(la.qLoraRank) + " × " + heads + " × " + qk
                                                     : h + " × " + heads + " × " + qk;
        s.add("parameters.attention_per_layer", "Attention parameters per layer (multi-head latent attention)",
            q + " + h·(kv_r + d_rope) + kv_r + kv_r·a·(d_nope + d_v) + a·d_v·h",
            qValues + " + " + h + " × " + integer(double(la.kvLoraRank) + la.qkRopeHeadDim) + " + " + integer(la.kvLoraRank) + " + "
                + integer(la.kvLoraRank) + " × " + heads + " × " + integer(double(la.qkNopeHeadDim) + la.vHeadDim) + " + " + heads
                + " × " + integer(la.vHeadDim) + " × " + h,
            p.kinds.front().attention, "parameters", formatCount(p.kinds.front().attention),
            "DeepSeek-V2 (Liu et al. 2024), Eq. 9-14: latent down- and up-projections with their RMSNorms, the decoupled RoPE key");
    } else {
        s.add("parameters.attention_per_layer", "Attention parameters per layer (GQA)",
            "h·(a·d) + 2·h·(k·d) + (a·d)·h" + std::string(m.bias ? " + biases" : ""),
            integer(m.hiddenSize) + " × " + integer(qDim) + " + 2 × " + integer(m.hiddenSize) + " × " + integer(kvDim) + " + "
                + integer(qDim) + " × " + integer(m.hiddenSize),
            p.kinds.front().attention, "parameters", formatCount(p.kinds.front().attention),
            "Vaswani et al. 2017 (Q, K, V, O projections); Ainslie et al. 2023 (GQA: k KV heads)");
        s.compare(s.last(), B, "2D² + 2DKH ≈ 151.0 million");
    }
    // Each layer kind's feed-forward and whole layer (LayerKind.h); a model of one kind keeps
    // the step names it always had, several kinds number theirs (parameters.per_layer.2).
    const int kinds = int(p.kinds.size());
    const bool oneKind = kinds == 1;
    std::string layersFormula, layersValues;
    for (int k = 0; k < kinds; ++k) {
        const LayerKind kind = m.kind(k);
        const LayerParameters& lp = p.kinds[size_t(k)];
        const std::string id = oneKind ? "" : "." + std::to_string(k + 1);
        const std::string of = oneKind ? "" : " (" + m.kindLabel(k) + ")";
        const bool gated = kind.ffnKind == FfnKind::SwiGlu;
        const std::string matrices = integer(ffnMatrixCount(kind.ffnKind));
        if (kind.moe && m.moe) {
            // Routed experts, shared experts and the router (MoeArithmetic.cpp, moeFfnParameters).
            const MoeSpec& moe = *m.moe;
            const std::string h = integer(m.hiddenSize);
            const std::string router = moe.routerBias ? "E·h + E" : "E·h";
            const std::string routerValues =
                integer(moe.experts) + " × " + h + (moe.routerBias ? " + " + integer(moe.experts) : std::string());
            const std::string shared = moe.sharedExperts > 0 ? " + S·" + matrices + "·h·f_s" : std::string();
            const std::string sharedValues = moe.sharedExperts > 0 ? " + " + integer(moe.sharedExperts) + " × " + matrices + " × " + h + " × "
                                                                       + integer(moe.sharedWidth())
                                                                 : std::string();
            s.add("parameters.ffn_per_layer" + id, "Mixture-of-experts feed-forward parameters per layer" + of,
                "E·" + matrices + "·h·f_e" + shared + " + " + router,
                integer(moe.experts) + " × " + matrices + " × " + h + " × " + integer(moe.expertFfnHiddenSize) + sharedValues + " + "
                    + routerValues,
                lp.ffn, "parameters", formatCount(lp.ffn),
                "Shazeer et al. 2017 and Fedus et al. 2022 (E routed experts and a gate of E × h); DeepSeekMoE (Dai et al. 2024, "
                "shared experts); DeepSeek-V3 report Sec. 2.1.2 (the router's bias)");
            const double activeFfn = lp.active - lp.attention - lp.norms;
            s.add("parameters.active_ffn_per_layer" + id, "Feed-forward parameters a token passes through" + of,
                "k·" + matrices + "·h·f_e" + shared + " + " + router,
                integer(moe.topK) + " × " + matrices + " × " + h + " × " + integer(moe.expertFfnHiddenSize) + sharedValues + " + "
                    + routerValues,
                activeFfn, "parameters", formatCount(activeFfn), "top-k routing (Shazeer et al. 2017): k of the E routed experts");
        } else {
            s.add("parameters.ffn_per_layer" + id,
                (gated ? "Gated feed-forward parameters per layer" : "Feed-forward parameters per layer") + of,
                matrices + "·h·f" + (m.bias ? " + biases" : ""),
                matrices + " × " + integer(m.hiddenSize) + " × " + integer(kind.ffnHiddenSize), lp.ffn, "parameters",
                formatCount(lp.ffn),
                gated ? "Shazeer 2020 (SwiGLU: gate, up and down matrices)" : "Vaswani et al. 2017 (two h × f matrices)");
            s.compare(s.last(), B, "3DF ≈ 704.6 million");
        }
        s.add("parameters.per_layer" + id, "Parameters per layer" + of, "attention + feed-forward + 2 norms",
            formatCount(lp.attention) + " + " + formatCount(lp.ffn) + " + " + integer(lp.norms), lp.total, "parameters",
            formatCount(lp.total), "sum of the rows above; Zhang and Sennrich 2019 (RMSNorm: h weights each)");
        s.compare(s.last(), B, "≈ 855.6 million");
        layersFormula += std::string(k ? " + " : "")
            + (oneKind ? "L × per layer" : "L" + std::to_string(k + 1) + " × per layer " + std::to_string(k + 1));
        layersValues += std::string(k ? " + " : "") + integer(kind.layers) + " × " + formatCount(lp.total);
    }
    s.add("parameters.layers", "All transformer layers", layersFormula, layersValues, p.layers, "parameters", formatCount(p.layers),
          oneKind ? "definition (L identical layers)" : "definition (each kind's layers)");
    s.compare(s.last(), B, "80 × 855.6 million ≈ 68.4 billion");
    s.add("parameters.embedding", m.tiedEmbeddings ? "Token embedding (tied with the output layer)" : "Token embedding",
          m.positionEmbedding == PositionEmbedding::Learned ? "V·h + s·h" : "V·h",
          integer(m.vocabSize) + " × " + integer(m.hiddenSize), p.embedding, "parameters", formatCount(p.embedding),
          "Vaswani et al. 2017 (token embedding, V × h)");
    s.compare(s.last(), B, "VD ≈ 1.05 billion");
    s.add("parameters.lm_head", "Output layer (LM head)", m.tiedEmbeddings ? "0 (tied to the embedding)" : "V·h",
          m.tiedEmbeddings ? "0" : integer(m.vocabSize) + " × " + integer(m.hiddenSize), p.lmHead, "parameters", formatCount(p.lmHead),
          "Megatron-LM untie_embeddings_and_output_weights");
    if (p.mtp > 0)
        s.add("parameters.mtp", "Multi-token prediction modules",
              "D_mtp · (3 norms + h·2h projection + one layer like the last)",
              integer(m.mtpLayers) + " × (3 × " + integer(m.hiddenSize) + " + 2 × " + integer(m.hiddenSize) + "² + "
                  + formatCount(p.kinds.back().total) + ")",
              p.mtp, "parameters", formatCount(p.mtp), "DeepSeek-V3 report (Liu et al. 2024), Sec. 2.2: shares the embedding and head");
    s.add("parameters.total", "Total parameters N",
          std::string("L·layer + embedding + head + final norm") + (p.mtp > 0 ? " + MTP" : ""),
          formatCount(p.layers) + " + " + formatCount(p.embedding) + " + " + formatCount(p.lmHead) + " + " + integer(p.finalNorm)
              + (p.mtp > 0 ? " + " + formatCount(p.mtp) : std::string()),
          p.total, "parameters", formatCount(p.total), "sum of the rows above");
    s.compare(s.last(), A, "rounds N to 70e9");
    s.compare(s.last(), B, "≈ 70 billion");
    {
        // Against the compute-optimal ratio (ComputeOptimal.h): the study's models are dense, so
        // a mixture-of-experts model counts the parameters a token touches.
        const double ratio = tokensPerParameter(plan.training.tokens, p);
        s.add("parameters.tokens_per_parameter", plan.model.moe ? "Tokens per active parameter" : "Tokens per parameter",
              plan.model.moe ? "D / N_active" : "D / N", sci(plan.training.tokens) + " / " + sci(p.active), ratio, "tokens per parameter",
              formatNumber(ratio) + ": " + trainingRegimeText(trainingRegime(ratio)),
              "Hoffmann et al. 2022 (Chinchilla), arXiv 2203.15556, Table 3: compute-optimal ≈ 20 tokens per parameter");
    }
    if (p.active != p.total) {
        std::string activeFormula, activeValues;
        for (int k = 0; k < kinds; ++k) {
            activeFormula += std::string(k ? " + " : "") + "L" + std::to_string(k + 1) + " × active " + std::to_string(k + 1);
            activeValues += std::string(k ? " + " : "") + integer(m.layersOfKind(k)) + " × " + formatCount(p.kinds[size_t(k)].active);
        }
        s.add("parameters.active", "Active parameters N_active (touched per token)",
              activeFormula + " + embedding + head + final norm" + (p.mtp > 0 ? " + MTP active" : ""),
              activeValues + " + " + formatCount(p.embedding) + " + " + formatCount(p.lmHead) + " + " + integer(p.finalNorm)
                  + (p.mtp > 0 ? " + " + formatCount(p.mtpActive) : std::string()),
              p.active, "parameters", formatCount(p.active), "each layer's attention, norms and the k routed plus shared experts");
    }

    if (m.beyondDense())
        addMegatronFlopsSteps(s, plan, e);
    else {
        s.add("flops.model_6nd", "Training FLOPs, parameter matrices", "6 · N · D", "6 × " + sci(p.total) + " × " + sci(D), f.model6nd,
              "FLOPs", formatSci(f.model6nd) + " FLOPs", "Kaplan et al. 2020, Sec. 2.1");
        s.compare(s.last(), A, "≈ 5.9e23");
        s.compare(s.last(), B, "≈ 1.26e23");
        s.add("flops.attention_per_token", "Attention FLOPs per token", "12 · L · h · s",
              "12 × " + integer(m.layers) + " × " + integer(qDim) + " × " + integer(m.sequenceLength), f.attentionPerToken, "FLOPs",
              formatSci(f.attentionPerToken) + " FLOPs/token", "PaLM (Chowdhery et al. 2022), App. B")
            .note = formatPercent(f.attentionPerToken / (6.0 * p.total), 1) + " on top of 6N = " + formatSci(6.0 * p.total) + " FLOPs/token";
        s.compare(s.last(), A, "≈ 3.2e10, about 8 % on top of 6N");
        s.add("flops.attention", "Attention FLOPs over the run", "12 · L · h · s · D", formatSci(f.attentionPerToken) + " × " + sci(D),
              f.attention, "FLOPs", formatSci(f.attention) + " FLOPs", "PaLM (Chowdhery et al. 2022), App. B (per token × D)");
        s.compare(s.last(), B, "12STDL ≈ 1.93e22");
        const double lookupParameters = f.embeddingLookup / (6.0 * D);
        s.add("flops.embedding_lookup", "Embedding lookups (in 6ND, no multiply-adds)",
              m.tiedEmbeddings ? "6 · (positions) · D" : "6 · (V·h + positions) · D",
              "6 × " + sci(lookupParameters) + " × " + sci(D), f.embeddingLookup, "FLOPs", formatSci(f.embeddingLookup) + " FLOPs",
              "a gather, not a matmul; Narayanan et al. 2021, Eq. 3 counts only the output layer")
            .note = m.tiedEmbeddings ? "tied: the shared matrix is counted once, as the output layer" : "untied: the input table is only read";
        s.add("flops.total", "Model FLOPs", "6ND − lookups + 12·L·h·s·D",
              formatSci(f.model6nd) + " − " + formatSci(f.embeddingLookup) + " + " + formatSci(f.attention), f.total, "FLOPs",
              formatSci(f.total) + " FLOPs", "Narayanan et al. 2021, Eq. 3; PaLM App. B");
        s.compare(s.last(), B, "≈ 1.45e23");
        const char* recomputeFormula = plan.layout.recompute == Recompute::Full ? "model + (2·N_layers + 4·L·h·s)·D"
                                       : plan.layout.recompute == Recompute::Selective ? "model + 4·L·h·s·D (attention forward again)"
                                                                                       : "model (no recompute)";
        s.add("flops.hardware", "Hardware FLOPs (with recompute)", recomputeFormula,
              plan.layout.recompute == Recompute::None ? formatSci(f.total) : formatSci(f.total) + " + " + formatSci(f.recompute),
              f.hardware, "FLOPs", formatSci(f.hardware) + " FLOPs", "Korthikanti et al. 2022, Sec. 5; Narayanan et al. 2021, Eq. 3");
    }

    s.add("time.peak_cluster", "Cluster peak", "GPUs × peak per GPU",
          integer(e.gpusUsed) + " × " + sci(plan.cluster.peakFlopsPerGpu), t.peakClusterFlopsPerSecond, "FLOP/s",
          formatSci(t.peakClusterFlopsPerSecond) + " FLOP/s", "definition (datasheet dense BF16 peak × GPUs)");
    s.compare(s.last(), A, "≈ 2.0e18");
    s.compare(s.last(), B, "5.12e17");
    s.add("time.effective", "Useful throughput at the assumed MFU", "peak × MFU",
          formatSci(t.peakClusterFlopsPerSecond) + " × " + num(plan.training.mfu), t.effectiveFlopsPerSecond, "FLOP/s",
          formatSci(t.effectiveFlopsPerSecond) + " FLOP/s", "PaLM App. B (MFU definition)");
    s.compare(s.last(), A, "≈ 8.1e17 at 40 %");
    s.compare(s.last(), B, "2.56e17 at 50 %");
    s.add("time.model_6nd_seconds", "Time for 6ND alone", "6ND / (MFU · peak)",
          formatSci(f.model6nd) + " / " + formatSci(t.effectiveFlopsPerSecond), t.sixNdSeconds, "s",
          formatSci(t.sixNdSeconds) + " s = " + num(t.sixNdDays) + " days", "Kaplan et al. 2020 (6ND); PaLM App. B (MFU)");
    s.compare(s.last(), A, "≈ 7.3e5 s, about 8.4 days");
    s.add("time.total_seconds", "Compute time", "model FLOPs / (MFU · peak)",
          formatSci(f.total) + " / " + formatSci(t.effectiveFlopsPerSecond), t.totalSeconds, "s", formatSci(t.totalSeconds) + " s",
          "PaLM App. B (model FLOPs / (MFU × peak))");
    s.compare(s.last(), B, "≈ 568,000 s");
    s.add("time.days", "Compute days", "seconds / 86,400", formatSci(t.totalSeconds) + " / 86,400", t.days, "days",
          num(t.days) + " days", "definition");
    s.compare(s.last(), A, "~9 days of pure compute");
    s.compare(s.last(), B, "≈ 6.6 days");
    s.add("time.gpu_hours", "GPU-hours", "days × 24 × GPUs", num(t.days) + " × 24 × " + integer(e.gpusUsed), t.gpuHours, "GPU-hours",
          integer(t.gpuHours) + " GPU-hours", "definition");
    s.compare(s.last(), B, "≈ 81,000 accelerator-hours");
    s.add("time.tokens_per_step", "Tokens per optimizer step", "B · s",
          integer(double(plan.training.globalBatchSequences)) + " × " + integer(m.sequenceLength), t.tokensPerStep, "tokens",
          integer(t.tokensPerStep) + " tokens", "definition");
    s.compare(s.last(), A, "1,024 × 4,096");
    s.compare(s.last(), B, "512 × 8,192");
    s.add("time.steps", "Optimizer steps", "⌈D / tokens per step⌉", "⌈" + sci(D) + " / " + integer(t.tokensPerStep) + "⌉", double(t.steps),
          "steps", integer(double(t.steps)) + " steps", "definition");
    s.compare(s.last(), A, "≈ 334k");
    s.compare(s.last(), B, "≈ 71,500");
    // The step time divides by the exact step count (D / tokens per step), not the rounded-up
    // count above, so the division shows that count with its fraction rather than a rounded one.
    s.add("time.step_seconds", "Step time", "compute seconds / exact steps (D / tokens per step)",
          formatSci(t.totalSeconds) + " / " + exactCount(t.stepsExact), t.stepSeconds, "s", formatSeconds(t.stepSeconds), "definition")
        .note = t.stepsExact == double(t.steps) ? std::string()
                                                : "the run's " + integer(double(t.steps)) + " steps end with a partial one";
    s.compare(s.last(), A, "each step must take ~2.3 s");
    s.add("time.tokens_per_second_per_gpu", "Throughput per GPU", "D / (seconds × GPUs)",
          sci(D) + " / (" + formatSci(t.totalSeconds) + " × " + integer(e.gpusUsed) + ")", t.tokensPerSecondPerGpu, "tokens/s",
          num(t.tokensPerSecondPerGpu) + " tokens/s per GPU", "definition");
    return s.take();
}

DerivationSection memorySection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& l = plan.layout;
    const auto state = modelStateBytesPerParameter(plan);  // as the estimate keeps it
    const double shards = double(l.dp) * l.cp;
    const double n = e.parameters.total;
    const double mean = e.parametersPerGpuMean;
    SectionBuilder s("Memory and layout", example);

    std::string parts = num(state.weights) + " + " + num(state.gradients) + (state.master > 0 ? " + " + num(state.master) : "") + " + " +
                        num(state.moments);
    s.add("memory.bytes_per_parameter", "Model state per parameter",
          state.master > 0 ? "weights + gradients + FP32 master + Adam moments" : "weights + gradients + Adam moments", parts,
          state.total(), "bytes", num(state.total()) + " B", "Rajbhandari et al. 2020 (ZeRO), Sec. 3.1 (2 + 2 + K)")
        .note = shardsAreTheMaster(plan)
        ? "FSDP2: the FP32 parameter shard is the master copy the optimizer steps (PyTorch _fsdp_api.py MixedPrecisionPolicy), "
          "so weights are 4 B and no master copy is kept"
        : std::string();
    s.compare(s.last(), A, "16 B");
    s.compare(s.last(), B, "12 B");
    s.add("memory.model_state", "Total model state", "N × bytes per parameter", formatCount(n) + " × " + num(state.total()) + " B",
          e.reliability.modelStateBytes, "bytes", formatBytes(e.reliability.modelStateBytes), "Rajbhandari et al. 2020 (ZeRO), Sec. 3.1")
        .note = "before activations and the runtime reserve";
    s.compare(s.last(), A, "≈ 1.1 TB");
    s.compare(s.last(), B, "≈ 840 GB");
    const bool experts = plan.model.hasMoeLayers() && plan.model.moe;
    double w = 0, g = 0, o = 0;
    const auto divisor = [](double n) { return n > 1 ? " / " + integer(n) : std::string(); };
    if (!experts) {
        s.add("memory.parameters_per_gpu_mean", "Parameters per GPU (average)", "N / (TP × PP)",
              formatCount(n) + " / (" + integer(l.tp) + " × " + integer(l.pp) + ")", mean, "parameters", formatSci(mean),
              "Shoeybi et al. 2019 (TP splits every layer); Narayanan et al. 2021 (PP splits the layers)");
        s.compare(s.last(), A, "70e9 / 32 ≈ 2.19e9");
        const ShardedState sharded = shardModelState(mean, state, l.zeroStage, shards);
        w = sharded.weights, g = sharded.gradients, o = sharded.optimizer;
        const std::string wDiv = divisor(sharded.weightShards);
        const std::string gDiv = divisor(sharded.gradientShards);
        const std::string oDiv = divisor(sharded.optimizerShards);
        s.add("memory.weights_per_gpu_mean", "Weights per GPU (average)",
            "N/(TP·PP) × weight bytes" + std::string(l.zeroStage >= 3 ? " / (DP·CP)" : ""),
            formatSci(mean) + " × " + num(state.weights) + " B" + wDiv, w, "bytes", formatBytes(w),
            "Rajbhandari et al. 2020 (ZeRO), Sec. 5 (stage 3 shards weights)");
        s.compare(s.last(), B, "140/8 = 17.5 GB");
        s.add("memory.gradients_per_gpu_mean", "Gradients per GPU (average)",
            "N/(TP·PP) × gradient bytes" + std::string(l.zeroStage >= 2 ? " / (DP·CP)" : ""),
            formatSci(mean) + " × " + num(state.gradients) + " B" + gDiv, g, "bytes", formatBytes(g),
            "Rajbhandari et al. 2020 (ZeRO), Sec. 5 (stage 2 shards gradients)");
        s.compare(s.last(), B, "another 17.5 GB");
    } else {
        // Two buckets (ExpertGrid.h, parallel folding): the routed experts split over EP x ETP and
        // shard their state over the expert-data-parallel ranks EDP = TP x CP x DP / (EP x ETP);
        // the rest splits over TP and shards over DP x CP.
        const auto& p = e.parameters;
        double routed = p.mtpRoutedExperts;
        std::string routedValues;
        for (int k = 0; k < int(p.kinds.size()); ++k)
            if (p.kinds[size_t(k)].routedExperts > 0) {
                routed += plan.model.layersOfKind(k) * p.kinds[size_t(k)].routedExperts;
                routedValues += (routedValues.empty() ? "" : " + ") + integer(plan.model.layersOfKind(k)) + " × "
                                + formatCount(p.kinds[size_t(k)].routedExperts);
            }
        if (p.mtpRoutedExperts > 0)
            routedValues += " + " + formatCount(p.mtpRoutedExperts);
        const double expertRanks = double(l.ep) * l.etp;
        const double edp = std::max(1.0, double(l.tp) * l.cp * l.dp / expertRanks);
        const double restMean = (n - routed) / (double(l.tp) * l.pp), expertMean = routed / (expertRanks * l.pp);
        s.add("memory.routed_expert_parameters", "Routed-expert parameters N_e",
              std::string("MoE layers × routed experts per layer") + (p.mtpRoutedExperts > 0 ? " + MTP's" : ""), routedValues, routed, "parameters", formatCount(routed), "the MoE layers' routed experts (rows above)");
        s.add("memory.parameters_per_gpu_mean", "Parameters per GPU (average)", "(N − N_e) / (TP × PP) + N_e / (EP × ETP × PP)",
              "(" + formatCount(n) + " − " + formatCount(routed) + ") / (" + integer(l.tp) + " × " + integer(l.pp) + ") + "
                  + formatCount(routed) + " / (" + integer(l.ep) + " × " + integer(l.etp) + " × " + integer(l.pp) + ")",
              mean, "parameters", formatSci(mean),
              "Megatron-Core parallel folding (Liu et al. 2025, arXiv:2504.14960): experts over EP × ETP, the rest over TP");
        const ShardedState rest = shardModelState(restMean, state, l.zeroStage, shards);
        const ShardedState expert = shardModelState(expertMean, state, l.zeroStage, edp);
        w = rest.weights + expert.weights, g = rest.gradients + expert.gradients, o = rest.optimizer + expert.optimizer;
        const auto bucketed = [&](const char* id, const char* title, const char* bytesName, double bytes, double restShards,
                                  double expertShards, double value, const char* source) {
            const std::string restDiv = divisor(restShards), expertDiv = divisor(expertShards);
            s.add(id, title,
                  std::string("rest per GPU × ") + bytesName + (restShards > 1 ? " / (DP·CP)" : "") + " + experts per GPU × " + bytesName
                      + (expertShards > 1 ? " / EDP" : ""),
                  formatSci(restMean) + " × " + num(bytes) + " B" + restDiv + " + " + formatSci(expertMean) + " × " + num(bytes) + " B"
                      + expertDiv,
                  value, "bytes", formatBytes(value), source);
        };
        bucketed("memory.weights_per_gpu_mean", "Weights per GPU (average)", "weight bytes", state.weights, rest.weightShards,
                 expert.weightShards, w, "Rajbhandari et al. 2020 (ZeRO), Sec. 5 (stage 3 shards weights)");
        bucketed("memory.gradients_per_gpu_mean", "Gradients per GPU (average)", "gradient bytes", state.gradients, rest.gradientShards,
                 expert.gradientShards, g, "Rajbhandari et al. 2020 (ZeRO), Sec. 5 (stage 2 shards gradients)");
        bucketed("memory.optimizer_per_gpu_mean", "Optimizer state per GPU (average)", "optimizer bytes", state.optimizer(),
                 rest.optimizerShards, expert.optimizerShards, o, "Rajbhandari et al. 2020 (ZeRO), Sec. 5.1");
    }
    s.add("memory.weights_and_gradients_per_gpu_mean", "Weights + gradients per GPU (average)", "weights + gradients",
          formatBytes(w) + " + " + formatBytes(g), w + g, "bytes", formatBytes(w + g), "sum of the rows above");
    s.compare(s.last(), A, "2.19e9 × 4 B ≈ 8.8 GB");
    if (!experts) {
        const std::string oDiv = divisor(shardModelState(mean, state, l.zeroStage, shards).optimizerShards);
        s.add("memory.optimizer_per_gpu_mean", "Optimizer state per GPU (average)",
              "N/(TP·PP) × optimizer bytes" + std::string(l.zeroStage >= 1 ? " / (DP·CP)  (ZeRO-" + std::to_string(l.zeroStage) + ")" : ""),
              formatSci(mean) + " × " + num(state.optimizer()) + " B" + oDiv, o, "bytes", formatBytes(o),
              "Rajbhandari et al. 2020 (ZeRO), Sec. 5.1");
        s.compare(s.last(), A, "≈ 0.4 GB");
        s.compare(s.last(), B, "560/(8×64) ≈ 1.1 GB");
    }
    s.add("memory.model_state_per_gpu_mean", "Model state per GPU (average)", "weights + gradients + optimizer",
          formatBytes(w) + " + " + formatBytes(g) + " + " + formatBytes(o), w + g + o, "bytes", formatBytes(w + g + o),
          "sum of the rows above");
    s.compare(s.last(), B, "≈ 36.1 GB");
    s.add("memory.headroom_after_state", "Left for activations and the reserve", "capacity − model state",
          formatBytes(e.capacityBytes) + " − " + formatBytes(w + g + o), e.capacityBytes - (w + g + o), "bytes",
          formatBytes(e.capacityBytes - (w + g + o)), "definition");
    s.compare(s.last(), B, "about 44 GB");

    const auto& a = e.activation;
    std::string formula, bracket;
    const double sLocal = double(plan.model.sequenceLength) / l.cp;
    if (l.recompute == Recompute::Full) {
        formula = l.sequenceParallel ? "2·s·b·h / t (layer input only)" : "2·s·b·h (layer input only)";
    } else if (selectiveKeepsEveryOtherMatmul(plan)) {
        formula = "s·b·(input + outputs of wq, wv, attention, w1, w2"
            + std::string(l.tp > 1 && l.sequenceParallel ? ", 2 reduce-scatters)" : ")");
    } else {
        formula = l.sequenceParallel ? "s·b·h·(34/t" : "s·b·h·(10 + 24/t";
        formula += a.attentionScoreTerm > 0 ? " + 5·a·s/(h·t))" : ")";
    }
    const std::string sbh = integer(sLocal) + " × " + integer(plan.training.microBatchSize) + " × " + integer(plan.model.hiddenSize);
    s.add("memory.activation_per_layer", "Activations per layer per micro-batch", formula,
         sbh + " × " + num(a.linearCoefficient + a.attentionScoreTerm), a.perLayerPerMicrobatch, "bytes",
         formatBytes(a.perLayerPerMicrobatch),
         selectiveKeepsEveryOtherMatmul(plan)
             ? "torchtitan parallelize_llama.py (op-level selective checkpointing: every other matmul kept)"
             : "Korthikanti et al. 2022, Table 2")
        .note = std::string(usesFlashAttention(plan) ? "flash attention: no 5as/h score term; " : "") + "TP " + std::to_string(l.tp)
        + (l.sequenceParallel ? " with sequence parallelism" : " without sequence parallelism") + ", recompute "
        + std::string(nameOf(kRecomputeNames, l.recompute));
    s.compare(s.last(), A, "34 × 4096 × 8192 / 8 ≈ 143 MB");

    const StageEstimate& st = e.stages[e.fullestStage];
    const std::string stageName = "stage " + std::to_string(st.index + 1);
    const int recomputed = recomputedLayers(l, st.layers);
    if (l.recompute == Recompute::Full && recomputed < st.layers) {
        // Megatron's block method: the first recompute_layers layers keep only their input.
        const double kept = st.activationsPerMicrobatch - a.perLayerPerMicrobatch * recomputed;
        s.add("memory.activation_per_microbatch", "Activations per micro-batch on " + stageName,
              "recomputed layers × their input + other layers × all they store",
              integer(recomputed) + " × " + formatBytes(a.perLayerPerMicrobatch) + " + " + integer(st.layers - recomputed) + " × " +
                  formatBytes(kept / std::max(1, st.layers - recomputed)),
              st.activationsPerMicrobatch, "bytes", formatBytes(st.activationsPerMicrobatch),
              "Megatron-LM --recompute-method block --recompute-num-layers; Korthikanti et al. 2022, Table 2");
    } else {
        s.add("memory.activation_per_microbatch", "Activations per micro-batch on " + stageName, "per layer × layers on the stage",
              formatBytes(a.perLayerPerMicrobatch) + " × " + integer(st.layers), st.activationsPerMicrobatch, "bytes",
              formatBytes(st.activationsPerMicrobatch), "definition");
    }
    s.compare(s.last(), A, "143 MB × 20 layers ≈ 2.9 GB");
    const char* inFlightFormula = l.schedule == Schedule::GPipe ? "m (GPipe)"
                                  : l.schedule == Schedule::OneFOneB ? "min(p − i, m) (1F1B)"
                                  : l.schedule == Schedule::ZeroBubble ? "min(p, m) (ZB-H1)"
                                  : l.schedule == Schedule::DualPipe   ? "p + 1 over the GPU's two stages (DualPipe)"
                                                                     : "(2(p − i − 1) + (v − 1)·p + 1) / v (interleaved)";
    s.add("memory.microbatches_in_flight", "Micro-batches in flight on " + stageName, inFlightFormula,
        "p = " + integer(l.pp) + ", i = " + integer(st.index) + ", m = " + integer(double(e.pipeline.microbatches))
            + (l.schedule == Schedule::Interleaved ? ", v = " + integer(l.virtualStages) : ""),
        st.microbatchesInFlight, "micro-batches", num(st.microbatchesInFlight),
        l.schedule == Schedule::DualPipe ? "DeepSeek-V3 report, Sec. 3.2.1; DualPipe README (activation PP + 1)"
                                         : "Narayanan et al. 2021, Sec. 2.2; Korthikanti et al. 2022, Sec. 4.2.3");
    s.compare(s.last(), A, "p = 4 on stage 1");
    // The extras, term by term as the estimate adds them (Estimate.cpp estimateStages): only
    // the terms this stage holds are written, each named in the formula beside its value.
    struct Term {
        const char* name;
        double bytes;
    };
    const Term extras[] = {
        {"recompute working set", recomputeWorkingSet(plan)},
        {"logits", st.hasLmHead ? logitsBytes(plan) : 0.0},
    };
    std::string activationFormula = "in flight × per micro-batch";
    std::string activationValues = num(st.microbatchesInFlight) + " × " + formatBytes(st.activationsPerMicrobatch);
    std::string absent;
    for (const Term& term : extras) {
        if (term.bytes > 0) {
            activationFormula += std::string(" + ") + term.name;
            activationValues += " + " + formatBytes(term.bytes);
        } else {
            absent += (absent.empty() ? "" : ", ") + std::string(term.name);
        }
    }
    s.add("memory.activations", "Activations on " + stageName, activationFormula, activationValues, st.memory.activations, "bytes",
          formatBytes(st.memory.activations), "Korthikanti et al. 2022, Sec. 4.2.3 and 4.3 (logits)")
        .note = absent.empty() ? std::string() : "none on this stage: " + absent;
    s.compare(s.last(), A, "≈ 11.5 GB");
    const auto& mem = st.memory;
    if (l.zeroStage >= 3) {
        const ShardingBuffers b = shardingBuffers(plan, e.parameters.largestLayerPerGpu(l));
        const bool block = b.gathering == Zero3Gathering::Block;
        const std::string weightBytes = num(stateBytesPerParameter(plan.training.precision).weights) + " B";
        const std::string gradientBytes = num(gradientBytesPerParameter(plan)) + " B";
        s.add("memory.sharding_buffers", "ZeRO-3 gathered parameters and gradients",
             block
                 ? "2 blocks × weight bytes + 1 block × gradient bytes (this block and the next, prefetched)"
                 : "(min(block, max(submodule, live cap)) + prefetch bucket) × weight bytes + (submodule + reduce bucket) × gradient bytes",
             block ? "2 × " + formatCount(b.unitParametersPerGpu) + " × " + weightBytes + " + " + formatCount(b.unitParametersPerGpu)
                     + " × " + gradientBytes
                   : formatCount(b.liveParameters) + " × " + weightBytes + " + " + formatCount(b.gradientParameters) + " × " + gradientBytes
                     + " (largest submodule " + formatCount(b.unitParametersPerGpu) + ", live cap "
                     + formatCount(kDeepSpeedMaxLiveParameters) + ", prefetch " + formatCount(kDeepSpeedPrefetchBucket) + ", reduce bucket "
                     + formatCount(kDeepSpeedReduceBucket) + ")",
             mem.shardingBuffers, "bytes", formatBytes(mem.shardingBuffers),
             block ? "PyTorch FSDP2 _fsdp_param_group.py (all-gather per block, BACKWARD_PRE prefetch; framework.zero3_gathering block)"
                   : "DeepSpeed runtime/zero/config.py defaults; partitioned_param_coordinator.py (framework.zero3_gathering submodule)")
            .note = "unsharded for the computation at hand, then freed: not model state, and not freed by the backward as activations are";
    }
    if (gradientsOnlyInBackward(plan, e.pipeline.microbatches)) {
        const double all = shardModelState(st.parametersPerGpu, state, l.zeroStage, shards).gradients;
        s.add("memory.gradients_at_peak", "Gradients at the peak on " + stageName, "max(0, gradients − activations)",
            "max(0, " + formatBytes(all) + " − " + formatBytes(mem.activations) + ")", mem.gradients, "bytes", formatBytes(mem.gradients),
            "torchtitan train.py (zero_grad before each step); PyTorch FSDP2 _fsdp_collectives.py foreach_reduce")
            .note = "one micro-batch per step: each block's gradient shard is made in the backward as its activations are freed, so the "
                    "peak holds whichever end of the backward is larger";
    }
    s.add("memory.model_and_activations", "Model state and activations on " + stageName,
        std::string("weights + gradients + optimizer + activations") + (mem.shardingBuffers > 0 ? " + ZeRO-3 buffers" : ""),
        formatBytes(mem.weights) + " + " + formatBytes(mem.gradients) + " + " + formatBytes(mem.optimizer) + " + "
            + formatBytes(mem.activations) + (mem.shardingBuffers > 0 ? " + " + formatBytes(mem.shardingBuffers) : ""),
        mem.modelAndActivations, "bytes", formatBytes(mem.modelAndActivations), "sum of the rows above");
    s.compare(s.last(), A, "~21 GB plus buffers");

    // The runtime reserve, term by term (ReserveModel.cpp has the sources in full).
    const auto& rs = plan.training.reserve;
    s.add("memory.reserve_cuda_context", "CUDA context", "given (training.reserve.cuda_context_gb)", formatBytes(rs.cudaContextBytes),
         mem.cudaContext, "bytes", formatBytes(mem.cudaContext), "PyTorch maintainers, pytorch/pytorch#109888 (≈ 400 MB with lazy loading)")
        .note = "driver state and loaded kernels; the default 0.5 GB adds about 100 MB for the cuDNN, NCCL and Transformer Engine kernels "
                "a training step loads (an assumption)";
    s.add("memory.reserve_workspace", "GEMM workspaces", "given (training.reserve.workspace_mib)",
         num(rs.workspaceBytes / units::MiB) + " MiB", mem.workspace, "bytes", formatBytes(mem.workspace),
         "cuBLAS API reference, cublasSetWorkspace (32 MiB on Hopper); pytorch/pytorch#120925")
        .note = "default: 2 streams × (cuBLAS 32 MiB + cuBLASLt 32 MiB)";
    s.add("memory.reserve_nccl", "NCCL communication buffers", "communicators × channels × 2 connections × buffer per connection",
         integer(e.ncclCommunicators) + " × " + integer(rs.ncclChannels) + " × " + integer(kNcclConnectionsPerChannel) + " × "
             + num(rs.ncclBytesPerConnection / units::MiB) + " MiB",
         mem.ncclBuffers, "bytes", formatBytes(mem.ncclBuffers),
         "NCCL src/init.cc computeBuffSizes (Simple 4 + LL128 4.6875 + LL 0.5 MiB); NVIDIA/nccl#986")
        .note = "one communicator each for TP, CP, DP × CP and PP when the group has more than one rank";
    s.add("memory.reserve_fragmentation", "Allocator fragmentation", "fraction × model state and activations",
          num(plan.training.fragmentationFraction) + " × " + formatBytes(mem.modelAndActivations), mem.fragmentation, "bytes",
          formatBytes(mem.fragmentation), "Guo et al. 2024 (GMLake), fragmentation of the caching allocator in LLM training")
        .note = "training.fragmentation_fraction";
    s.add("memory.reserve", "Runtime reserve",
        "context + workspace + NCCL + fragmentation" + std::string(mem.extraAllowance > 0 ? " + extra allowance" : ""),
        formatBytes(mem.cudaContext) + " + " + formatBytes(mem.workspace) + " + " + formatBytes(mem.ncclBuffers) + " + "
            + formatBytes(mem.fragmentation) + (mem.extraAllowance > 0 ? " + " + formatBytes(mem.extraAllowance) : std::string()),
        mem.buffers, "bytes", formatBytes(mem.buffers), "sum of the rows above");
    s.add("memory.per_gpu_total", "Fullest GPU (" + stageName + ")", "model state and activations + runtime reserve",
         formatBytes(mem.modelAndActivations) + " + " + formatBytes(mem.buffers), mem.total, "bytes",
         formatBytes(mem.total) + " of " + formatBytes(e.capacityBytes), "definition")
        .note = e.fits ? "fits, " + formatBytes(e.capacityBytes - mem.total) + " to spare"
                       : "does NOT fit: " + formatBytes(mem.total - e.capacityBytes) + " over";
    s.add("memory.headroom", "Free memory on the fullest GPU", "capacity − total, against margin × capacity",
         formatBytes(e.capacityBytes) + " − " + formatBytes(mem.total) + " vs " + num(plan.training.memoryMarginFraction) + " × "
             + formatBytes(e.capacityBytes),
         e.headroomBytes, "bytes", formatBytes(e.headroomBytes) + " (" + formatPercent(e.headroomBytes / e.capacityBytes) + ")",
         "definition; margin from training.memory_margin_fraction")
        .note = e.hasMargin ? "every stage keeps the margin" : "a stage is over capacity or under the margin";
    return s.take();
}

DerivationSection batchSection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& l = plan.layout;
    const auto& pipe = e.pipeline;
    const double m = double(pipe.microbatches);
    SectionBuilder s("Batch and pipeline schedule", example);
    s.add("pipeline.micro_batches", "Micro-batches per replica", "B / (DP × b)",
        integer(double(plan.training.globalBatchSequences)) + " / (" + integer(l.dp) + " × " + integer(plan.training.microBatchSize) + ")",
        m, "micro-batches", integer(m), "Narayanan et al. 2021, Sec. 2 (gradient accumulation over micro-batches)");
    s.compare(s.last(), A, "1,024 / 64 = 16");
    s.compare(s.last(), B, "8 micro-batches accumulated");
    s.add("pipeline.tokens_per_step", "Global batch construction", "DP × b × m × s",
          integer(l.dp) + " × " + integer(plan.training.microBatchSize) + " × " + integer(m) + " × " + integer(plan.model.sequenceLength),
          double(l.dp) * plan.training.microBatchSize * m * plan.model.sequenceLength, "tokens",
          integer(double(l.dp) * plan.training.microBatchSize * m * plan.model.sequenceLength) + " tokens",
          "definition; TP and CP ranks share sequences");
    s.compare(s.last(), B, "64 × 1 × 8 × 8192 = 4,194,304");
    if (l.pp > 1) {
        const bool inter = l.schedule == Schedule::Interleaved;
        const bool zeroBubble = l.schedule == Schedule::ZeroBubble;
        const bool dualPipe = l.schedule == Schedule::DualPipe;
        const std::string work = inter ? integer(l.virtualStages) + " × " + integer(m) : zeroBubble ? "3 × " + integer(m) : integer(m);
        if (dualPipe) {
            s.add("pipeline.bubble_fraction", "Pipeline bubble",
                  "(p/2 − 1)(F&B + B − 3W) over 3m + that, with F = W = 1, B = 2 and no overlap (F&B = 3): (p − 2) / (3·m + p − 2)",
                  "(" + integer(l.pp) + " − 2) / (3 × " + integer(m) + " + " + integer(l.pp) + " − 2)", pipe.bubbleFraction, "fraction",
                  formatPercent(pipe.bubbleFraction), "DeepSeek-V3 report, Sec. 3.2.1, Table 2; DualPipe README");
            return s.take();
        }
        s.add("pipeline.bubble_fraction", "Pipeline bubble",
              inter ? "(p − 1) / (v·m + p − 1)" : zeroBubble ? "(p − 1) / (3·m + p − 1) (ZB-H1, F = B = W)" : "(p − 1) / (m + p − 1)",
              "(" + integer(l.pp) + " − 1) / (" + work + " + " + integer(l.pp) + " − 1)", pipe.bubbleFraction, "fraction",
              formatPercent(pipe.bubbleFraction),
              zeroBubble ? "Qi et al. 2023, Sec. 3.1" : "Narayanan et al. 2021, Sec. 2.2");
        s.compare(s.last(), A, "≈ 16 %");
        if (!inter && !zeroBubble) {
            const double v2 = bubbleFraction(Schedule::Interleaved, l.pp, pipe.microbatches, 2);
            s.add("pipeline.bubble_if_interleaved_v2", "What-if: interleaved 1F1B with v = 2", "(p − 1) / (2·m + p − 1)",
                  "(" + integer(l.pp) + " − 1) / (2 × " + integer(m) + " + " + integer(l.pp) + " − 1)", v2, "fraction", formatPercent(v2),
                  "Narayanan et al. 2021, Sec. 2.2.2");
            s.compare(s.last(), A, "≈ 3/35 ≈ 9 %");
        }
    } else {
        s.add("pipeline.bubble_fraction", "Pipeline bubble", "none with PP = 1", "PP = 1", 0.0, "fraction", "0 %",
            "definition (no pipeline)");
    }
    return s.take();
}

DerivationSection communicationSection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& l = plan.layout;
    const auto& c = e.communication;
    const auto& cl = plan.cluster;
    const double sLocal = double(plan.model.sequenceLength) / l.cp;
    const double actBytes = activationBytesPerElement(plan.training.precision);
    const std::string bsh = integer(plan.training.microBatchSize) + " × " + integer(sLocal) + " × " + integer(plan.model.hiddenSize) +
                            " × " + num(actBytes) + " B";
    SectionBuilder s("Communication", example);
    s.add("communication.tp_message_bytes", "One TP collective's message", "b · s · h · 2 B", bsh, c.tpMessageBytes, "bytes",
          formatBytes(c.tpMessageBytes), "Shoeybi et al. 2019, Sec. 3");
    s.compare(s.last(), A, "64 MB, i.e. 64 MiB");
    s.add("communication.tp_collectives_per_layer", "TP collectives per layer per micro-batch",
          l.recompute == Recompute::Full ? "2 forward + 2 backward + 2 recomputed forward" : "2 forward + 2 backward",
          l.tp > 1 ? (l.recompute == Recompute::Full ? "2 + 2 + 2" : "2 + 2") : "TP = 1: none", c.tpCollectivesPerLayer, "all-reduces",
          integer(c.tpCollectivesPerLayer), "Korthikanti et al. 2022, Sec. 4.2.2");
    s.compare(s.last(), A, "four per layer per micro-batch");
    const double tpBw = c.tpCrossesNodes ? cl.interNodeBytesPerSecond : cl.intraNodeBytesPerSecond;
    s.add("communication.tp_seconds_per_collective", "One TP all-reduce on " + (c.tpCrossesNodes ? std::string("the network") : scaleUpLinkName(cl)),
          "2(t − 1)/t × message / bandwidth",
          "2 × " + integer(l.tp - 1) + "/" + integer(l.tp) + " × " + formatBytes(c.tpMessageBytes) + " / " + formatBytes(tpBw) + "/s",
          c.tpSecondsPerCollective, "s", formatSeconds(c.tpSecondsPerCollective), "Patarasuk and Yuan 2009 (ring all-reduce)");
    s.add("communication.tp_seconds_per_step", "TP communication per step", "collectives × layers × m × time",
        integer(c.tpCollectivesPerLayer) + " × " + integer(e.stages[e.fullestStage].layers) + " × "
            + integer(double(e.pipeline.microbatches)) + " × " + formatSeconds(c.tpSecondsPerCollective),
        c.tpSecondsPerStep, "s", formatSeconds(c.tpSecondsPerStep), "derived; exposed unless overlapped");
    if (l.pp > 1)
        s.add("communication.pp_bytes_per_microbatch", "Stage-to-stage send per micro-batch",
              l.sequenceParallel ? "b · s · h · 2 B / t" : "b · s · h · 2 B", bsh + (l.sequenceParallel ? " / " + integer(l.tp) : ""),
              c.ppBytesPerMicrobatch, "bytes", formatBytes(c.ppBytesPerMicrobatch), "Narayanan et al. 2021, Sec. 4.1");
    if (l.pp > 1)
        s.compare(s.last(), A, "8 MB with SP");
    const auto state = stateBytesPerParameter(plan.training.precision);
    s.add("communication.dp_bytes_per_gpu_mean", "Gradient bytes per GPU (average)",
        plan.model.hasMoeLayers() ? "parameters per GPU (average) × gradient bytes" : "N/(TP·PP) × gradient bytes",
        formatSci(e.parametersPerGpuMean) + " × " + num(state.gradients) + " B", c.dpBytesPerGpuMean, "bytes",
        formatBytes(c.dpBytesPerGpuMean), "Rajbhandari et al. 2020 (ZeRO), Sec. 3 (gradients in 16-bit)");
    s.compare(s.last(), A, "~4.4 GB");
    s.compare(s.last(), B, "17.5 GB");
    s.add("communication.dp_bytes_per_gpu", "Gradient bytes per GPU on the fullest stage", "stage parameters / TP × gradient bytes",
          formatSci(e.stages[e.fullestStage].parametersPerGpu) + " × " + num(state.gradients) + " B", c.dpBytesPerGpu, "bytes",
          formatBytes(c.dpBytesPerGpu), "derived (embedding and LM head make the end stages heavier)");
    const double dpBw = c.dpCrossesNodes ? cl.interNodeBytesPerSecond : cl.intraNodeBytesPerSecond;
    const int n = c.dpGroupSize;
    s.add("communication.dp_seconds", "DP gradient reduction (ring)",
        l.zeroStage >= 3 ? "(n − 1)/n × bytes / bandwidth (reduce-scatter)" : "2(n − 1)/n × bytes / bandwidth",
        (l.zeroStage >= 3 ? "" : "2 × ") + integer(n - 1) + "/" + integer(n) + " × " + formatBytes(c.dpBytesPerGpu) + " / "
            + formatBytes(dpBw) + "/s",
        c.dpSeconds, "s", formatSeconds(c.dpSeconds), "Patarasuk and Yuan 2009 (ring all-reduce)");
    s.compare(s.last(), B, "2(63/64)(17.5 GB)/45 GB/s ≈ 0.77 s");
    s.add("communication.dp_backward_window_seconds", "Backward compute it can hide under", "2/3 × step × (1 − bubble)",
         "2/3 × " + formatSeconds(e.time.stepSeconds) + " × (1 − " + formatPercent(e.pipeline.bubbleFraction) + ")",
         c.dpBackwardWindowSeconds, "s", formatSeconds(c.dpBackwardWindowSeconds), "Narayanan et al. 2021, Sec. 3 (backward ≈ 2 × forward)")
        .note = c.dpHidden ? "the reduction fits inside the backward pass" : "the reduction is longer than the backward pass: exposed";
    s.compare(s.last(), A, "overlapped with backward");
    s.compare(s.last(), B, "an exposed tail");
    if (l.zeroStage >= 3)
        s.add("communication.zero3_allgather_bytes_per_step", "ZeRO-3 parameter all-gathers per step",
            "2 × m × stage parameters / TP × 2 B",
            "2 × " + integer(double(e.pipeline.microbatches)) + " × " + formatSci(e.stages[e.fullestStage].parametersPerGpu) + " × 2 B",
            c.zero3AllGatherBytesPerStep, "bytes", formatBytes(c.zero3AllGatherBytesPerStep), "ZeRO paper, Sec. 7.2.2 (1.5x DP volume)");
    if (l.cp > 1)
        s.add("communication.cp_bytes_per_layer", "CP ring exchange per layer per micro-batch", "3 (cp − 1) × 2·b·(s/cp)·(k/t)·d·2 B",
              "3 × " + integer(l.cp - 1) + " × K,V block", c.cpBytesPerLayer, "bytes", formatBytes(c.cpBytesPerLayer),
              "Liu et al. 2023 (ring attention); Megatron-LM context parallelism");
    return s.take();
}

// "a + b + c" of the named, non-zero terms, each in seconds; "0" when all are zero.
std::string secondsSum(std::initializer_list<std::pair<const char*, double>> terms, std::string* names = nullptr)
{
    std::string out, named;
    for (const auto& [name, value] : terms) {
        if (value <= 0)
            continue;
        out += (out.empty() ? "" : " + ") + formatSeconds(value);
        named += (named.empty() ? "" : " + ") + std::string(name);
    }
    if (names)
        *names = named.empty() ? "0" : named;
    return out.empty() ? "0" : out;
}

// The step-time model's arithmetic for this layout (steptime/StepTimeModel.h): one layer's
// forward and backward for one micro-batch, the reference stage's busy time over the step, the
// pipeline, the data-parallel tail and the optimizer, then MFU and the range.
// Where a calibrated plan's fitted figures came from (cluster.calibration), for the range's note.
std::string calibrationNote(const ClusterSpec& cluster)
{
    if (!cluster.calibration)
        return {};
    const CalibrationRecord& c = *cluster.calibration;
    std::string out = "; calibrated from " + c.source + (c.date.empty() ? "" : " (" + c.date + ")")
        + (c.framework.empty() ? "" : ", " + c.framework) + " on " + c.measuredLayout + ", measured step " + formatSeconds(c.measuredStepSeconds)
        + ": fitted " + c.fitted;
    if (!cluster.calibrationApplies())
        out += "; measured on " + c.accelerator + ", not this cluster's part, so the shipped band applies";
    return out;
}

DerivationSection predictedSection(const Analysis& a, WorkedExample example)
{
    const Plan& plan = a.plan;
    const Estimate& e = a.estimate;
    const PredictedStep& p = a.predicted;
    const PredictedComponents& c = p.components;
    const auto& l = plan.layout;
    SectionBuilder s("Predicted step time", example);
    s.add("predicted.matmul_efficiency", "Projection GEMMs: achieved fraction of peak",
        "matmul efficiency × tile fill × wave fill × K / (K + K½), FLOP-weighted over QKV, output, FFN in and out",
        "tokens per micro-batch " + integer(double(plan.training.microBatchSize) * plan.model.sequenceLength / l.cp) + ", widths / TP "
            + integer(l.tp) + (p.efficiencySource ? std::string(", ") + p.efficiencySource + " figures" : std::string())
            + (formatPeakFlopsPerGpu(plan.cluster, plan.training.matmulPrecision) > 0
                    ? std::string(", ") + (plan.training.matmulPrecision == MatmulPrecision::Nvfp4 ? "NVFP4" : "FP8") + " at "
                        + formatSci(formatPeakFlopsPerGpu(plan.cluster, plan.training.matmulPrecision)) + " FLOP/s peak"
                    : std::string()),
        p.matmulEfficiency, "", formatPercent(p.matmulEfficiency),
        "NVIDIA, Matrix Multiplication Background User's Guide (tile and wave quantization); accelerator preset");
    {
        // The accelerator's sustained figures, and which the plan gives itself (cluster.efficiency).
        const AcceleratorEfficiency fig = efficiencyFor(plan.cluster);
        const EfficiencySpec& own = plan.cluster.efficiency;
        const auto mark = [](bool given) { return given ? std::string(" (plan)") : std::string(); };
        bool borrowed = false;
        efficiencyPresetFor(plan.cluster, &borrowed);
        s.add("predicted.accelerator_figures", "Accelerator figures the step time uses",
            "the preset's step-time figures; each one given in cluster.efficiency replaces it",
            "GEMM " + formatPercent(fig.matmulEfficiency) + mark(own.matmul.has_value()) + " on " + integer(fig.smCount) + " SMs"
                + mark(own.smCount.has_value()) + ", attention " + formatPercent(fig.flashAttentionEfficiency) + " / "
                + formatPercent(fig.flash3AttentionEfficiency) + mark(own.flashAttention || own.flashAttention3) + ", HBM "
                + formatBytes(fig.hbmBytesPerSecond) + "/s × " + formatPercent(fig.hbmEfficiency) + mark(own.hbm || own.hbmBytesPerSecond)
                + ", collectives " + formatPercent(fig.intraNodeCollectiveEfficiency) + " " + scaleUpLinkName(plan.cluster) + " / "
                + formatPercent(fig.interNodeCollectiveEfficiency) + " network" + mark(own.scaleUpCollective || own.networkCollective)
                + ", kernel " + formatSeconds(fig.kernelOverheadSeconds) + " + launch " + formatSeconds(fig.kernelLaunchSeconds)
                + mark(own.kernelOverheadSeconds || own.kernelLaunchSeconds) + ", ring step " + formatSeconds(fig.scaleUpStepSeconds)
                + " / " + formatSeconds(fig.networkStepSeconds) + mark(own.scaleUpStepSeconds || own.networkStepSeconds) + "; from "
                + (p.efficiencySource ? std::string(p.efficiencySource) : std::string("no preset"))
                + (borrowed ? " (nearest BF16 peak: assumed, the range covers it)" : std::string("")) + ", "
                + integer(own.given()) + " of " + integer(EfficiencySpec::kFields) + " set in the plan",
            fig.matmulEfficiency, "", formatPercent(fig.matmulEfficiency), "resources/presets/accelerators.json (each figure's source)");
    }
    // One layer of each kind (LayerKind.h): a model of one kind keeps its step names, several
    // kinds number theirs (predicted.layer_forward.2).
    std::string names, terms;
    const bool oneKind = p.layers.size() == 1;
    for (size_t k = 0; k < p.layers.size(); ++k) {
        const LayerTimes& L = p.layers[k];
        const std::string id = oneKind ? "" : "." + std::to_string(k + 1);
        const std::string of = oneKind ? "" : " (" + plan.model.kindLabel(int(k)) + ")";
        terms = secondsSum({{"matmuls", L.forwardMatmul}, {"attention", L.forwardAttention}, {"memory-bound", L.forwardMemory},
                            {"TP", L.forwardTp}, {"CP", L.forwardCp}, {"ZeRO", L.forwardZero}, {"EP all-to-all", L.forwardAllToAll},
                            {"expert imbalance", L.forwardImbalance}, {"kernel overhead", L.forwardFixed}},
                           &names);
        s.add("predicted.layer_forward" + id, "One layer forward, one micro-batch" + of, names, terms, L.forward(), "s",
             formatSeconds(L.forward()),
             "Narayanan et al. 2021, Sec. 5.1 (GEMM FLOPs); Dao 2023 (FlashAttention); Korthikanti et al. 2022, Sec. 4 (element-wise work, "
             "TP collectives)")
            .note = "exposed collectives only: what overlap hides is not counted";
        terms = secondsSum(
            {{"matmuls", L.backwardMatmul}, {"attention", L.backwardAttention}, {"memory-bound", L.backwardMemory}, {"TP", L.backwardTp},
                {"CP", L.backwardCp}, {"ZeRO", L.backwardZero}, {"EP all-to-all", L.backwardAllToAll},
                {"expert imbalance", L.backwardImbalance}, {"kernel overhead", L.backwardFixed}, {"recompute", L.recompute}},
            &names);
        s.add("predicted.layer_backward" + id, "One layer backward, one micro-batch" + of, names, terms, L.backward(), "s",
            formatSeconds(L.backward()),
            "input and weight gradients: twice the forward GEMM FLOPs (Narayanan et al. 2021, Sec. 5.1); recompute (Korthikanti et al. "
            "2022, Sec. 5)");
    }
    const StageEstimate& stage = e.stages[size_t(p.referenceStage)];
    const double busy = c.forwardCompute + c.backwardCompute + c.memoryBound + c.recompute + c.tpCommunication + c.cpCommunication +
                        c.zeroCommunication + c.epCommunication + c.expertImbalance + c.kernelOverhead;
    // The stage's layers by kind: "80 × (f + b)", or one such term per kind it holds.
    std::string stageLayers;
    forEachKindIn(plan.model, stage.firstLayer, stage.layers, [&](int k, int count) {
        if (size_t(k) < p.layers.size())
            stageLayers += std::string(stageLayers.empty() ? "" : " + ") + integer(count) + " × ("
                + formatSeconds(p.layers[size_t(k)].forward()) + " + " + formatSeconds(p.layers[size_t(k)].backward()) + ")";
    });
    // The MTP depths run on the last stage as blocks of the model's last kind (StepTimeCosts.h).
    const bool mtpHere = stage.hasLmHead && plan.model.mtpLayers > 0 && !p.layers.empty();
    if (mtpHere) {
        const LayerTimes& last = p.layers.back();
        stageLayers += " + " + integer(plan.model.mtpLayers) + " MTP × (" + formatSeconds(last.forward()) + " + "
            + formatSeconds(last.backward()) + ")";
    }
    const std::string mtpTerm = mtpHere ? " + MTP depths × (forward + backward)" : "";
    s.add("predicted.stage_busy", "Busy time of the busiest stage (stage " + std::to_string(p.referenceStage + 1) + ")",
          recomputedLayers(plan.layout, stage.layers) < stage.layers && plan.layout.recompute == Recompute::Full
              ? "m × (layers × (forward + backward) − unrecomputed layers × recompute" + mtpTerm + " + embedding / LM head)"
              : "m × (layers × (forward + backward)" + mtpTerm + " + embedding / LM head)",
          integer(double(e.pipeline.microbatches)) + " × (" + stageLayers + (stage.hasEmbedding || stage.hasLmHead ? " + ends" : "") + ")",
          busy, "s", formatSeconds(busy), "definition");
    if (l.pp > 1) {
        s.add("predicted.pipeline_bubble", "Pipeline bubble",
            p.simulated ? "idle time of that stage in the simulated schedule" : "closed form of the schedule",
            std::string(nameOf(kScheduleNames, l.schedule)) + ", p = " + integer(l.pp) + ", m = " + integer(double(e.pipeline.microbatches))
                + (l.schedule == Schedule::Interleaved ? ", v = " + integer(l.virtualStages) : ""),
            c.pipelineBubble, "s", formatSeconds(c.pipelineBubble), "Narayanan et al. 2021, Sec. 2.2; Qi et al. 2023 (ZB-H1)");
        s.add("predicted.pp_sends", "Stage-to-stage sends on the critical path", "simulated with, less simulated without, the sends",
              "sends of " + formatBytes(e.communication.ppBytesPerMicrobatch), c.ppSend, "s", formatSeconds(c.ppSend), "definition");
    }
    s.add("predicted.dp_exposed", "Exposed data-parallel communication", "gradient tail after the last backward + first parameter gather",
        l.zeroStage >= 3
            ? "ZeRO-3: gathers and reduce-scatters counted per layer above"
            : "gradients of " + formatBytes(e.communication.dpBytesPerGpu) + " per GPU over " + integer(double(l.dp) * l.cp) + " ranks",
        c.dpCommunication, "s", formatSeconds(c.dpCommunication),
        "Li et al. 2020 (PyTorch DDP buckets, Sec. 3.2.3); NCCL alpha-beta model (tuning.cc)");
    s.add("predicted.optimizer", "Optimizer step", "2 × state bytes × parameters / (shards × HBM bandwidth)",
        formatCount(stage.parametersPerGpu) + " parameters per GPU"
            + (l.zeroStage >= 1 ? " over " + integer(double(l.dp) * l.cp) + " shards" : ""),
        c.optimizer, "s", formatSeconds(c.optimizer), "memory-bound multi-tensor Adam (apex/TE FusedAdam)");
    terms = secondsSum(
        {{"busy", busy}, {"bubble", c.pipelineBubble}, {"PP sends", c.ppSend}, {"DP", c.dpCommunication}, {"optimizer", c.optimizer}},
        &names);
    s.add("predicted.step_seconds", "Predicted step time", names, terms, p.stepSeconds, "s", formatSeconds(p.stepSeconds),
        "sum of the rows above");
    s.add("predicted.mfu", "Predicted MFU", "model FLOPs per step / (step × GPUs × peak)",
          formatSci(p.modelFlopsPerStep) + " / (" + formatSeconds(p.stepSeconds) + " × " + integer(double(e.gpusUsed)) + " × " +
              formatSci(plan.cluster.peakFlopsPerGpu) + " FLOP/s)",
          p.mfu, "", formatPercent(p.mfu), "Chowdhery et al. 2022 (PaLM), App. B");
    const PredictedRange& r = p.range;
    // Each unknown's sides that move the step (the expected side is x1 by definition).
    std::string effects, idle;
    constexpr double kNoEffect = 5e-4;
    for (const UnknownEffect& u : r.unknownEffects) {
        std::string sides;
        if (u.slowerFactor > 1.0 + kNoEffect)
            sides += u.slowerValue + " ×" + num(u.slowerFactor);
        if (u.fasterFactor < 1.0 - kNoEffect)
            sides += (sides.empty() ? "" : ", ") + u.fasterValue + " ×" + num(u.fasterFactor);
        if (sides.empty())
            idle += (idle.empty() ? "" : ", ") + u.label;
        else
            effects += (effects.empty() ? "" : "; ") + u.label + " " + sides;
    }
    if (!idle.empty())
        effects += (effects.empty() ? "" : "; ") + std::string("no effect on this plan: ") + idle;
    const double bandHigh = std::log1p(r.modelErrorSlower), bandLow = -std::log1p(-r.modelErrorFaster);
    s.add("predicted.range", "Predicted MFU range",
        "step × e^±√(unknowns² + model error²): each unknown alone at its slower / faster value (ln of its step factor), "
        "added in quadrature with the model's measured error (+" + formatPercent(r.modelErrorSlower, 0) + " / −"
            + formatPercent(r.modelErrorFaster, 0) + " on the step: the " + formatPercent(r.coverage, 0)
            + (usesCalibratedStepBand(a.plan)
                    ? " conformal band of reference runs predicted after calibrating on another run of their cluster)"
                    : " conformal band of its leave-one-family-out residuals)"),
        "slow side √(" + num(r.unknownsLogSlower) + "² + " + num(bandHigh) + "²), fast side √(" + num(r.unknownsLogFaster) + "² + "
            + num(bandLow) + "²); step " + formatSeconds(r.high.stepSeconds) + " to " + formatSeconds(r.low.stepSeconds) + "; "
            + (r.unknownInputs() > 0 ? "unknown " + unknownInputsPhrase(r.unknownSwitches, r.unknownLayoutFields, r.unknownLoadImbalance, r.unknownEfficiencies)
                                     : std::string("nothing unknown")),
        r.low.mfu, "", formatPercent(r.low.mfu) + " to " + formatPercent(r.high.mfu),
        "split conformal (Lei et al. 2018) over leave-one-family-out residuals, resources/reference (tst_realitycheck); "
        "independent spreads in quadrature (JCGM 100:2008, GUM, Sec. 5.1.2)")
        .note = (effects.empty() ? std::string("nothing unknown: the model's error alone")
                                 : "each unknown alone (its step factor): " + effects)
        + calibrationNote(a.plan.cluster);
    return s.take();
}

DerivationSection reliabilitySection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& r = e.reliability;
    const auto& cl = plan.cluster;
    const auto state = stateBytesPerParameter(plan.training.precision);
    SectionBuilder s("Reliability", example);
    s.add("reliability.checkpoint_bytes", "Checkpoint size", "N × (weights + master + moments)",
          formatCount(e.parameters.total) + " × " + num(state.weights + state.optimizer()) + " B", r.checkpointBytes, "bytes",
          formatBytes(r.checkpointBytes), "Megatron-LM distributed checkpoint contents")
        .note = "gradients are not saved; sharded across ranks: " + formatBytes(r.checkpointBytesPerGpu) + " per GPU";
    s.compare(s.last(), A, "~1.1 TB including gradients");
    s.add("reliability.checkpoint_write_seconds", "Checkpoint stall (δ)",
        plan.reliability.checkpointWriteSeconds ? "given" : "bytes per GPU / write bandwidth",
        plan.reliability.checkpointWriteSeconds ? num(r.checkpointWriteSeconds) + " s"
                                                : formatBytes(r.checkpointBytesPerGpu) + " / write bandwidth",
        r.checkpointWriteSeconds, "s", formatSeconds(r.checkpointWriteSeconds),
        plan.reliability.checkpointWriteSeconds ? "assumption (reliability.checkpoint_write_seconds; default 60 s for an asynchronous save)"
                                                : "definition");
    s.compare(s.last(), A, "1 min, asynchronous");
    if (!r.failuresModelled) {
        s.add("reliability.padded_days", "Wall time", "compute (no failure model)", num(r.computeSeconds) + " s", r.paddedDays, "days",
              num(r.paddedDays) + " days", "RED FLAG: no allowance for failures");
        return s.take();
    }
    const bool perNode = cl.mtbfBasis == MtbfBasis::PerNode;
    const double parts = perNode ? e.nodes : e.gpusUsed;
    s.add("reliability.cluster_mtbf_seconds", "Cluster mean time between failures", perNode ? "node MTBF / nodes" : "GPU MTBF / GPUs",
         num(*cl.mtbfSeconds / units::secondsPerHour) + " h / " + integer(parts), r.clusterMtbfSeconds, "s",
         formatSeconds(r.clusterMtbfSeconds), "Llama 3 paper (Dubey et al. 2024), Sec. 3.3.4 (failures independent across nodes)")
        .note = "for scale: Llama 3's " + integer(kLlama3Interruptions) + " interruptions in " + integer(kLlama3SnapshotDays) + " days on "
        + integer(kLlama3Gpus) + " GPUs are " + integer(kDefaultMtbfHoursPerNode) + " h per node (no default: a plan without an MTBF "
        + "models no failures, a red flag)";
    s.compare(s.last(), A, "assumes 1,000 h per node, a failure every few hours at 2,048 GPUs (about 6 × Llama 3's rate)");
    s.add("reliability.checkpoint_interval_seconds", "Checkpoint interval", "√(2 · δ · MTBF)",
          "√(2 × " + num(r.checkpointWriteSeconds) + " s × " + num(r.clusterMtbfSeconds) + " s)", r.checkpointIntervalSeconds, "s",
          formatSeconds(r.checkpointIntervalSeconds), "Young 1974; Daly 2006");
    s.compare(s.last(), A, "≈ 20–40 minutes");
    s.add("reliability.lost_seconds_per_failure", "Time lost per failure", "restart + interval / 2",
        formatSeconds(plan.reliability.restartSeconds) + " + " + formatSeconds(r.checkpointIntervalSeconds / 2), r.lostSecondsPerFailure,
        "s", formatSeconds(r.lostSecondsPerFailure), "Daly 2006 (expected rework is half an interval)");
    s.add("reliability.padded_seconds", "Wall time with failures", "C·(1 + δ/τ) / (1 − lost per failure / MTBF)",
          formatSci(r.computeSeconds) + " × (1 + " + num(r.checkpointWriteSeconds) + "/" + num(r.checkpointIntervalSeconds) + ") / (1 − " +
              num(r.lostSecondsPerFailure) + "/" + num(r.clusterMtbfSeconds) + ")",
          r.paddedSeconds, "s", formatSci(r.paddedSeconds) + " s", "derived: failures arrive during the padded run itself");
    s.add("reliability.padded_days", "Padded wall days", "seconds / 86,400", formatSci(r.paddedSeconds) + " / 86,400", r.paddedDays, "days",
          num(r.paddedDays) + " days", "definition");
    s.compare(s.last(), A, "budget ~10–11 days with failures");
    s.add("reliability.expected_failures", "Expected failures over the run", "wall time / MTBF",
          formatSci(r.paddedSeconds) + " / " + num(r.clusterMtbfSeconds), r.expectedFailures, "failures", num(r.expectedFailures),
          "Poisson arrivals at the cluster MTBF");
    return s.take();
}

DerivationSection checksSection(const Plan& plan, const Estimate& e, WorkedExample example)
{
    const auto& l = plan.layout;
    const auto& cl = plan.cluster;
    SectionBuilder s("Red flags and checks", example);
    const bool tpInNode = !e.communication.tpCrossesNodes;
    const bool byNode = cl.scaleUpDomain() == cl.gpusPerNode;
    s.add("checks.tp_within_node", byNode ? "TP stays inside a node" : "TP stays inside the NVLink domain",
          byNode ? "TP ≤ GPUs per node, dividing it" : "TP ≤ GPUs per NVLink domain (cluster.nvlink_domain), dividing it",
          integer(l.tp) + " vs " + integer(cl.scaleUpDomain()), tpInNode, "check", check(tpInNode),
          "Shoeybi et al. 2019, Sec. 3 (TP's per-layer all-reduces need NVLink bandwidth)");
    const bool covers = e.gpusUsed == cl.gpus;
    s.add("checks.layout_product", "Layout uses every GPU", parallelLabelsText() + " = GPUs",
          parallelValuesText([&](ParallelDim d) { return integer(l.size(d)); }) + " = " + integer(e.gpusUsed) + " vs " + integer(cl.gpus),
          covers, "check", check(covers), "definition");
    const long long per = (long long)l.dp * plan.training.microBatchSize;
    const bool divides = plan.training.globalBatchSequences % per == 0;
    s.add("checks.batch_divisible", "Global batch divides into micro-batches", "B mod (DP × b) = 0",
          integer(double(plan.training.globalBatchSequences)) + " mod " + integer(double(per)), divides, "check", check(divides),
          "definition");
    s.add("checks.fits_memory", "Fullest GPU fits in memory", "fullest GPU ≤ capacity",
          formatBytes(e.perGpu.total) + " ≤ " + formatBytes(e.capacityBytes), e.fits, "check", check(e.fits),
          "definition (total includes the runtime reserve)");
    const bool allowance = e.reliability.failuresModelled;
    s.add("checks.failure_allowance", "Failures are budgeted", "MTBF given", allowance ? "yes" : "no", allowance, "check", check(allowance),
          "Llama 3 paper (Dubey et al. 2024), Sec. 3.3.4 (419 interruptions in 54 days at 16,384 GPUs)");
    return s.take();
}

}  // namespace

std::vector<DerivationSection> derive(const Plan& plan, const Estimate& est)
{
    const WorkedExample example = workedExampleOf(plan);
    return {computeSection(plan, est, example),       memorySection(plan, est, example),      batchSection(plan, est, example),
            communicationSection(plan, est, example), reliabilitySection(plan, est, example), checksSection(plan, est, example)};
}

const DerivationStep* findStep(const std::vector<DerivationSection>& sections, const std::string& id)
{
    for (const auto& section : sections)
        for (const auto& step : section.steps)
            if (step.id == id)
                return &step;
    return nullptr;
}

bool substitutionAddsToResult(const DerivationStep& step)
{
    if (step.substituted.empty() || step.substituted == step.result)
        return false;
    // One number ("60", "1,024", "1.4e12", "70.55") with at most a unit of words ("s",
    // "billion", "GB/s", "tokens"): a value, not a substitution.
    static const std::regex loneValue(R"(^\s*[0-9][0-9.,]*(e[+-]?[0-9]+)?(\s+[A-Za-z%/]+)*\s*$)");
    return !std::regex_match(step.substituted, loneValue);
}

std::string derivationToMarkdown(const std::vector<DerivationSection>& sections)
{
    std::ostringstream out;
    for (const auto& section : sections) {
        out << "## " << section.title << "\n\n";
        for (const auto& s : section.steps) {
            out << "**" << s.title << "**  \n";
            out << "`" << s.formula << "` = ";
            if (substitutionAddsToResult(s))
                out << "`" << s.substituted << "` = ";
            out << "**" << s.result << "**  \n";
            if (!s.note.empty())
                out << s.note << "  \n";
            out << "_Source: " << s.source << "_\n\n";
        }
    }
    return out.str();
}

std::string derivationToText(const std::vector<DerivationSection>& sections)
{
    std::ostringstream out;
    for (const auto& section : sections) {
        out << section.title << "\n" << std::string(section.title.size(), '-') << "\n";
        for (const auto& s : section.steps) {
            out << "  " << s.title << "\n";
            out << "    " << s.formula << "\n";
            if (substitutionAddsToResult(s))
                out << "    = " << s.substituted << "\n";
            out << "    = " << s.result << "\n";
            if (!s.note.empty())
                out << "    (" << s.note << ")\n";
            out << "    [" << s.source << "]\n";
        }
        out << "\n";
    }
    return out.str();
}

// Money, energy and carbon (estimate/CostEnergyModel.h), on the assumed-MFU basis the other
// sections use, the predicted basis's figure in each step's note.
DerivationSection costSection(const Analysis& analysis)
{
    SectionBuilder s("Cost and energy", WorkedExample::None);
    const Plan& plan = analysis.plan;
    const Estimate& e = analysis.estimate;
    const CostEnergyEstimate& c = analysis.cost;
    const CostEnergyEstimate& p = analysis.costAtPredicted;
    const std::string gpus = formatInteger(e.gpusUsed);
    if (c.usd) {
        s.add("cost.usd", "Cost of the run", "GPU-hours · price per GPU-hour",
            formatCount(e.time.gpuHours) + " × $" + formatNumber(*c.pricePerGpuHourUsd), *c.usd, "USD", "$" + formatCount(*c.usd),
            "cost.price_per_gpu_hour_usd (the plan's)")
            .note = p.usd ? "predicted: $" + formatCount(*p.usd) : std::string();
        if (c.usdWithFailures)
            s.add("cost.usd_with_failures", "Cost with the failure allowance", "GPUs · padded wall time · price",
                gpus + " × " + formatSeconds(e.reliability.failuresModelled ? e.reliability.paddedSeconds : e.time.totalSeconds) + " × $"
                    + formatNumber(*c.pricePerGpuHourUsd) + "/h",
                *c.usdWithFailures, "USD", "$" + formatCount(*c.usdWithFailures), "padded wall time: Reliability section")
                .note = p.usdWithFailures ? "predicted: $" + formatCount(*p.usdWithFailures) : std::string();
    } else {
        s.add("cost.usd", "Cost of the run", "GPU-hours · price per GPU-hour", "no price given", 0, "USD", "not computed",
            "set cost.price_per_gpu_hour_usd");
    }
    if (c.gpuPowerWatts > 0) {
        s.add("energy.power_per_gpu", "Facility power per GPU", "GPU power · (1 + server overhead) · PUE",
            formatNumber(c.gpuPowerWatts) + " W × (1 + " + formatNumber(plan.cost.serverOverheadFraction) + ") × "
                + formatNumber(plan.cost.pue),
            c.facilityWattsPerGpu, "W", formatNumber(c.facilityWattsPerGpu) + " W",
            std::string(c.gpuPowerFromPreset ? "GPU: the accelerator preset's board power (datasheet TDP)" : "GPU: cost.gpu_power_watts")
                + "; server overhead: NVIDIA DGX H100 datasheet, 10.2 kW max for 8 × 700 W GPUs; PUE: assumed 1.2 "
                  "(Google fleet 1.10, 2023; Uptime Institute mean 1.58, 2023) unless the plan sets it");
        s.add("energy.mwh", "Energy of the run", "GPUs · facility power per GPU · wall time",
            gpus + " × " + formatNumber(c.facilityWattsPerGpu) + " W × " + formatSeconds(e.time.totalSeconds), *c.energyJoules, "J",
            formatNumber(*c.energyJoules / units::MWh) + " MWh", "at rated power: an upper bound for GPUs drawing less")
            .note = p.energyJoules ? "predicted: " + formatNumber(*p.energyJoules / units::MWh) + " MWh" : std::string();
    } else {
        s.add("energy.mwh", "Energy of the run", "GPUs · facility power per GPU · wall time", "no GPU power known", 0, "J",
            "not computed", "set cost.gpu_power_watts: the accelerator is no preset");
    }
    if (c.carbonKg)
        s.add("carbon.tonnes_co2e", "Carbon of the run", "energy in kWh · grid intensity",
            formatNumber(*c.energyJoules / 3.6e6) + " kWh × " + formatNumber(*plan.cost.gridKgCo2ePerKwh) + " kg/kWh", *c.carbonKg, "kg",
            formatNumber(*c.carbonKg / units::kgPerTonne) + " t CO2e", "cost.grid_kg_co2e_per_kwh (the plan's)")
            .note = p.carbonKg ? "predicted: " + formatNumber(*p.carbonKg / units::kgPerTonne) + " t" : std::string();
    else
        s.add("carbon.tonnes_co2e", "Carbon of the run", "energy in kWh · grid intensity",
            c.energyJoules ? "no grid intensity given" : "no energy figure", 0, "kg", "not computed",
            c.energyJoules ? "set cost.grid_kg_co2e_per_kwh" : "set cost.gpu_power_watts, then cost.grid_kg_co2e_per_kwh");
    return s.take();
}

std::vector<DerivationSection> derive(const Analysis& analysis)
{
    std::vector<DerivationSection> sections = derive(analysis.plan, analysis.estimate);
    // The prediction after the communication it prices, before reliability.
    const auto at = std::find_if(sections.begin(), sections.end(), [](const DerivationSection& s) { return s.title == "Reliability"; });
    sections.insert(at, predictedSection(analysis, workedExampleOf(analysis.plan)));
    // The memory range and its verdict close the memory section (MemoryRange.h, MemoryFit.h).
    for (DerivationSection& section : sections) {
        if (std::none_of(section.steps.begin(), section.steps.end(), [](const DerivationStep& st) { return st.id == "memory.headroom"; }))
            continue;
        const MemoryRange& r = analysis.memoryRange;
        section.steps.push_back(DerivationStep{"memory.range", "Memory range of the fullest GPU",
            "lightest variant − fragmentation allowance … heaviest variant × (1 + model error)",
            (r.unknownSwitches > 0 || r.unknownLayoutFields != 0 || r.unknownLoadImbalance
                    ? "unknown " + unknownInputsPhrase(r.unknownSwitches, r.unknownLayoutFields, r.unknownLoadImbalance)
                    : std::string("nothing unknown"))
                + "; model error +" + formatPercent(r.modelErrorAbove, 0),
            r.highBytes, "bytes", formatBytes(r.lowBytes) + " to " + formatBytes(r.highBytes),
            "measured peaks of resources/reference (MemoryRange.cpp); fragmentation: ReserveModel.cpp", ""});
        section.steps.push_back(
            DerivationStep{"memory.verdict", "Fit verdict", "low end > usable: does not fit; high end > usable: may not fit; else fits",
                "usable = capacity − margin = " + formatBytes(analysis.estimate.capacityBytes) + " − "
                    + formatBytes(analysis.estimate.marginBytes),
                r.usableBytes, "bytes", memoryFitName(r.fit), "definition (MemoryFit.h); margin from training.memory_margin_fraction",
                memoryFitSentence(r)});
        break;
    }
    sections.push_back(costSection(analysis));
    return sections;
}

}  // namespace trainplan
