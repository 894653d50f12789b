#include "core/plan/PlanFields.h"
#include "core/plan/PlanFieldsListing.h"

#include <array>
#include <cmath>
#include <deque>
#include <sstream>
#include <stdexcept>

#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/LayerKind.h"
#include "core/plan/LayoutUnknownFields.h"

namespace trainplan {

namespace {

template <typename E, size_t N>
constexpr std::array<std::string_view, N> spellings(const NameTable<E, N>& table)
{
    std::array<std::string_view, N> out{};
    for (size_t i = 0; i < N; ++i)
        out[i] = table[i].second;
    return out;
}

constexpr auto kFfnKinds = spellings(kFfnKindNames);
constexpr auto kNorms = spellings(kNormNames);
constexpr auto kPositions = spellings(kPositionNames);
constexpr auto kPrecisions = spellings(kPrecisionNames);
constexpr auto kSchedules = spellings(kScheduleNames);
constexpr auto kRecomputes = spellings(kRecomputeNames);
constexpr auto kRankOrders = spellings(kRankOrderNames);
constexpr auto kInNetworkReductions = spellings(kInNetworkReductionNames);
constexpr auto kMatmulPrecisions = spellings(kMatmulPrecisionNames);
constexpr auto kFlashAttentionVersions = spellings(kFlashAttentionVersionNames);
constexpr auto kOptimizerImplementations = spellings(kOptimizerImplementationNames);
constexpr auto kGradientAccumulations = spellings(kGradientAccumulationNames);
constexpr auto kSelectiveRecomputes = spellings(kSelectiveRecomputeNames);
constexpr auto kZero3Gatherings = spellings(kZero3GatheringNames);
constexpr auto kMoeDispatchers = spellings(kMoeDispatcherNames);

using T = PlanFieldType;
using units::GB;      // bytes (docs: GB = 1e9 bytes, never GiB)
using units::MiB;     // bytes (MiB = 2^20 bytes, as NCCL and cuBLAS size their buffers)
using units::TFLOPS;  // FLOP/s
// An accelerator figure the plan leaves to the preset (EfficiencySpec, Plan.h).
constexpr const char* kFromPreset = "absent: the accelerator preset's (for a part that is no preset, the nearest preset's, assumed)";
constexpr double HOUR = units::secondsPerHour;

// Upper bounds are generous physical limits (the largest machines and models by orders of
// magnitude), lower bounds the smallest value that still describes real hardware. Together
// they keep every derived figure (FLOPs, bytes, seconds) far inside double range.
constexpr long long kMaxGpus = 10'000'000;

PlanField field(std::string_view path, T type, std::string_view label)
{
    PlanField f{};
    f.path = path;
    f.type = type;
    f.toSi = 1.0;
    f.min = 0;
    f.max = 0;
    f.label = label;
    return f;
}

// One field a line, as the docs' table reads.
// clang-format off
struct Builder {
    PlanField f;
    Builder(std::string_view path, T type, std::string_view label) : f(field(path, type, label)) {}
    Builder& unit(std::string_view u, double toSi = 1.0) { f.unit = u; f.toSi = toSi; return *this; }
    Builder& range(double lo, double hi, bool loExclusive = false) { f.min = lo; f.max = hi; f.minExclusive = loExclusive; return *this; }
    Builder& maxChars(int n) { f.max = n; return *this; }
    Builder& choices(std::span<const std::string_view> c) { f.choices = c; return *this; }
    Builder& required() { f.required = true; return *this; }
    Builder& byDefault(std::string_view json) { f.defaultValue = json; return *this; }
    Builder& note(std::string_view n) { f.defaultNote = n; return *this; }
    Builder& instead(std::string_view other) { f.alternative = other; return *this; }
    Builder& title(std::string_view t, std::string_view symbol = {}) { f.title = t; f.symbol = symbol; return *this; }
    // A layout field a plan may leave unknown: its note comes from the table of layout unknowns.
    Builder& unknowable()
    {
        static std::deque<std::string> notes;  // stable storage for the notes' views
        notes.push_back(layoutUnknownNote(f.path));
        f.defaultNote = notes.back();
        return *this;
    }
    operator PlanField() const { return f; }
};

std::vector<PlanField> makeFields()
{
    return {
        Builder("format", T::Text, "file format, always \"trainplan.plan\"").required().title("Format"),
        Builder("version", T::Integer, "format version").range(1, 1'000'000).required().title("Version"),
        Builder("name", T::Text, "plan name; unless name_user_set, the generated \"70B on 2,048 H100s, 1.4T tokens\"")
            .note("generated").maxChars(kMaxNameChars).title("Name"),
        Builder("name_user_set", T::Boolean, "true: name was typed and stays as typed; false: it follows the model, GPUs and tokens")
            .note("absent: true when name differs from the generated name").title("Name typed"),
        Builder("notes", T::Text, "free-text notes").byDefault("\"\"").maxChars(kMaxNotesChars).title("Notes"),

        Builder("model.name", T::Text, "model name").byDefault("\"\"").maxChars(kMaxNameChars).title("Model name"),
        Builder("model.layers", T::Integer, "transformer layers L").range(1, 10'000).required().title("Layers", "L"),
        Builder("model.hidden_size", T::Integer, "hidden size h").range(1, 1'000'000).required().title("Hidden size", "h"),
        Builder("model.ffn_hidden_size", T::Integer, "feed-forward width f (of the dense layers)").range(1, 4'000'000)
            .note("required, except for a model whose every layer is MoE (model.moe without dense_layers)").title("FFN size", "f"),
        Builder("model.ffn_kind", T::Choice, "feed-forward kind (gated: three h x f matrices; else two)")
            .choices(kFfnKinds).byDefault("\"swiglu\"").title("FFN kind"),
        Builder("model.attention_heads", T::Integer, "attention heads a").range(1, 65'536).required().title("Heads", "a"),
        Builder("model.kv_heads", T::Integer, "key-value heads (GQA/MQA), dividing the attention heads")
            .range(1, 65'536).note("= model.attention_heads").title("KV heads"),
        Builder("model.head_dim", T::Integer, "head dimension d")
            .range(1, 65'536).note("= hidden_size / attention_heads").title("Head size", "d"),
        Builder("model.vocab_size", T::Integer, "vocabulary size V").range(1, 100'000'000).required().title("Vocabulary", "V"),
        Builder("model.tied_embeddings", T::Boolean, "output layer shares the embedding").byDefault("false").title("Tied embeddings"),
        Builder("model.sequence_length", T::Integer, "sequence length s")
            .unit("tokens").range(1, 10'000'000).required().title("Sequence length", "s"),
        Builder("model.norm", T::Choice, "normalisation (LayerNorm adds a bias per norm)")
            .choices(kNorms).byDefault("\"rmsnorm\"").title("Norm"),
        Builder("model.bias", T::Boolean, "linear layers have biases").byDefault("false").title("Biases"),
        Builder("model.position_embedding", T::Choice, "position embedding (learned adds s x h parameters)")
            .choices(kPositions).byDefault("\"rope\"").title("Position embedding"),
        Builder("model.layer_kinds", T::ObjectList, "runs of layers of other shapes, first layer first; their layers add up to "
                "model.layers")
            
            .range(1, kMaxLayerKinds).note("absent: every layer as model.*").title("Layer kinds"),
        Builder("model.layer_kinds.name", T::Text, "the kind's label").maxChars(kMaxNameChars).note("absent: generated").title("Kind name"),
        Builder("model.layer_kinds.layers", T::Integer, "consecutive layers of this kind").range(1, 10'000).required().title("Kind layers"),
        Builder("model.layer_kinds.ffn_hidden_size", T::Integer, "the kind's feed-forward width f")
            .range(1, 4'000'000).note("= model.ffn_hidden_size").title("Kind FFN size", "f"),
        Builder("model.layer_kinds.ffn_kind", T::Choice, "the kind's feed-forward kind")
            .choices(kFfnKinds).note("= model.ffn_kind").title("Kind FFN kind"),
        Builder("model.layer_kinds.moe", T::Boolean, "the kind's feed-forward is model.moe's experts (needs model.moe)")
            .byDefault("false").title("Kind is MoE"),
        Builder("model.moe.experts", T::Integer, "routed experts E (model.moe absent: a dense model)")
            .range(1, 1'000'000).required().title("Experts", "E"),
        Builder("model.moe.top_k", T::Integer, "routed experts each token is sent to (at most E)")
            .range(1, 1'000'000).required().title("Top-k", "k"),
        Builder("model.moe.expert_ffn_hidden_size", T::Integer, "one routed expert's feed-forward width")
            .range(1, 4'000'000).required().title("Expert FFN size", "f_e"),
        Builder("model.moe.shared_experts", T::Integer, "shared experts every token passes through")
            .range(0, 1'000'000).byDefault("0").title("Shared experts"),
        Builder("model.moe.shared_expert_ffn_hidden_size", T::Integer, "one shared expert's feed-forward width")
            .range(1, 4'000'000).note("= model.moe.expert_ffn_hidden_size").title("Shared FFN size"),
        Builder("model.moe.dense_layers", T::Integer, "the first k layers have a dense FFN of model.ffn_hidden_size")
            .range(0, 10'000).byDefault("0").title("Dense layers"),
        Builder("model.moe.layer_step", T::Integer, "after the dense layers every n-th layer is MoE, the others dense (Llama 4 "
                "Maverick: 2; Hugging Face interleave_moe_layer_step)")
            .range(1, 10'000).byDefault("1").title("MoE layer step"),
        Builder("model.moe.router_bias", T::Boolean, "the router has a bias per expert (DeepSeek-V3's load-balancing bias)")
            .byDefault("false").title("Router bias"),
        Builder("model.moe.max_nodes_per_token", T::Integer, "node-limited routing: a token's experts lie on at most this many "
                "nodes (DeepSeek-V3: 4)")
            .range(1, 1'000'000).note("absent: no limit").title("Nodes per token"),
        Builder("model.moe.capacity_factor", T::Number, "expert capacity as a multiple of the balanced load; tokens over it are "
                "dropped")
            .range(1, 1000).note("absent or null: dropless").title("Capacity factor"),
        Builder("model.moe.load_imbalance", T::Number, "tokens on the busiest expert-parallel rank over the mean (1 = balanced)")
            .range(1, 1000).note("absent: unknown (the prediction's range covers it)").title("Load imbalance"),
        Builder("model.mla.q_lora_rank", T::Integer, "multi-head latent attention: query latent rank (0: queries projected directly)")
            .range(0, 1'000'000).required().title("Q latent rank", "d_c'"),
        Builder("model.mla.kv_lora_rank", T::Integer, "key-value latent rank (the KV cache per token)")
            .range(1, 1'000'000).required().title("KV latent rank", "d_c"),
        Builder("model.mla.qk_nope_head_dim", T::Integer, "per head, query and key dimensions without rotary position")
            .range(1, 65'536).required().title("QK head (no RoPE)"),
        Builder("model.mla.qk_rope_head_dim", T::Integer, "per head, query and key dimensions with rotary position")
            .range(0, 65'536).required().title("QK head (RoPE)"),
        Builder("model.mla.v_head_dim", T::Integer, "per head, value dimension")
            .range(1, 65'536).required().title("V head size"),
        Builder("model.mtp_layers", T::Integer, "multi-token-prediction depths (DeepSeek-V3: 1)")
            .range(0, 64).byDefault("0").title("MTP depths"),

        Builder("cluster.accelerator", T::Text, "accelerator label").byDefault("\"\"").maxChars(kMaxNameChars).title("Accelerator"),
        Builder("cluster.gpus", T::Integer, "GPUs in the job").range(1, kMaxGpus).required().title("GPUs"),
        Builder("cluster.gpus_per_node", T::Integer, "GPUs per node (sharing the fast link)")
            .range(1, 4096).required().title("GPUs per node"),
        Builder("cluster.nvlink_domain", T::Integer, "GPUs sharing the scale-up link (NVLink, Infinity Fabric); 72 for an NVL72 rack")
            .range(1, kMaxGpus).note("absent: cluster.gpus_per_node").title("NVLink domain"),
        Builder("cluster.memory_gb", T::Number, "memory per GPU").unit("GB", GB).range(0.1, 100'000).required().title("Memory per GPU"),
        Builder("cluster.peak_bf16_tflops", T::Number, "dense BF16 peak per GPU")
            .unit("TFLOP/s", TFLOPS).range(0.001, 1'000'000).required().title("Peak BF16"),
        Builder("cluster.peak_fp8_tflops", T::Number, "dense FP8 peak per GPU")
            .unit("TFLOP/s", TFLOPS).range(0.001, 1'000'000).note("absent: the accelerator preset's (none for a part without FP8)")
            .title("Peak FP8"),
        Builder("cluster.peak_fp4_tflops", T::Number, "dense FP4 (NVFP4) peak per GPU")
            .unit("TFLOP/s", TFLOPS).range(0.001, 1'000'000).note("absent: the accelerator preset's (none for a part without FP4)")
            .title("Peak FP4"),
        Builder("cluster.intra_node_bandwidth_gb_per_s", T::Number, "scale-up bandwidth per GPU, per direction, inside the NVLink domain")
            .unit("GB/s", GB).range(0.01, 100'000).required().title("Scale-up link"),
        Builder("cluster.inter_node_bandwidth_gb_per_s", T::Number, "inter-node bandwidth per GPU")
            .unit("GB/s", GB).range(0.01, 100'000).required().title("Network"),
        Builder("cluster.in_network_reduction", T::Choice, "all-reduces reduced in the switches: NVLink SHARP (NVLS) inside a "
                "node, and InfiniBand SHARP across nodes")
            .choices(kInNetworkReductions).byDefault("\"none\"").title("Switch reduction"),
        Builder("cluster.efficiency.matmul_fraction", T::Number, "a large GEMM's achieved fraction of the dense peak (full tiles and waves)")
            .range(0.01, 1).note(kFromPreset).title("GEMM efficiency"),
        Builder("cluster.efficiency.sm_count", T::Integer, "SMs (compute units) a GEMM's tiles fill in waves").range(1, 100'000)
            .note(kFromPreset).title("SMs"),
        Builder("cluster.efficiency.gemm_tile_m", T::Integer, "rows of the output tile one SM computes").range(1, 4096).note(kFromPreset)
            .title("GEMM tile rows"),
        Builder("cluster.efficiency.gemm_tile_n", T::Integer, "columns of the output tile one SM computes").range(1, 4096)
            .note(kFromPreset).title("GEMM tile columns"),
        Builder("cluster.efficiency.gemm_k_half", T::Number, "inner dimension K at which a GEMM's main loop reaches half its rate")
            .range(0, 1'000'000).note(kFromPreset).title("GEMM K at half rate"),
        Builder("cluster.efficiency.flash_attention_fraction", T::Number, "FlashAttention-2's achieved fraction of peak (causal, forward and backward)")
            .range(0.01, 1).note(kFromPreset).title("FlashAttention-2"),
        Builder("cluster.efficiency.flash_attention_3_fraction", T::Number, "FlashAttention-3's (or cuDNN fused attention's) achieved fraction of peak")
            .range(0.01, 1).note(kFromPreset).title("FlashAttention-3"),
        Builder("cluster.efficiency.hbm_bandwidth_gb_per_s", T::Number, "HBM bandwidth per GPU (datasheet)").unit("GB/s", GB)
            .range(1, 1'000'000).note(kFromPreset).title("HBM bandwidth"),
        Builder("cluster.efficiency.hbm_fraction", T::Number, "achieved fraction of the HBM bandwidth in memory-bound kernels")
            .range(0.01, 1).note(kFromPreset).title("HBM efficiency"),
        Builder("cluster.efficiency.scale_up_collective_fraction", T::Number, "NCCL bus bandwidth over the scale-up link's bandwidth")
            .range(0.01, 1).note(kFromPreset).title("Scale-up collectives"),
        Builder("cluster.efficiency.network_collective_fraction", T::Number, "NCCL bus bandwidth over the network bandwidth per GPU")
            .range(0.01, 1).note(kFromPreset).title("Network collectives"),
        Builder("cluster.efficiency.kernel_overhead_us", T::Number, "GPU-side fixed cost of one kernel").unit("us", units::micro)
            .range(0, 10'000).note(kFromPreset).title("Kernel overhead"),
        Builder("cluster.efficiency.kernel_launch_us", T::Number, "CPU cost to launch one kernel (a floor without CUDA graphs)")
            .unit("us", units::micro).range(0, 10'000).note(kFromPreset).title("Kernel launch"),
        Builder("cluster.efficiency.scale_up_step_latency_us", T::Number, "one ring step's latency on the scale-up link (NCCL Simple)")
            .unit("us", units::micro).range(0, 10'000).note(kFromPreset).title("Scale-up ring step"),
        Builder("cluster.efficiency.network_step_latency_us", T::Number, "one ring step's latency on the network (NCCL Simple)")
            .unit("us", units::micro).range(0, 10'000).note(kFromPreset).title("Network ring step"),
        Builder("cluster.calibration.source", T::Text, "calibrated from: the measured run's log or figures")
            .maxChars(kMaxNotesChars).required().title("Calibrated from"),
        Builder("cluster.calibration.accelerator", T::Text, "the accelerator the run was measured on")
            .maxChars(kMaxNameChars).required().title("Measured on"),
        Builder("cluster.calibration.framework", T::Text, "the training stack and its release the run used")
            .maxChars(kMaxNameChars).byDefault("\"\"").title("Measured stack"),
        Builder("cluster.calibration.date", T::Text, "when the run was measured or fitted (YYYY-MM-DD)")
            .maxChars(kMaxNameChars).byDefault("\"\"").title("Measured on date"),
        Builder("cluster.calibration.measured_layout", T::Text, "the measured run's layout")
            .maxChars(kMaxNotesChars).byDefault("\"\"").title("Measured layout"),
        Builder("cluster.calibration.measured_step_seconds", T::Number, "the measured run's step time")
            .unit("s").range(1e-6, 1e7).required().title("Measured step"),
        Builder("cluster.calibration.fitted", T::Text, "the fields the calibration set, comma-separated")
            .maxChars(kMaxNotesChars).byDefault("\"\"").title("Fitted fields"),
        Builder("cluster.mtbf_hours_per_node", T::Number, "mean time between failures of one node")
            .unit("hours", HOUR).range(0.1, units::giga).note("absent: failures not modelled (a red flag)")
            .instead("cluster.mtbf_hours_per_gpu").title("Node MTBF"),
        Builder("cluster.mtbf_hours_per_gpu", T::Number, "mean time between failures of one GPU")
            .unit("hours", HOUR).range(0.1, units::giga).note("absent: failures not modelled (a red flag)")
            .instead("cluster.mtbf_hours_per_node").title("GPU MTBF"),

        Builder("training.tokens", T::Number, "training tokens D").unit("tokens").range(1, units::exa).required().title("Tokens", "D"),
        Builder("training.global_batch_sequences", T::Integer, "global batch B in sequences")
            .unit("sequences").range(1, 1'000'000'000).instead("training.global_batch_tokens").note("one of the two is required")
            .title("Global batch", "B"),
        Builder("training.global_batch_tokens", T::Integer, "global batch in tokens (a multiple of s)")
            .unit("tokens").range(1, units::tera).instead("training.global_batch_sequences").note("one of the two is required")
            .title("Global batch in tokens"),
        Builder("training.micro_batch_size", T::Integer, "micro-batch size b")
            .unit("sequences").range(1, 1'000'000).required().title("Micro-batch", "b"),
        Builder("training.mfu", T::Number, "assumed model FLOPs utilisation").range(0.001, 1).required().title("Assumed MFU"),
        Builder("training.matmul_precision", T::Choice, "precision of the layers' matrix multiplies (FP8: per-tensor, block or MX scales; NVFP4: 4-bit with a scale per 16)")
            .choices(kMatmulPrecisions).byDefault("\"bf16\"").title("Matmuls"),
        Builder("training.precision", T::Choice, "precision and optimizer state (16, 12 or 16 bytes per parameter)")
            .choices(kPrecisions).byDefault("\"bf16-fp32-master-adam\"").title("Precision"),
        Builder("training.buffer_gb", T::Number, "fixed allowance per GPU for buffers and workspace")
            .unit("GB", GB).range(0, 100'000).byDefault("0").title("Buffers"),
        Builder("training.fragmentation_fraction", T::Number, "allocator allowance, a fraction of everything else")
            .range(0, 0.9).byDefault("0.1").title("Fragmentation"),
        Builder("training.memory_margin_fraction", T::Number, "headroom a stage keeps free before it is flagged, a fraction of capacity")
            .range(0, 0.5).byDefault("0.05").title("Memory margin"),
        Builder("training.reserve.cuda_context_gb", T::Number, "CUDA context per GPU (runtime reserve; about 0.5 GB with "
                "CUDA's lazy module loading, about 1.6 GB for stacks before it, CUDA < 11.7)")
            .unit("GB", GB).range(0, 1000).byDefault("0.5").title("CUDA context"),
        Builder("training.reserve.workspace_mib", T::Number, "GEMM library workspaces per GPU (runtime reserve)")
            .unit("MiB", MiB).range(0, units::mega).byDefault("128").title("GEMM workspaces"),
        Builder("training.reserve.nccl_channels", T::Integer, "NCCL channels per communicator (runtime reserve)")
            .range(0, 1024).byDefault("32").title("NCCL channels"),
        Builder("training.reserve.nccl_buffer_mib_per_connection", T::Number, "NCCL buffer per channel and connection (runtime reserve)")
            .unit("MiB", MiB).range(0, 1e4).byDefault("9.1875").title("NCCL buffer per connection"),

        Builder("layout.tp", T::Integer, "tensor parallelism").range(1, kMaxGpus).required().title(parallelDimLabel(ParallelDim::Tp)),
        Builder("layout.pp", T::Integer, "pipeline parallelism").range(1, kMaxGpus).required().title(parallelDimLabel(ParallelDim::Pp)),
        Builder("layout.dp", T::IntegerOrAuto, "data parallelism (\"auto\" = gpus / (tp x pp x cp))")
            .range(1, kMaxGpus).required().title(parallelDimLabel(ParallelDim::Dp)),
        Builder("layout.dp_auto", T::Boolean, "true: layout.dp follows gpus / (tp x pp x cp), as \"auto\"")
            .byDefault("false").title("DP follows the GPUs"),
        Builder("layout.cp", T::Integer, "context parallelism").range(1, kMaxGpus).byDefault("1").title(parallelDimLabel(ParallelDim::Cp)),
        Builder("layout.ep", T::Integer, "expert parallelism: ranks the routed experts are spread over (carved out of TP x CP x DP)")
            .range(1, kMaxGpus).byDefault("1").title("EP"),
        Builder("layout.etp", T::Integer, "expert tensor parallelism: ranks each routed expert's matrices are split over")
            .range(1, kMaxGpus).byDefault("1").title("ETP"),
        Builder("layout.virtual_stages", T::Integer, "model chunks per pipeline stage (interleaved)")
            .range(1, 1024).byDefault("1").title("Virtual stages", "v").unknowable(),
        Builder("layout.schedule", T::Choice, "pipeline schedule").choices(kSchedules).byDefault("\"1f1b\"").title("Schedule").unknowable(),
        Builder("layout.zero_stage", T::Integer, "ZeRO stage: shard optimizer (1), + gradients (2), + weights (3)")
            .range(0, 3).byDefault("0").title("ZeRO stage"),
        Builder("layout.sequence_parallel", T::Boolean, "Megatron sequence parallelism")
            .byDefault("false").title("Sequence parallelism").unknowable(),
        Builder("layout.recompute", T::Choice, "activation recomputation")
            .choices(kRecomputes).byDefault("\"none\"").title("Recompute").unknowable(),
        Builder("layout.recompute_layers", T::Integer, "with full recompute, layers of each pipeline stage (each chunk when "
                "interleaved) recomputed (Megatron's block method); 0: all")
            .range(0, 10'000).byDefault("0").title("Recomputed layers"),
        Builder("layout.stage_layers", T::IntegerList, "layers per pipeline stage (pp entries summing to L)")
            .range(1, 10'000).note("even split").title("Layers per stage"),
        Builder("layout.rank_order", T::Choice, "order ranks fill the dimensions, fastest first")
            .choices(kRankOrders).byDefault("\"tp-cp-dp-pp\"").title("Rank order"),

        Builder("reliability.checkpoint_write_seconds", T::Number, "time the loop stalls per checkpoint")
            .unit("s").range(0.001, 1e7).byDefault("60").instead("reliability.checkpoint_write_gb_per_s_per_gpu").title("Checkpoint stall"),
        Builder("reliability.checkpoint_write_gb_per_s_per_gpu", T::Number, "checkpoint write bandwidth per GPU")
            .unit("GB/s", GB).range(0.001, 100'000).note("absent: checkpoint_write_seconds").instead("reliability.checkpoint_write_seconds")
            .title("Checkpoint write"),
        Builder("reliability.restart_seconds", T::Number, "time to restart after a failure")
            .unit("s").range(0, 1e7).byDefault("600").title("Restart"),
        Builder("reliability.other_overhead_fraction", T::Number, "evaluations and stalls, a fraction of compute time")
            .range(0, 10).byDefault("0").title("Other overhead"),

        Builder("cost.price_per_gpu_hour_usd", T::Number, "price of one GPU-hour, US dollars")
            .unit("USD").range(0.000001, 1e6).note("absent: no cost figures").title("Price per GPU-hour"),
        Builder("cost.gpu_power_watts", T::Number, "power one GPU draws, watts")
            .unit("W").range(1, 1e6).note("absent: the accelerator preset's board power").title("GPU power"),
        Builder("cost.server_overhead_fraction", T::Number, "the rest of the server's power per watt of GPU (CPUs, NICs, switches, fans)")
            .range(0, 10).byDefault("0.82").title("Server overhead"),
        Builder("cost.pue", T::Number, "power usage effectiveness: facility power over IT power")
            .range(1, 10).byDefault("1.2").title("PUE"),
        Builder("cost.grid_kg_co2e_per_kwh", T::Number, "grid carbon intensity, kg CO2e per kWh")
            .unit("kg/kWh").range(0, 10).note("absent: no carbon figure").title("Grid carbon intensity"),

        Builder("framework.profile", T::Text, "training stack: megatron-core-2024, megatron-lm-2021, megatron-deepspeed-2022 or "
                "pytorch-fsdp2")
            .note("absent: unknown (the prediction's range covers it)").maxChars(kMaxNameChars).title("Training stack"),
        Builder("framework.tp_comm_overlap", T::Boolean, "TP collectives overlapped with GEMMs (TransformerEngine userbuffers)")
            .note("absent: from the profile, else unknown").title("TP overlap"),
        Builder("framework.overlap_grad_reduce", T::Boolean, "gradient reduction overlapped with the backward pass")
            .note("absent: from the profile, else unknown").title("Gradient reduce overlap"),
        Builder("framework.overlap_param_gather", T::Boolean, "ZeRO parameter all-gathers prefetched under compute")
            .note("absent: from the profile, else unknown").title("Parameter gather overlap"),
        Builder("framework.fused_kernels", T::Boolean, "fused element-wise kernels (norm, activation, bias-dropout-add)")
            .note("absent: from the profile, else unknown").title("Fused kernels"),
        Builder("framework.cuda_graphs", T::Boolean, "layers run as CUDA graphs (no per-kernel CPU launch)")
            .note("absent: from the profile, else unknown").title("CUDA graphs"),
        Builder("framework.dropout", T::Boolean, "dropout after attention and in the residual path")
            .note("absent: from the profile, else unknown").title("Dropout"),
        Builder("framework.fp32_gradients", T::Boolean, "gradients accumulated and kept in FP32")
            .note("absent: from the profile, else unknown").title("FP32 gradients"),
        Builder("framework.flash_attention", T::Choice, "attention kernel: FlashAttention-2 or -3, or \"none\" (unfused, storing "
                "the s x s scores)")
            .choices(kFlashAttentionVersions).note("absent: from the profile, else unknown").title("FlashAttention"),
        Builder("framework.optimizer", T::Choice, "optimizer implementation")
            .choices(kOptimizerImplementations).note("absent: from the profile, else unknown").title("Optimizer"),
        Builder("framework.gradient_accumulation", T::Choice, "how micro-batch gradients are accumulated (fused into the "
                "GEMMs, PyTorch autograd, or copied into FP32 each micro-batch)")
            .choices(kGradientAccumulations).note("absent: from the profile, else unknown").title("Gradient accumulation"),
        Builder("framework.selective_recompute", T::Choice, "what layout.recompute \"selective\" keeps: all but the attention "
                "core (Megatron), or every other matmul's output (torchtitan)")
            .choices(kSelectiveRecomputes).note("absent: from the profile, else core-attention").title("Selective recompute"),
        Builder("framework.zero3_gathering", T::Choice, "how ZeRO-3 gathers sharded parameters: a whole block and the next "
                "one prefetched (FSDP), or submodule by submodule under a live-parameter cap (DeepSpeed)")
            .choices(kZero3Gatherings).note("absent: from the profile, else block").title("ZeRO-3 gathering"),
        Builder("framework.moe_dispatcher", T::Choice, "how tokens reach their experts: NCCL all-to-all, all-gather, or DeepEP's "
                "NVLink-and-RDMA kernels")
            .choices(kMoeDispatchers).note("absent: from the profile, else unknown").title("MoE dispatcher"),
        Builder("framework.moe_grouped_gemm", T::Boolean, "a rank's experts run as one grouped GEMM (else one GEMM per expert)")
            .note("absent: from the profile, else unknown").title("Grouped GEMM"),
        Builder("framework.moe_comm_overlap", T::Boolean, "expert all-to-all hidden under another micro-batch's compute (DualPipe, "
                "1F1B all-to-all overlap)")
            .note("absent: from the profile, else unknown").title("All-to-all overlap"),
    };
}
// clang-format on

std::string number(double x)
{
    std::ostringstream s;
    s.precision(12);
    s << x;
    return s.str();
}

}  // namespace

std::string_view PlanField::section() const
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

std::string_view PlanField::key() const
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

namespace {

// The table as built, and as seen: the same rows unless a test hides one (PlanFieldHiddenForTest).
struct FieldTable {
    std::vector<PlanField> rows = makeFields();
    std::vector<PlanField> visible = rows;
    std::string hidden;  // the path of the hidden row, "" when none is
};

FieldTable& fieldTable()
{
    static FieldTable table;
    return table;
}

}  // namespace

const std::vector<PlanField>& planFields()
{
    return fieldTable().visible;
}

const PlanField* findPlanField(std::string_view path)
{
    const FieldTable& table = fieldTable();
    if (!table.hidden.empty() && path == table.hidden)
        return nullptr;
    for (const auto& f : table.rows)
        if (f.path == path)
            return &f;
    return nullptr;
}

const PlanField& planField(std::string_view path)
{
    if (const PlanField* f = findPlanField(path))
        return *f;
    throw std::logic_error("no plan field " + std::string(path) + " in the field table");
}

PlanFieldHiddenForTest::PlanFieldHiddenForTest(std::string_view path)
{
    FieldTable& table = fieldTable();
    planField(path);  // a path the table does not have is the test's mistake
    if (!table.hidden.empty())
        throw std::logic_error("a plan field is already hidden: " + table.hidden);
    table.hidden = std::string(path);
    table.visible.clear();
    for (const auto& f : table.rows)
        if (f.path != path)
            table.visible.push_back(f);
}

PlanFieldHiddenForTest::~PlanFieldHiddenForTest()
{
    FieldTable& table = fieldTable();
    table.hidden.clear();
    table.visible = table.rows;
}

std::string textLengthProblem(const PlanField& f, const std::string& text)
{
    if (f.type != T::Text || f.max <= 0 || text.size() <= size_t(f.max))
        return {};
    size_t chars = 0;
    for (unsigned char c : text)
        chars += (c & 0xC0) != 0x80;  // every byte but a UTF-8 continuation byte starts a character
    if (chars <= size_t(f.max))
        return {};
    return "must be at most " + number(f.max) + " characters, got " + std::to_string(chars);
}

std::string describeRange(const PlanField& f)
{
    switch (f.type) {
    case T::Text: return f.max > 0 ? "text of at most " + number(f.max) + " characters" : "text";
    case T::Boolean: return "true or false";
    case T::Choice: {
        std::string s = "one of ";
        for (size_t i = 0; i < f.choices.size(); ++i)
            s += (i ? ", \"" : "\"") + std::string(f.choices[i]) + "\"";
        return s;
    }
    case T::Integer:
    case T::IntegerList:
    case T::IntegerOrAuto: {
        std::string s = "whole number " + number(f.min) + " to " + number(f.max);
        if (f.type == T::IntegerList)
            s = "array of " + s;
        if (f.type == T::IntegerOrAuto)
            s += " or \"auto\"";
        return s;
    }
    case T::ObjectList: return "array of 1 to " + number(f.max) + " objects";
    case T::Number:
        return std::string(f.minExclusive ? "> " : "") + number(f.min) + (f.minExclusive ? " and up to " : " to ") + number(f.max);
    }
    return {};
}

std::string planFieldsMarkdownTable()
{
    std::string out = "| path | unit | allowed | default | meaning |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& f : planFields()) {
        const std::string def = defaultInWords(f);
        std::string allowed = describeRange(f);
        std::string label(f.label);
        for (std::string* s : {&allowed, &label}) {
            for (size_t at = s->find('|'); at != std::string::npos; at = s->find('|', at + 2))
                s->replace(at, 1, "\\|");
        }
        out += "| `" + std::string(f.path) + "` | " + (f.unit.empty() ? "" : std::string(f.unit)) + " | " + allowed + " | " + def + " | "
            + label + " |\n";
    }
    return out;
}

}  // namespace trainplan
