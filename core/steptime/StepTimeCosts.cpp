#include "core/steptime/StepTimeCosts.h"

#include <algorithm>
#include <cmath>

#include "core/base/RecentResults.h"
#include "core/estimate/ActivationModel.h"
#include "core/topology/Topology.h"

namespace trainplan {

namespace {

// Element-wise HBM passes per element, e bytes per activation (Korthikanti et al. 2022, Sec. 4.1
// lists the same operations when counting activation memory). Fused kernels (Megatron's
// bias-GeLU, bias-dropout-add, fused norms; TE):
//   norm (LayerNorm / RMSNorm) read x, write y                                  2e
//   residual: bias-dropout-add reads x and the residual, writes y               3e (+1 mask byte)
//   activation: GeLU read, write 2e per FFN element; SwiGLU read gate and up, write 3e
// Unfused, one PyTorch op per kernel, as eager PyTorch runs a Llama block with torch.compile off
// (torchtitan models/norms.py RMSNorm and models/llama/model.py at 9dec370, its Llama 3.1
// benchmark commit; GPT-style models take the bias and dropout terms):
//   RMSNorm: x.float() 6 B, pow 8, mean 4, x * rsqrt 8, type_as 6, * weight 4 = 36 B  18e, 8 kernels
//   LayerNorm: ATen's native_layer_norm is one kernel even in eager                   2e, 1 kernel
//   residual: add 3e; a bias add 2e and dropout 2e (+1 mask byte) where the model has them
//   activation: bias add 2e then GeLU 2e = 4e; SwiGLU: SiLU 2e then multiply 3e = 5e
//   RoPE as complex numbers: q.float() 6 B, complex multiply 8, type_as 6 = 20 B     10e per q/k element
//   GQA: repeat_kv's expand + reshape copies K and V to every query head (read kv, write heads)
//   attention output transpose(1, 2).contiguous(): one copy                           2e
//   attention softmax without flash: scale, mask, softmax as three passes             6e (fused: 2e)
// RoPE on queries and keys fused (Megatron / TE) reads and writes them once, 2e.
// Each op's backward reads its saved input and the incoming gradient and writes one gradient:
// three passes against the forward's two, so 1.5x the forward's bytes.
constexpr double kBackwardMemoryFactor = 1.5;
// Cross-entropy over the vocabulary-parallel logits, pass by pass as Megatron-Core runs it
// (megatron/core/tensor_parallel/cross_entropy.py, no loss fusion, the default): the FP32 copy of
// the 16-bit logits (read 2, write 4), the max (read 4), subtracting it in place (8), exp in place
// (8), the sum (4), dividing in place to the softmax kept for the backward (8): 38 bytes per
// logit; backward, the in-place multiply by the incoming gradient (8) and the cast back to 16
// bits for the output layer (read 4, write 2): 14. PyTorch's cross_entropy on upcast logits
// (log_softmax, nll_loss and their backwards) moves about as much.
constexpr double kLossForwardBytesPerLogit = 38.0;
constexpr double kLossBackwardBytesPerLogit = 14.0;
// FlashAttention's backward runs five matrix multiplies per tile (it recomputes the scores)
// against the forward's two (Dao 2023, FlashAttention-2, Sec. 3.1.2): 2.5x the forward FLOPs.
constexpr double kFlashBackwardFactor = 2.5;
// Causal masking: FlashAttention skips the tiles above the diagonal, about half the score
// matrix (Dao 2023, Sec. 3.1.1); without it the full matrix is computed and masked.
constexpr double kCausalFraction = 0.5;
// TE userbuffers overlap (Megatron --tp-comm-overlap): each AG/RS is split into chunks pipelined
// with its GEMM (num_splits 4 in Megatron-Core's default tp_comm_overlap_cfg), so one chunk stays
// exposed, and the communication kernels take SMs from the GEMM while they run (16 of the
// Hopper presets' 2-32 SMs per overlap; Megatron-Bridge comm_overlap.py).
constexpr double kTpOverlapSplits = 4.0;
constexpr double kTpOverlapSms = 16.0;
// Tile candidates as fractions of the accelerator's large tile, with the fraction of the large
// tile's rate each sustains: halving a tile side lowers its arithmetic intensity (data reuse per
// loaded byte) by a third, and cuBLAS falls back to such tiles for small outputs (estimate).
struct TileChoice {
    double mScale, nScale, rate;
};
constexpr TileChoice kTiles[] = {{1.0, 1.0, 1.0}, {0.5, 1.0, 0.92}, {0.5, 0.5, 0.80}};

// ceil() for the positive, well below 2^53 counts here; libm's ceil is a call on baseline x86-64.
inline double ceilCount(double x)
{
    const double truncated = double(static_cast<long long>(x));
    return truncated < x ? truncated + 1.0 : truncated;
}

struct GemmTotals {
    double flops = 0;
    double forward = 0, inputGrad = 0, weightGrad = 0;  // seconds
    double forwardEach[4] = {0, 0, 0, 0}, inputGradEach[4] = {0, 0, 0, 0};
    double headForward = 0, headInputGrad = 0, headWeightGrad = 0;
    double mtpProjectionForward = 0, mtpProjectionInputGrad = 0, mtpProjectionWeightGrad = 0;
};

// What matmulEfficiency reads of the accelerator.
struct GemmEfficiencyKey {
    double matmulEfficiency = 0, gemmKHalf = 0;
    int smCount = 0, tileM = 0, tileN = 0;
    GemmEfficiencyKey() = default;
    explicit GemmEfficiencyKey(const AcceleratorEfficiency& e)
        : matmulEfficiency(e.matmulEfficiency), gemmKHalf(e.gemmKHalf), smCount(e.smCount), tileM(e.gemmTileM), tileN(e.gemmTileN)
    {
    }
    bool operator==(const GemmEfficiencyKey&) const = default;
};

// The layer's and LM head's GEMM times depend only on these (gemmTotals).
struct GemmKey {
    double tokens = 0, qkv = 0, heads = 0, h = 0, ffnIn = 0, ffn = 0, vocab = 0, peak = 0, layerPeak = 0;
    double mtpOut = 0;  // the MTP projection's outputs per rank (h / t), 0 without MTP
    GemmEfficiencyKey efficiency;
    bool operator==(const GemmKey&) const = default;
};

}  // namespace

double reducedGradientBytes(const Plan& plan, const FrameworkOptions& fw)
{
    const double own = stateBytesPerParameter(plan.training.precision).gradients;
    return fw.fp32Gradients ? std::max(own, 4.0) : own;
}

GradientAccumulationBytes gradientAccumulationBytes(const Plan& plan, const FrameworkOptions& fw, double microbatches, bool gemmWeight)
{
    const auto state = stateBytesPerParameter(plan.training.precision);
    const double e = state.gradients, r = reducedGradientBytes(plan, fw), w = state.weights;
    GradientAccumulationBytes out;
    switch (fw.gradientAccumulation) {
    case GradientAccumulation::Fused:
        out.backward = gemmWeight ? 0.0 : e + 2.0 * r;
        break;
    case GradientAccumulation::Autograd:
        if (plan.layout.zeroStage >= 3) {
            out.forward = 2.0 * w;
            out.backward = 2.0 * w + e + r;
        } else {
            out.backward = microbatches > 1.0 ? 3.0 * e * (microbatches - 1.0) / microbatches : 0.0;
        }
        break;
    case GradientAccumulation::Fp32Copy:
        out.backward = 5.0 * e + 16.0;
        break;
    }
    return out;
}

double collectiveSmShare(const AcceleratorEfficiency& e)
{
    constexpr double kNcclChannels = 16.0;
    return e.smCount > 0 ? std::min(1.0, kNcclChannels / e.smCount) : 0.0;
}

double matmulEfficiency(double m, double n, double k, const AcceleratorEfficiency& e, double batch)
{
    if (m <= 0 || n <= 0 || k <= 0 || e.smCount <= 0)
        return 0.0;
    // Each candidate's share of peak is rate x (m n / covered area) x (tiles / (waves x SMs));
    // candidates compare as fractions so that the search's hot loop divides only at the end.
    const double invTileM = 1.0 / e.gemmTileM, invTileN = 1.0 / e.gemmTileN, sm = e.smCount, invSm = 1.0 / sm;
    const double blocks = std::max(1.0, batch);
    double bestNumerator = 0.0, bestDenominator = 1.0;
    for (const TileChoice& t : kTiles) {
        const double tilesM = ceilCount(m * invTileM / t.mScale), tilesN = ceilCount(n * invTileN / t.nScale);
        const double tiles = tilesM * tilesN * blocks;
        const double waves = ceilCount(tiles * invSm);
        const double covered = tilesM * tilesN * (e.gemmTileM * t.mScale) * (e.gemmTileN * t.nScale);
        const double numerator = t.rate * tiles, denominator = covered * waves;
        if (numerator * bestDenominator > bestNumerator * denominator) {
            bestNumerator = numerator;
            bestDenominator = denominator;
        }
    }
    return e.matmulEfficiency * (m * n * bestNumerator * k) / (bestDenominator * sm * (k + e.gemmKHalf));
}

CommunicationGroups communicationGroups(const Plan& plan, const Estimate& est, const AcceleratorEfficiency& e)
{
    const auto& l = plan.layout;
    const auto& cl = plan.cluster;
    const auto strides = rankStrides(l);
    const auto stride = [&](ParallelDim d) { return strides[parallelDimIndex(d)]; };
    const long long world = est.gpusUsed;
    // "Node" in a GroupPlacement is the scale-up domain (cluster.nvlink_domain): what decides a
    // collective's links is whether it leaves NVLink, not the server box.
    const int domain = cl.scaleUpDomain();
    CommunicationGroups g;
    g.tp = groupPlacement(stride(ParallelDim::Tp), l.tp, domain, world);
    g.cp = groupPlacement(stride(ParallelDim::Cp), l.cp, domain, world);
    g.pp = groupPlacement(stride(ParallelDim::Pp), l.pp, domain, world);
    // The expert grid folds each stage's ranks ETP fastest, then EP, then EDP (ExpertGrid.h).
    g.etp = groupPlacement(1, l.etp, domain, world);
    g.ep = groupPlacement(l.etp, l.ep, domain, world);
    g.edp = groupPlacement(double(l.etp) * l.ep, std::max(1, int(double(l.tp) * l.cp * l.dp / (double(l.ep) * l.etp))), domain, world);
    // The DP x CP group: one strided group when CP ranks lie just inside DP ones (tp-cp-dp-pp),
    // otherwise the two dimensions' members per node multiply.
    if (l.cp == 1) {
        g.dp = groupPlacement(stride(ParallelDim::Dp), l.dp, domain, world);
    } else if (stride(ParallelDim::Dp) == stride(ParallelDim::Cp) * l.cp) {
        g.dp = groupPlacement(stride(ParallelDim::Cp), l.dp * l.cp, domain, world);
    } else {
        const GroupPlacement dp = groupPlacement(stride(ParallelDim::Dp), l.dp, domain, world);
        g.dp.ranks = l.dp * l.cp;
        g.dp.perNode = std::min(domain, dp.perNode * g.cp.perNode);
        g.dp.nodes = (g.dp.ranks + g.dp.perNode - 1) / g.dp.perNode;
    }
    g.fabric =
        Fabric{cl.intraNodeBytesPerSecond, cl.interNodeBytesPerSecond, e.intraNodeCollectiveEfficiency, e.interNodeCollectiveEfficiency,
            cl.inNetworkReduction != InNetworkReduction::None, cl.inNetworkReduction == InNetworkReduction::NvlsAndIbSharp,
            e.scaleUpStepSeconds / kNcclSimpleNvlinkStepSeconds, e.networkStepSeconds / kNcclSimpleNetworkStepSeconds};
    return g;
}

namespace {

// HBM bytes per element to cast a 16-bit GEMM operand to the format with its transpose, scales
// included: read 2 bytes, write the value and its transpose. FP8 (per-tensor or DeepSeek-V3's
// blocks, whose scales are 1 per 128 or 128 x 128 values): 1 + 1 byte. MXFP8: 1 + 1/32 byte each
// (one E8M0 scale per 32 values: OCP Microscaling Formats (MX) v1.0, Sec. 5). NVFP4: 0.5 + 1/16
// byte each (one E4M3 scale per 16 values; NVIDIA, arXiv 2509.25149, Sec. 2), the random Hadamard
// transform of the weight-gradient operands fused into the same pass (ibid., Sec. 4.2).
double castTransposeBytesPerElement(MatmulPrecision precision)
{
    switch (precision) {
    case MatmulPrecision::Bf16: return 0.0;
    case MatmulPrecision::Fp8:
    case MatmulPrecision::Fp8Blockwise: return 2.0 + 2.0 * 1.0;
    case MatmulPrecision::Mxfp8: return 2.0 + 2.0 * (1.0 + 1.0 / 32.0);
    case MatmulPrecision::Nvfp4: return 2.0 + 2.0 * (0.5 + 1.0 / 16.0);
    }
    return 0.0;
}

// What every layer kind's cost and the ends' costs share: the plan's shapes on one GPU, the
// precision, and the TP collective of one b s h activation.
struct CostInputs {
    const Plan& plan;
    const Estimate& est;
    const AcceleratorEfficiency& e;
    const FrameworkOptions& fw;
    const CommunicationGroups& groups;
    double peak, t, b, sq, sk, tokens, h, d, heads, kvHeads, vocab, bytes, hbm, layerPeak, microbatches;
    // The attention's projections as one fused input GEMM (tokens x qkvWidth x h) and the output
    // GEMM (tokens x h x outWidth) on one TP rank, and the head sizes of the attention core's two
    // products (Q K^T over coreQk, the weighted values over coreV). For multi-head latent
    // attention the input GEMM stands for the down- and up-projections together, with their
    // weights (DeepSeek-V2, Eq. 9-14): the same FLOPs, one shape.
    double qkvWidth = 0, outWidth = 0, coreQk = 0, coreV = 0;
    bool flash, sp, fused;
    bool lowPrecision;  // the projections run in FP8 or NVFP4 (training.matmul_precision, on a part with its peak)
    double castBytes = 0;  // HBM bytes per element to cast one GEMM operand and its transpose
    bool rms, rope, gqa;  // RMSNorm, rotary positions, fewer KV heads than query heads on the rank
    double tpCollective = 0;
    bool tpOverlap = false;
    double contention = 0;

    CostInputs(const Plan& p, const Estimate& estimate, const StepTimeOptions& options, const CommunicationGroups& g)
        : plan(p), est(estimate), e(options.efficiency), fw(options.framework), groups(g)
    {
        const auto& model = plan.model;
        const auto& l = plan.layout;
        peak = plan.cluster.peakFlopsPerGpu;
        t = l.tp;
        b = plan.training.microBatchSize;
        sq = double(model.sequenceLength) / l.cp;  // this rank's queries
        sk = model.sequenceLength;                 // keys each query attends to
        tokens = b * sq;
        h = model.hiddenSize;
        d = model.headDim;
        heads = double(model.attentionHeads) / t;
        kvHeads = std::max(1.0, double(model.kvHeads) / t);  // replicated when kv < t
        if (model.mla) {
            const MlaSpec& a = *model.mla;
            const double o = double(model.attentionHeads) * a.vHeadDim * h;
            qkvWidth = (est.parameters.kinds[0].attention - o) / h / t;
            outWidth = heads * a.vHeadDim;
            coreQk = double(a.qkNopeHeadDim) + a.qkRopeHeadDim;
            coreV = a.vHeadDim;
        } else {
            qkvWidth = (heads + 2.0 * kvHeads) * d;
            outWidth = heads * d;
            coreQk = coreV = d;
        }
        vocab = double(model.vocabSize) / t;
        flash = fw.flashAttention != FlashAttentionVersion::None;
        sp = l.sequenceParallel && l.tp > 1;
        bytes = activationBytesPerElement(plan.training.precision);
        hbm = e.hbmBytesPerSecond * e.hbmEfficiency;
        // FP8 matmuls (training.matmul_precision): the layers' projections run at the FP8 peak with
        // the same shape efficiency as BF16 (cuBLASLt FP8 on H100 reaches about 1,610 of 1,979
        // TFLOP/s at 8192^3, 81 %, as BF16 reaches about 80 % of its peak: the MAMF figures of
        // accelerators.json); DeepSeek-V3's block scales cost little more (Liu et al. 2024, arXiv
        // 2412.19437, Sec. 3.3.2). Attention and the output layer stay BF16 (TransformerEngine and
        // Megatron-Core defaults).
        lowPrecision = plan.training.matmulPrecision != MatmulPrecision::Bf16 && options.formatPeakFlopsPerGpu > 0;
        layerPeak = lowPrecision ? options.formatPeakFlopsPerGpu : peak;
        castBytes = lowPrecision ? castTransposeBytesPerElement(plan.training.matmulPrecision) : 0.0;
        fused = fw.fusedKernels;
        rms = model.norm == NormKind::RmsNorm;
        rope = model.positionEmbedding == PositionEmbedding::Rope;
        gqa = kvHeads < heads;
        microbatches = double(est.pipeline.microbatches);
        // TP (Shoeybi et al. 2019; Korthikanti et al. 2022, Sec. 4.2.2): two all-reduces of the
        // b s h activations forward and two backward, or with sequence parallelism an all-gather
        // before each column-parallel GEMM and a reduce-scatter after each row-parallel one (same
        // bus bytes). Priced on the TP group's placement (collectiveSeconds). Exposed unless the
        // framework pipelines them with the GEMMs (tpCommOverlap: TE userbuffers need SP, TP >= 2;
        // Megatron-Bridge comm_overlap.py), which leaves one chunk exposed and slows the GEMM by
        // the SMs the communication takes while it runs.
        const double tpBuffer = tokens * h * bytes;
        tpCollective =
            l.tp > 1 ? collectiveSeconds(sp ? Collective::AllGather : Collective::AllReduce, tpBuffer, groups.tp, groups.fabric) : 0.0;
        tpOverlap = fw.tpCommOverlap && sp;
        contention = e.smCount > 0 ? std::min(1.0, kTpOverlapSms / e.smCount) : 0.0;
    }

    double tpExposed(double gemmSeconds) const
    {
        if (!tpOverlap)
            return tpCollective;
        const double hidden = std::min(tpCollective, gemmSeconds);
        return std::max(0.0, tpCollective - gemmSeconds) + hidden / kTpOverlapSplits + hidden * contention;
    }
};

// The GEMM times of one layer shape and of the LM head.
GemmTotals layerGemmTotals(const GemmKey& key, const AcceleratorEfficiency& e)
{
    GemmTotals fresh;
    int index = 0;
    const double tokens = key.tokens, h = key.h, layerPeak = key.layerPeak, peak = key.peak, vocab = key.vocab, ffn = key.ffn;
    const auto gemm = [&](double m, double n, double k) {
        const double flops = 2.0 * m * n * k;
        if (flops <= 0) {  // no such GEMM (an MoE layer without shared experts has no dense FFN)
            ++index;
            return;
        }
        fresh.flops += flops;
        const double fwd = flops / (layerPeak * matmulEfficiency(m, n, k, e));
        const double dgrad = flops / (layerPeak * matmulEfficiency(m, k, n, e));
        const double wgrad = flops / (layerPeak * matmulEfficiency(k, n, m, e));
        fresh.forward += fwd;
        fresh.inputGrad += dgrad;
        fresh.weightGrad += wgrad;
        fresh.forwardEach[index] = fwd;
        fresh.inputGradEach[index] = dgrad;
        ++index;
    };
    gemm(tokens, key.qkv, h);     // Q, K, V
    gemm(tokens, h, key.heads);   // attention output
    gemm(tokens, key.ffnIn, h);   // FFN in (gate and up fused for SwiGLU)
    gemm(tokens, h, ffn);         // FFN out
    // The LM head: V/t output columns per rank.
    const double headFlops = 2.0 * tokens * vocab * h;
    fresh.headForward = headFlops / (peak * matmulEfficiency(tokens, vocab, h, e));
    fresh.headInputGrad = headFlops / (peak * matmulEfficiency(tokens, h, vocab, e));
    fresh.headWeightGrad = headFlops / (peak * matmulEfficiency(h, vocab, tokens, e));
    // An MTP depth's projection of the two normed b s h inputs, concatenated, to h (StepTimeCosts.h).
    if (const double out = key.mtpOut; out > 0) {
        const double flops = 2.0 * tokens * out * (2.0 * h);
        fresh.mtpProjectionForward = flops / (peak * matmulEfficiency(tokens, out, 2.0 * h, e));
        fresh.mtpProjectionInputGrad = flops / (peak * matmulEfficiency(tokens, 2.0 * h, out, e));
        fresh.mtpProjectionWeightGrad = flops / (peak * matmulEfficiency(2.0 * h, out, tokens, e));
    }
    return fresh;
}

// Kept per thread for the last few shapes: the layout search revisits the same shapes for every
// PP, DP, ZeRO and schedule choice, and a model of several kinds asks for each of its kinds in turn.
const GemmTotals& gemmTotals(const CostInputs& in, double ffn, bool swiglu)
{
    const auto& e = in.e;
    const GemmKey key{in.tokens, in.qkvWidth, in.outWidth, in.h, (swiglu ? 2.0 : 1.0) * ffn, ffn, in.vocab, in.peak, in.layerPeak,
                      in.plan.model.mtpLayers > 0 ? in.h / in.t : 0.0, GemmEfficiencyKey(e)};
    static thread_local RecentResults<GemmKey, GemmTotals, 4> recent;
    return recent.get(key, [&] { return layerGemmTotals(key, e); });
}

// The dense feed-forward of a layer of `kind`: its own width, or an MoE layer's shared experts
// together (they run as one dense MLP beside the routed experts; Megatron-Core SharedExpertMLP).
double denseFfnWidth(const ModelSpec& model, const LayerKind& kind)
{
    if (kind.moe && model.moe)
        return double(model.moe->sharedExperts) * model.moe->sharedWidth();
    return kind.ffnHiddenSize;
}

// DeepEP's dispatch across nodes (DeepSeek-V3 technical report, Sec. 3.2.2; DeepEP's normal
// kernels): a token goes over the network once to each other node holding one of its experts,
// then fans out over NVLink inside that node. With its k experts spread evenly over the EP group's
// N nodes, a token reaches N (1 - (1 - 1/N)^k) of them, at most M with node-limited routing
// (model.moe.max_nodes_per_token; DeepSeek-V3 routes each token to at most 4 nodes), all but its
// own by the network.
double deepEpSeconds(double tokens, double bytesPerToken, const MoeSpec& moe, const GroupPlacement& ep, const Fabric& f)
{
    const double nodes = ep.nodes;
    // (1 - 1/N)^k by squaring: k is a whole number, and std::pow cost 2 % of an MoE layout's
    // estimate and prediction in the search.
    double missed = 1.0, base = 1.0 - 1.0 / nodes;
    for (unsigned k = unsigned(std::max(0, moe.topK)); k > 0; k >>= 1, base *= base)
        if (k & 1u)
            missed *= base;
    double nodesReached = nodes * (1.0 - missed);
    if (moe.maxNodesPerToken > 0)
        nodesReached = std::min(nodesReached, double(moe.maxNodesPerToken));
    const int topK = moe.topK;
    const double remoteShare = nodes > 1 ? (nodes - 1.0) / nodes : 0.0;
    const double network = tokens * bytesPerToken * nodesReached * remoteShare;
    const double nvlink = tokens * bytesPerToken * topK * double(ep.perNode - 1) / std::max(1, ep.ranks);
    const double latency = collectiveSeconds(Collective::AllToAll, 0.0, ep, f);  // the exchange's fixed cost alone
    return latency + std::max(network / (f.nicBytesPerSecond * f.networkBusEfficiency), nvlink / (f.nvlinkBytesPerSecond * f.nvlinkBusEfficiency));
}

// One direction's token exchange of an MoE layer (dispatch, or combine), seconds, for `tokens`
// tokens on this rank each sent to top-k experts, at `load` times the balanced volume.
double expertExchangeSeconds(const CostInputs& in, MoeDispatcher dispatcher, double tokens, double bytesPerElement, double load)
{
    const MoeSpec& e = *in.plan.model.moe;
    const auto& g = in.groups;
    if (in.plan.layout.ep <= 1)
        return 0.0;
    const double perToken = in.h * bytesPerElement;
    switch (dispatcher) {
    case MoeDispatcher::AllGather:
        // Every rank gathers the group's tokens and keeps its experts' (Megatron's allgather
        // dispatcher); the combine reduce-scatters them back. Load does not change the volume.
        return collectiveSeconds(Collective::AllGather, tokens * perToken * g.ep.ranks, g.ep, g.fabric);
    case MoeDispatcher::DeepEp: return deepEpSeconds(tokens * load, perToken, e, g.ep, g.fabric);
    case MoeDispatcher::AllToAll: break;
    }
    return collectiveSeconds(Collective::AllToAll, tokens * e.topK * perToken * load, g.ep, g.fabric);
}

// What the routed experts' GEMMs of one MoE layer depend on (ExpertGemms).
struct ExpertGemmKey {
    double tokens = 0, topK = 0, load = 0, experts = 0, ep = 0, etp = 0, fcIn = 0, fe = 0, h = 0, peak = 0, layerPeak = 0;
    bool grouped = false;
    GemmEfficiencyKey efficiency;
    bool operator==(const ExpertGemmKey&) const = default;
};

struct ExpertPass {
    double forward = 0, inputGrad = 0, weightGrad = 0;
};

// The router and the routed experts' GEMMs of one MoE layer on one rank, one micro-batch, at a
// balanced load and at the busiest rank's (seconds).
struct ExpertGemms {
    double router = 0;
    ExpertPass balanced, busiest;
};

ExpertGemms expertGemms(const ExpertGemmKey& key, const AcceleratorEfficiency& eff)
{
    const double tokens = key.tokens, h = key.h, localExperts = key.experts / key.ep;
    ExpertGemms out;
    // Router: tokens x E scores (Megatron-Core TopKRouter, a small GEMM at the BF16 peak).
    const double routerFlops = 2.0 * tokens * key.experts * h;
    out.router = routerFlops / (key.peak * std::max(1e-3, matmulEfficiency(tokens, key.experts, h, eff)));

    // Grouped GEMMs (TransformerEngine GroupedLinear, Megatron --moe-grouped-gemm): each local
    // expert an m x n x k product, m its tokens (the rank's copies over its experts, gathered over
    // ETP), in one launch whose tiles fill the SMs together (matmulEfficiency's batch); without
    // grouping, one GEMM after another, each filling the SMs alone, and a launch each.
    const auto experts = [&](double atLoad) {
        const double m = tokens * key.topK * atLoad * key.etp / localExperts;
        ExpertPass p;
        const double batch = key.grouped ? localExperts : 1.0;
        const auto gemm = [&](double mm, double n, double k) {
            const double flops = 2.0 * mm * n * k * localExperts;
            const auto time = [&](double a, double b, double c) {
                return flops / (key.layerPeak * std::max(1e-3, matmulEfficiency(a, b, c, eff, batch)));
            };
            p.forward += time(mm, n, k);
            p.inputGrad += time(mm, k, n);
            p.weightGrad += time(k, n, mm);
        };
        gemm(m, key.fcIn, h);  // FC1 (gate and up)
        gemm(m, h, key.fe);    // FC2
        return p;
    };
    out.balanced = experts(std::min(key.load, 1.0));
    out.busiest = experts(key.load);
    return out;
}

// The routed experts of an MoE layer on the busiest rank, one micro-batch: the router, the
// grouped GEMMs of its E / EP experts over the tokens they receive, the permutation around them,
// the dispatch and combine exchanges (forward, and their gradients backward) and the expert-TP
// gather and scatter; what the busiest rank spends beyond a balanced load goes to the imbalance
// fields (LayerTimes).
void addExpertCosts(const CostInputs& in, const LayerKind& kind, LayerTimes& L)
{
    const auto& plan = in.plan;
    const MoeSpec& e = *plan.model.moe;
    const auto& l = plan.layout;
    const auto& eff = in.e;
    const auto& fw = in.fw;
    const double h = in.h, bytes = in.bytes;
    const bool swiglu = kind.ffnKind == FfnKind::SwiGlu;
    const double load = expertLoad(plan.model);
    // The rank's own tokens: the micro-batch's local sequence, split over TP by sequence
    // parallelism (Megatron-Core requires it for MoE with TP > 1).
    const double tokens = in.tokens / in.t;
    const double fe = double(e.expertFfnHiddenSize) / l.etp;
    const double fcIn = (swiglu ? 2.0 : 1.0) * fe;

    const ExpertGemmKey key{tokens, double(e.topK), load, double(e.experts), double(l.ep), double(l.etp), fcIn, fe, h,
                            in.peak, in.layerPeak, fw.moeGroupedGemm, GemmEfficiencyKey(eff)};
    static thread_local RecentResults<ExpertGemmKey, ExpertGemms, 4> recent;
    const ExpertGemms& gemms = recent.get(key, [&] { return expertGemms(key, eff); });
    const ExpertPass& balanced = gemms.balanced;
    const ExpertPass& busiest = gemms.busiest;
    L.forwardMatmul += gemms.router;
    L.backwardMatmul += 2.0 * gemms.router;
    L.weightGradMatmul += gemms.router;
    L.forwardMatmul += balanced.forward;
    L.backwardMatmul += balanced.inputGrad + balanced.weightGrad;
    L.weightGradMatmul += balanced.weightGrad;

    // Memory-bound: the permutation before the experts and the weighted un-permutation after
    // (read and write each routed copy, h elements), and the activation function on the experts'
    // FC1 outputs (SwiGLU reads gate and up, writes one: 3 passes; GeLU 2); backward 1.5x.
    const double copies = tokens * e.topK * load;
    const double forwardBytes = copies * (4.0 * h + (swiglu ? 3.0 : 2.0) * fe * l.etp) * bytes + tokens * e.experts * 4.0 * 3.0;
    L.forwardMemory += forwardBytes / in.hbm;
    L.backwardMemory += kBackwardMemoryFactor * forwardBytes / in.hbm;

    // Dispatch and combine, forward, and their gradients backward. DeepEP dispatches FP8 when the
    // layers run FP8 and combines in BF16 (DeepSeek-V3 technical report, Sec. 3.3.3); the rest
    // move 16-bit activations.
    const double dispatchBytes = fw.moeDispatcher == MoeDispatcher::DeepEp && in.lowPrecision ? 1.0 : bytes;
    const auto exchange = [&](double atLoad) {
        return expertExchangeSeconds(in, fw.moeDispatcher, tokens, dispatchBytes, atLoad)
            + expertExchangeSeconds(in, fw.moeDispatcher, tokens, bytes, atLoad);
    };
    // Expert TP: the dispatched copies all-gathered over ETP before FC1, reduce-scattered after
    // FC2 (Megatron-Core's ETP within the expert grid), forward and backward.
    const auto expertTp = [&](double atLoad) {
        if (l.etp <= 1)
            return 0.0;
        const double gathered = tokens * e.topK * atLoad * l.etp * h * bytes;
        return 2.0 * collectiveSeconds(Collective::AllGather, gathered, in.groups.etp, in.groups.fabric);
    };
    const double forwardExchange = exchange(std::min(load, 1.0)) + expertTp(std::min(load, 1.0));
    const double busiestExchange = exchange(load) + expertTp(load);
    // Hidden under another micro-batch's compute when the framework overlaps them (DualPipe's
    // paired forward and backward chunks, DeepSeek-V3 report Sec. 3.2.1; Megatron-Core's 1F1B
    // all-to-all overlap): only what that compute cannot cover shows, and the communication
    // kernels slow the compute under them by the SMs they hold (DeepSeek-V3 dedicates 20 of the
    // H800's 132 SMs to it, Sec. 3.2.2).
    const auto exposed = [&](double comm, double compute) {
        if (!fw.moeCommOverlap)
            return comm;
        const double share = eff.smCount > 0 ? std::min(1.0, 20.0 / eff.smCount) : 0.0;
        return std::max(0.0, comm - compute) + share * std::min(comm, compute);
    };
    const double forwardCompute = L.forwardMatmul + L.forwardAttention;
    const double backwardCompute = L.backwardMatmul + L.backwardAttention;
    L.forwardAllToAll = exposed(forwardExchange, forwardCompute);
    L.backwardAllToAll = exposed(forwardExchange, backwardCompute);
    const double busiestForward = exposed(busiestExchange, forwardCompute + busiest.forward - balanced.forward);
    const double busiestBackward = exposed(busiestExchange, backwardCompute + busiest.inputGrad + busiest.weightGrad - balanced.inputGrad - balanced.weightGrad);
    L.forwardImbalance = (busiest.forward - balanced.forward) + std::max(0.0, busiestForward - L.forwardAllToAll);
    L.backwardImbalance = (busiest.inputGrad + busiest.weightGrad - balanced.inputGrad - balanced.weightGrad)
        + std::max(0.0, busiestBackward - L.backwardAllToAll);

    // The expert kernels' fixed costs join the layer's in finishLayerTimes() (expertKernels()).
}

// Kernels of one MoE feed-forward, forward: router GEMM, top-k and its softmax, permute, dispatch,
// FC1, activation, FC2, combine, un-permute (about 9; each expert its own FC1 and FC2 without
// grouping). The backward launches about twice as many, as the layer's other kernels do.
double expertKernels(const CostInputs& in, const LayerKind& kind)
{
    if (!kind.moe || !in.plan.model.moe)
        return 0.0;
    const double localExperts = double(in.plan.model.moe->experts) / in.plan.layout.ep;
    return 9.0 + (in.fw.moeGroupedGemm ? 0.0 : 2.0 * (localExperts - 1.0));
}

// HBM bytes the attention scores take without FlashAttention (written, read by the softmax,
// and its dropout mask), one micro-batch; none with it.
double attentionScoreBytes(const CostInputs& in)
{
    if (in.flash)
        return 0.0;
    return in.b * in.heads * in.sq * in.sk * ((in.fused ? 2.0 : 6.0) * in.bytes + (in.fw.dropout ? 2.0 * in.bytes + 1.0 : 0.0));
}

// One layer of one kind, one micro-batch on one GPU, before what the ZeRO stage and recompute
// change (finishLayerTimes): the layout search predicts the 12 choices of those two from one of these.
LayerTimes layerTimesBeforeSharding(const CostInputs& in, const LayerKind& kind, const GemmTotals& g, double layerParametersPerGpu)
{
    const auto& plan = in.plan;
    const auto& model = plan.model;
    const auto& l = plan.layout;
    const auto& e = in.e;
    const auto& fw = in.fw;
    const auto& groups = in.groups;
    const double t = in.t, b = in.b, sq = in.sq, sk = in.sk, tokens = in.tokens, h = in.h, d = in.d, heads = in.heads,
                 kvHeads = in.kvHeads, bytes = in.bytes, hbm = in.hbm, peak = in.peak;
    const bool flash = in.flash, sp = in.sp, lowPrecision = in.lowPrecision, fused = in.fused;
    const double ffn = denseFfnWidth(model, kind) / t;
    const bool swiglu = kind.ffnKind == FfnKind::SwiGlu;

    LayerTimes L;
    // Projections of one layer on one TP rank (Shoeybi et al. 2019, Sec. 3: QKV and FFN-in
    // column-parallel, attention output and FFN-out row-parallel). Forward C = A(m x k) B(k x n);
    // backward input gradient (m x k, reducing over n) and weight gradient (k x n, reducing over
    // m): the same FLOPs, other shapes (Narayanan et al. 2021, Sec. 5.1 FLOP count).
    const double* gemmForward = g.forwardEach;
    const double* gemmInputGrad = g.inputGradEach;
    L.forwardMatmul = g.forward;
    L.backwardMatmul = g.inputGrad + g.weightGrad;
    L.weightGradMatmul = g.weightGrad;
    const double qkv = in.qkvWidth, ffnIn = (swiglu ? 2.0 : 1.0) * ffn;

    // Attention core: 4 b s_q s_k (a/t) d FLOPs forward (QK^T and AV; the estimate's 12 L h s
    // per token, PaLM App. B). FlashAttention: causal half at the kernel's efficiency; without
    // it, two batched GEMMs per head (b a/t of them) shaped by the sequence and head dimension.
    const double attentionFlops = 2.0 * b * sq * sk * heads * (in.coreQk + in.coreV);
    if (flash) {
        const double efficiency = fw.flashAttention == FlashAttentionVersion::V3 ? e.flash3AttentionEfficiency : e.flashAttentionEfficiency;
        L.forwardAttention = kCausalFraction * attentionFlops / (peak * efficiency);
        L.backwardAttention = kFlashBackwardFactor * L.forwardAttention;
    } else {
        const double batch = b * heads;
        const double scoreShare = in.coreQk / (in.coreQk + in.coreV);
        const double scores = scoreShare * attentionFlops / (peak * matmulEfficiency(sq, sk, in.coreQk, e, batch));
        const double values = (1.0 - scoreShare) * attentionFlops / (peak * matmulEfficiency(sq, in.coreV, sk, e, batch));
        L.forwardAttention = scores + values;
        L.backwardAttention = 2.0 * L.forwardAttention;
    }

    // Memory-bound work (see the table above). Sequence parallelism runs norms and residual
    // adds on 1/t of the sequence (Korthikanti et al. 2022, Sec. 4.2.2).
    const double mask = fw.dropout ? 1.0 : 0.0;
    const bool rms = in.rms, rope = in.rope, gqa = in.gqa;
    const double hiddenElements = tokens * h / (sp ? t : 1.0);
    const double normBytes = (fused || !rms ? 2.0 : 18.0) * bytes;
    const double residualBytes =
        fused ? 3.0 * bytes + mask : (3.0 + (model.bias ? 2.0 : 0.0) + (fw.dropout ? 2.0 : 0.0)) * bytes + mask;
    const double hiddenBytes = hiddenElements * 2.0 * (normBytes + residualBytes);
    const double activationPasses = swiglu ? (fused ? 3.0 : 5.0) : (fused ? 2.0 : 4.0);
    const double activationBytes = tokens * ffn * activationPasses * bytes;
    const double ropeBytes = rope ? (fused ? 2.0 : 10.0) * bytes * tokens * (heads + kvHeads) * d : 0.0;
    // Eager-only copies: K and V repeated to every query head, the attention output made contiguous.
    const double copyBytes = fused ? 0.0 : bytes * tokens * d * ((gqa ? 2.0 * (kvHeads + heads) : 0.0) + 2.0 * heads);
    const double scoreBytes = attentionScoreBytes(in);
    L.forwardMemory = (hiddenBytes + activationBytes + ropeBytes + copyBytes + scoreBytes) / hbm;
    L.backwardMemory = kBackwardMemoryFactor * L.forwardMemory;
    if (lowPrecision) {
        // Each low-precision GEMM operand is cast from 16 bits with its transpose for the weight
        // gradient (FP8 GEMMs on Hopper take only the TN layout: cuBLASLt documentation;
        // TransformerEngine's fused cast_transpose), in.castBytes per element
        // (castTransposeBytesPerElement). Forward: the inputs of QKV, the output projection, FFN
        // in and FFN out; backward: the gradients of their outputs. The weights are cast once a
        // step (first micro-batch), the same bytes a parameter.
        const double forwardInputs = tokens * (h + in.outWidth + (ffn > 0 ? h + ffn : 0.0));
        const double backwardGradients = tokens * (qkv + h + (ffn > 0 ? ffnIn + h : 0.0));
        const double weightCast = in.castBytes * layerParametersPerGpu / std::max<double>(1.0, in.microbatches);
        L.forwardMemory += (in.castBytes * forwardInputs + weightCast) / hbm;
        L.backwardMemory += in.castBytes * backwardGradients / hbm;
    }

    // TP: the collectives of CostInputs, four per pass with SP, two all-reduces without.
    if (l.tp > 1) {
        // Forward: AG + QKV, proj + RS, AG + FC1, FC2 + RS; backward: the same pairs on the
        // input-gradient GEMMs (without SP only the two all-reduces, one per block, each way).
        if (sp) {
            for (int i = 0; i < 4; ++i) {
                L.forwardTp += in.tpExposed(gemmForward[i]);
                L.backwardTp += in.tpExposed(gemmInputGrad[i]);
            }
        } else {
            L.forwardTp = 2.0 * in.tpCollective;
            L.backwardTp = 2.0 * in.tpCollective;
        }
    }

    // CP ring attention: each rank passes its K/V block around the ring, cp - 1 hops forward and
    // K, V and their gradients backward (Liu et al. 2023, Ring Attention, Sec. 3; Megatron-Core
    // context parallelism), each hop while the attention core computes on the block in hand, so
    // only what the attention core cannot cover is exposed.
    if (l.cp > 1) {
        const double kvBlock = 2.0 * b * sq * kvHeads * d * bytes;
        const double hop = collectiveSeconds(Collective::SendRecv, kvBlock, groups.cp, groups.fabric);
        L.forwardCp = std::max(0.0, (l.cp - 1) * hop - L.forwardAttention);
        L.backwardCp = std::max(0.0, 2.0 * (l.cp - 1) * hop - L.backwardAttention);
    }

    if (kind.moe && model.moe)
        addExpertCosts(in, kind, L);
    return L;
}

// The rest of layerTimesBeforeSharding()'s layer: the ZeRO stage's collectives, the fixed costs
// (their floor is the layer's busy time), recompute and gradient accumulation.
void finishLayerTimes(const CostInputs& in, const LayerKind& kind, double layerParametersPerGpu, LayerTimes& L)
{
    const auto& plan = in.plan;
    const auto& model = plan.model;
    const auto& l = plan.layout;
    const auto& e = in.e;
    const auto& fw = in.fw;
    const auto& groups = in.groups;
    const double hbm = in.hbm;
    const bool flash = in.flash, sp = in.sp, lowPrecision = in.lowPrecision, fused = in.fused;
    const bool swiglu = kind.ffnKind == FfnKind::SwiGlu;
    const bool rms = in.rms, rope = in.rope, gqa = in.gqa;

    // ZeRO over the DP x CP group (Rajbhandari et al. 2020, Sec. 5 and 7): stage 3 (FSDP) gathers
    // each layer's weights before its forward and again before its backward, and stages 2 and 3
    // reduce-scatter each micro-batch's gradients. Gathers are prefetched a layer ahead when the
    // framework does (overlap_param_gather; FSDP2's BACKWARD_PRE prefetch), so only what the
    // layer's own compute cannot cover is exposed.
    const double layerParameters = layerParametersPerGpu;
    if (l.zeroStage >= 2) {
        const auto state = stateBytesPerParameter(plan.training.precision);
        const double gather =
            l.zeroStage >= 3 ? collectiveSeconds(Collective::AllGather, layerParameters * state.weights, groups.dp, groups.fabric) : 0.0;
        const double reduce =
            collectiveSeconds(Collective::ReduceScatter, layerParameters * reducedGradientBytes(plan, fw), groups.dp, groups.fabric);
        const double forwardWork = L.forwardMatmul + L.forwardAttention + L.forwardMemory;
        const double backwardWork = L.backwardMatmul + L.backwardAttention + L.backwardMemory;
        // Overlapped, a collective still slows the compute under it by the SMs it occupies.
        const double share = collectiveSmShare(e);
        L.forwardZero = fw.overlapParamGather ? std::max(0.0, gather - forwardWork) + share * std::min(gather, forwardWork) : gather;
        // Backward: the overlapped collectives share the layer's backward as cover.
        const double hidden = (fw.overlapParamGather ? gather : 0.0) + (fw.overlapGradientReduce ? reduce : 0.0);
        L.backwardZero = std::max(0.0, hidden - backwardWork) + share * std::min(hidden, backwardWork) + (gather + reduce - hidden);
    }

    // Fixed costs per kernel. A layer launches its norms, GEMMs, attention, activation, residual
    // adds and RoPE (fused: about 11; unfused ops add bias adds, dropouts and the norm's parts),
    // plus one kernel per TP collective; the backward about twice the forward (input and weight
    // gradients). Every kernel pays the GPU's fixed start and tail cost, and without CUDA graphs
    // the CPU must launch each, a floor on the layer's time (Megatron-Core docs, cuda_graph.md).
    // Unfused, counted from the table above: two norms, seven projections (torchtitan keeps wq, wk,
    // wv, w1 and w3 apart), the attention kernel and its output copy, two residual adds, the
    // activation, RoPE's three ops on q and k, repeat_kv's two copies, bias adds and dropouts.
    const double unfusedKernels = 2.0 * (rms ? 8.0 : 1.0) + 7.0 + 2.0 + 2.0 + (swiglu ? 2.0 : 1.0) + (rope ? 6.0 : 0.0)
        + (gqa ? 2.0 : 0.0) + (model.bias ? 4.0 : 0.0) + (fw.dropout ? 2.0 : 0.0);
    const double computeKernels = (fused ? 11.0 + (rope ? 1.0 : 0.0) : unfusedKernels) + (flash ? 0.0 : 2.0);
    const double tpKernels = l.tp > 1 ? (sp ? 4.0 : 2.0) : 0.0;
    const double castKernels = lowPrecision ? 4.0 : 0.0;  // one cast_transpose per FP8 GEMM operand above
    // The MoE kernels count in the launch floor too (they were once added before this line and
    // then overwritten by it, which left them out).
    const double moeKernels = expertKernels(in, kind);
    const double forwardKernels = computeKernels + tpKernels + castKernels + moeKernels;
    const double backwardKernels = 2.0 * (computeKernels + moeKernels) + tpKernels + castKernels;
    const auto fixedCost = [&](double kernels, double busy) {
        const double gpu = kernels * e.kernelOverheadSeconds;
        const double floor = fw.cudaGraphs ? 0.0 : kernels * e.kernelLaunchSeconds;
        return std::max(gpu, floor - busy);
    };
    L.forwardFixed = fixedCost(forwardKernels, L.forward());
    L.backwardFixed = fixedCost(backwardKernels, L.backward());

    // Recompute (Korthikanti et al. 2022, Sec. 5): selective repeats the attention core's
    // forward (and its softmax traffic); full repeats the whole layer forward, collectives too.
    switch (l.recompute) {
    case Recompute::None: break;
    case Recompute::Selective:
        if (selectiveKeepsEveryOtherMatmul(plan)) {
            // torchtitan's op-level checkpointing: the matmuls it did not keep, and the
            // element-wise work between them; the attention kernel's output is kept.
            const EveryOtherMatmul ops = everyOtherMatmul(plan, kind);
            L.recompute = L.forwardMatmul * ops.recomputedFlopsPerToken / ops.matmulFlopsPerToken + L.forwardMemory;
        } else {
            L.recompute = L.forwardAttention + attentionScoreBytes(in) / hbm;
        }
        break;
    case Recompute::Full: L.recompute = L.forward() - L.forwardZero; break;  // ZeRO-3 gathers once for recompute and backward
    }

    // Gradient accumulation outside the GEMMs (gradientAccumulationBytes), per micro-batch, on the
    // layer's weights as this GPU holds them (1/t of the layer).
    const GradientAccumulationBytes layerAccumulation = gradientAccumulationBytes(plan, fw, in.microbatches, true);
    L.forwardMemory += layerParameters * layerAccumulation.forward / hbm;
    L.backwardMemory += layerParameters * layerAccumulation.backward / hbm;
}

}  // namespace

void microbatchCostsInto(const Plan& plan, const Estimate& est, const StepTimeOptions& options, const CommunicationGroups& groups,
                         MicrobatchCosts& out, bool sameBeforeSharding)
{
    const CostInputs in(plan, est, options, groups);
    const auto& e = in.e;
    const auto& fw = in.fw;
    const double tokens = in.tokens, h = in.h, bytes = in.bytes, hbm = in.hbm, vocab = in.vocab;

    // Every layer kind (LayerKind.h) on its own: its feed-forward shapes its GEMMs, activation
    // traffic and the weights ZeRO and gradient accumulation move.
    const int kinds = plan.model.kindCount();
    sameBeforeSharding = sameBeforeSharding && out.beforeSharding.size() == size_t(kinds);
    out.layers.resize(size_t(kinds));
    out.beforeSharding.resize(size_t(kinds));
    double flopsWeighted = 0.0, secondsWeighted = 0.0;
    for (int k = 0; k < kinds; ++k) {
        const LayerKind kind = plan.model.kind(k);
        // The layer's weights on this GPU: routed experts split over EP x ETP, the rest over TP.
        const LayerParameters& p = est.parameters.kinds[size_t(k)];
        const double perGpu = (p.total - p.routedExperts) / in.t + p.routedExperts / (double(plan.layout.ep) * plan.layout.etp);
        if (!sameBeforeSharding) {
            const GemmTotals& g = gemmTotals(in, denseFfnWidth(plan.model, kind) / in.t, kind.ffnKind == FfnKind::SwiGlu);
            out.beforeSharding[size_t(k)] = layerTimesBeforeSharding(in, kind, g, perGpu);
            if (k == 0) {
                // The LM head's GEMMs take the first kind's shapes.
                out.headForward = g.headForward;
                out.headInputGrad = g.headInputGrad;
                out.headWeightGrad = g.headWeightGrad;
                out.mtpProjectionForward = g.mtpProjectionForward;
                out.mtpProjectionInputGrad = g.mtpProjectionInputGrad;
                out.mtpProjectionWeightGrad = g.mtpProjectionWeightGrad;
                // Of the peak the GEMMs run at; with several kinds, FLOP-weighted over their layers.
                out.matmulEfficiency = g.forward > 0 ? g.flops / (g.forward * in.layerPeak) : 0.0;
            }
            flopsWeighted += kind.layers * g.flops;
            secondsWeighted += kind.layers * g.forward;
        }
        out.layers[size_t(k)] = out.beforeSharding[size_t(k)];
        finishLayerTimes(in, kind, perGpu, out.layers[size_t(k)]);
    }
    if (kinds > 1 && !sameBeforeSharding)
        out.matmulEfficiency = secondsWeighted > 0 ? flopsWeighted / (secondsWeighted * in.layerPeak) : 0.0;
    const double headForward = out.headForward, headInputGrad = out.headInputGrad, headWeightGrad = out.headWeightGrad;

    // First stage: the embedding lookup reads and writes b s h values; with TP the
    // vocabulary-parallel embedding reduces its output once (Megatron VocabParallelEmbedding).
    // The same collective as a layer's: an all-reduce, or with SP a reduce-scatter, which costs
    // what the all-gather does (same bus bytes, same steps).
    const double tpAllReduce = in.tpCollective;
    // Its backward writes a dense V/t x h gradient (embedding_dense_backward), which is then
    // accumulated like any other parameter's gradient that no GEMM writes.
    const double embeddingParameters = vocab * h;
    const GradientAccumulationBytes embeddingAccumulation = gradientAccumulationBytes(plan, fw, in.microbatches, false);
    const GradientAccumulationBytes layerAccumulation = gradientAccumulationBytes(plan, fw, in.microbatches, true);
    const double gradientBytes = stateBytesPerParameter(plan.training.precision).gradients;
    out.embedding = EndCosts{};
    out.embedding.forwardMemory = (2.0 * tokens * h * bytes + embeddingParameters * embeddingAccumulation.forward) / hbm;
    out.embedding.backwardMemory = (kBackwardMemoryFactor * 2.0 * tokens * h * bytes
                                    + embeddingParameters * (gradientBytes + embeddingAccumulation.backward)) / hbm;
    out.embedding.forwardTp = tpAllReduce;
    out.embedding.forwardFixed = e.kernelOverheadSeconds * 2.0;
    out.embedding.backwardFixed = e.kernelOverheadSeconds * 2.0;

    // Last stage: the output projection (V/t columns per rank), the loss on the logits, and with
    // sequence parallelism an all-gather of the final hidden states before it (reduce-scatter
    // after it in the backward); without SP only the backward reduces the input gradient.
    out.lmHead = EndCosts{};
    out.lmHead.forwardMatmul = headForward;
    out.lmHead.weightGradMatmul = headWeightGrad;
    out.lmHead.backwardMatmul = headInputGrad + headWeightGrad;
    out.lmHead.forwardMemory = (tokens * vocab * kLossForwardBytesPerLogit + embeddingParameters * layerAccumulation.forward) / hbm;
    out.lmHead.backwardMemory = (tokens * vocab * kLossBackwardBytesPerLogit + embeddingParameters * layerAccumulation.backward) / hbm;
    out.lmHead.forwardTp = in.sp ? in.tpCollective : 0.0;
    out.lmHead.backwardTp = tpAllReduce;
    out.lmHead.forwardFixed = e.kernelOverheadSeconds * 6.0;   // norm, GEMM, loss kernels (max, exp-sum, softmax, loss)
    out.lmHead.backwardFixed = e.kernelOverheadSeconds * 6.0;
    // Multi-token prediction (DeepSeek-V3 technical report, Sec. 2.2; Megatron-Core
    // multi_token_prediction.py), on the last stage: each of the D depths RMS-norms the hidden
    // state and the next token's embedding, projects their concatenation from 2h to h (eh_proj,
    // column-parallel: h/t outputs per rank, gathered back over TP), runs a block like a layer of
    // the model's last kind (priced as one: StepTimeModel.cpp) and computes its own logits and
    // loss through the shared output head. The head's gradient accumulates into the same buffer,
    // so only the loss traffic repeats.
    out.mtp = EndCosts{};
    out.mtpKind = kinds - 1;  // the last kind, as the estimate's activations and the FLOP count take it
    const double depths = plan.model.mtpLayers;
    if (depths > 0) {
        // Two norms and the concatenation read and write b s h values each (2 x 3 x 2 b s h x bytes).
        const double frameBytes = 12.0 * tokens * h * bytes;
        out.mtp.forwardMatmul = depths * (headForward + out.mtpProjectionForward);
        out.mtp.weightGradMatmul = depths * (headWeightGrad + out.mtpProjectionWeightGrad);
        out.mtp.backwardMatmul = depths * (headInputGrad + out.mtpProjectionInputGrad) + out.mtp.weightGradMatmul;
        out.mtp.forwardMemory = depths * (tokens * vocab * kLossForwardBytesPerLogit + frameBytes) / hbm;
        out.mtp.backwardMemory = depths * (tokens * vocab * kLossBackwardBytesPerLogit + kBackwardMemoryFactor * frameBytes) / hbm;
        out.mtp.forwardTp = depths * (in.tpCollective + out.lmHead.forwardTp);
        out.mtp.backwardTp = depths * (in.tpCollective + out.lmHead.backwardTp);
        out.mtp.forwardFixed = depths * e.kernelOverheadSeconds * 10.0;  // the head's 6, two norms, concatenation, projection
        out.mtp.backwardFixed = depths * e.kernelOverheadSeconds * 10.0;
    }
}

MicrobatchCosts microbatchCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options, const CommunicationGroups& groups)
{
    MicrobatchCosts out;
    microbatchCostsInto(plan, est, options, groups, out);
    return out;
}

}  // namespace trainplan
