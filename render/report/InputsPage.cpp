#include "render/report/InputsPage.h"

#include <QObject>

#include "core/base/Format.h"
#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/ShownUnits.h"
#include "core/steptime/EfficiencyFields.h"
#include "core/text/LayerKindsText.h"
#include "render/style/Markup.h"

using namespace trainplan;

namespace inputspage {

namespace {

QString q(const std::string& s)
{
    return markup::escaped(s);
}

QString q(std::string_view s)
{
    return q(std::string(s));
}

// "Layers L": the field's title and, where the derivation uses one, its symbol.
QString label(const PlanField& f)
{
    return f.symbol.empty() ? q(f.title) : q(f.title) + " " + q(f.symbol);
}

// Rows of one section; each names the fields it shows, looked up in the table.
class Rows {
public:
    explicit Rows(const Plan& plan)
        : plan_(plan)
    {
    }

    // A row for one field or several ("Heads a / KV heads / Head size d").
    void add(std::initializer_list<std::string_view> paths, const QString& value)
    {
        Row row;
        for (std::string_view path : paths) {
            const PlanField& f = planField(path);
            row.label += (row.label.isEmpty() ? "" : " / ") + label(f);
            row.fields << QString::fromUtf8(path.data(), qsizetype(path.size()));
        }
        // A layout field the plan leaves out shows the value the analysis assumed, marked so.
        bool assumed = false;
        for (std::string_view path : paths)
            if (const LayoutUnknownField* u = findLayoutUnknownField(path))
                assumed = assumed || (plan_.layout.unknownFields & u->bit);
        row.value = assumed ? value + " (assumed)" : value;
        rows_.push_back(std::move(row));
    }
    // A figure of the estimate rather than an input ("Parameters N").
    void derived(const QString& text, const QString& value) { rows_.push_back({text, value, {}}); }
    std::vector<Row> take() { return std::move(rows_); }

private:
    const Plan& plan_;
    std::vector<Row> rows_;
};

// A number in the unit the window shows the field in: "989 TFLOP/s", "40 %".
QString shown(std::string_view path, double siValue)
{
    const PlanField& f = planField(path);
    return q(formatNumber(shownValue(f, siValue), 4) + shownUnit(f).suffix);
}

QString number(std::string_view path, double siValue)
{
    return q(formatNumber(shownValue(planField(path), siValue), 4));
}

QString integer(double v)
{
    return q(formatInteger(v));
}

template <typename E, size_t N> QString named(const NameTable<E, N>& table, E value)
{
    return q(nameOf(table, value));
}

// "FlashAttention-2", "none (unfused)": framework.flash_attention in words.
QString kernelName(FlashAttentionVersion v)
{
    return v == FlashAttentionVersion::None ? QStringLiteral("none (unfused)") : "FlashAttention-" + named(kFlashAttentionVersionNames, v);
}

QString yesNo(bool v)
{
    return v ? QStringLiteral("yes") : QStringLiteral("no");
}

QString tableHtml(const Section& section)
{
    QString out = "<h3>" + section.title + "</h3><table>";
    for (const Row& r : section.rows)
        out += QString("<tr><td style='color:@muted; padding-right:14px'>%1</td><td><b>%2</b></td></tr>").arg(r.label, r.value);
    return out + "</table>";
}

}  // namespace

std::vector<Section> sections(const Plan& p, const Estimate& e)
{
    const auto& m = p.model;
    const auto& c = p.cluster;
    const auto& t = p.training;
    const auto& l = p.layout;
    const auto& r = p.reliability;
    std::vector<Section> out;

    Rows model(p);
    model.add({"model.name"}, q(m.name));
    model.add({"model.layers"}, integer(m.layers));
    model.add({"model.hidden_size"}, integer(m.hiddenSize));
    model.add(
        {"model.ffn_hidden_size"}, QString("%1 (%2)").arg(integer(m.ffnHiddenSize), m.ffnKind == FfnKind::SwiGlu ? "SwiGLU" : "GeLU"));
    if (m.mla) {
        // Latent attention: the heads and the latents' ranks; KV heads and head size do not apply.
        model.add({"model.attention_heads"}, integer(m.attentionHeads));
        model.add({"model.mla.q_lora_rank", "model.mla.kv_lora_rank"},
            QString("%1 / %2").arg(integer(m.mla->qLoraRank), integer(m.mla->kvLoraRank)));
        model.add({"model.mla.qk_nope_head_dim", "model.mla.qk_rope_head_dim", "model.mla.v_head_dim"},
            QString("%1 / %2 / %3").arg(integer(m.mla->qkNopeHeadDim), integer(m.mla->qkRopeHeadDim), integer(m.mla->vHeadDim)));
    } else {
        model.add({"model.attention_heads", "model.kv_heads", "model.head_dim"},
            QString("%1 / %2 / %3").arg(integer(m.attentionHeads), integer(m.kvHeads), integer(m.headDim)));
    }
    if (m.moe) {
        const MoeSpec& x = *m.moe;
        model.add({"model.moe.experts", "model.moe.top_k"}, QString("%1, top-%2").arg(integer(x.experts), integer(x.topK)));
        model.add({"model.moe.expert_ffn_hidden_size"}, integer(x.expertFfnHiddenSize));
        if (x.sharedExperts > 0)
            model.add({"model.moe.shared_experts", "model.moe.shared_expert_ffn_hidden_size"},
                QString("%1 of %2").arg(integer(x.sharedExperts), integer(x.sharedWidth())));
        if (x.denseLayers > 0)
            model.add({"model.moe.dense_layers"}, integer(x.denseLayers));
        if (x.step() > 1)
            model.add({"model.moe.layer_step"}, integer(x.step()));
        model.add({"model.moe.load_imbalance"},
            x.loadImbalance ? number("model.moe.load_imbalance", *x.loadImbalance)
                            : QString("unknown (%1 assumed, the range covers %2 to %3)")
                                  .arg(kExpectedLoadImbalance).arg(kBestLoadImbalance).arg(kWorstLoadImbalance));
        if (x.capacityFactor)
            model.add({"model.moe.capacity_factor"}, number("model.moe.capacity_factor", *x.capacityFactor));
    }
    if (m.mtpLayers > 0)
        model.add({"model.mtp_layers"}, integer(m.mtpLayers));
    model.add({"model.vocab_size"}, QString("%1 (%2)").arg(integer(m.vocabSize), m.tiedEmbeddings ? "tied" : "untied"));
    model.add({"model.sequence_length"}, shown("model.sequence_length", m.sequenceLength));
    if (!m.layerKinds.empty())  // the FFN above is then only what a kind leaves out
        model.add({"model.layer_kinds"}, q(layerKindsText(m)));
    model.derived("Parameters N", q(formatCount(e.parameters.total)));
    if (m.moe)
        model.derived("Active per token", q(formatCount(e.parameters.active)));
    out.push_back({QObject::tr("Model"), model.take()});

    Rows cluster(p);
    cluster.add({"cluster.accelerator"}, q(c.accelerator));
    cluster.add(
        {"cluster.gpus"}, QString("%1 (%2 per node, %3)").arg(integer(c.gpus), integer(c.gpusPerNode), q(countOf(e.nodes, "node"))));
    cluster.add({"cluster.memory_gb"}, shown("cluster.memory_gb", c.memoryBytesPerGpu));
    cluster.add({"cluster.peak_bf16_tflops"}, shown("cluster.peak_bf16_tflops", c.peakFlopsPerGpu));
    cluster.add({"cluster.intra_node_bandwidth_gb_per_s", "cluster.inter_node_bandwidth_gb_per_s"},
        QString("%1 / %2 per GPU")
            .arg(number("cluster.intra_node_bandwidth_gb_per_s", c.intraNodeBytesPerSecond),
                shown("cluster.inter_node_bandwidth_gb_per_s", c.interNodeBytesPerSecond)));
    if (c.nvlinkDomain > 0)
        cluster.add({"cluster.nvlink_domain"}, QString("%1 GPUs (%2 nodes of %3)")
                                                 .arg(integer(c.nvlinkDomain))
                                                 .arg(double(c.nvlinkDomain) / c.gpusPerNode)
                                                 .arg(integer(c.gpusPerNode)));
    // The step-time figures the plan gives itself; the rest are the preset's (the derivation lists all).
    for (const EfficiencyField& f : kEfficiencyFields)
        if (const auto v = f.given(c.efficiency))
            cluster.add({f.path}, shown(f.path, *v));
    const bool perGpu = c.mtbfSeconds && c.mtbfBasis == MtbfBasis::PerGpu;
    const std::string_view mtbf = perGpu ? "cluster.mtbf_hours_per_gpu" : "cluster.mtbf_hours_per_node";
    cluster.add({mtbf}, c.mtbfSeconds ? shown(mtbf, *c.mtbfSeconds) : QString("<span style='color:@error'>not modelled</span>"));
    out.push_back({QObject::tr("Cluster"), cluster.take()});

    Rows training(p);
    training.add({"training.tokens"}, shown("training.tokens", t.tokens));
    training.add({"training.global_batch_sequences"},
        QString("%1 = %2 tokens")
            .arg(shown("training.global_batch_sequences", double(t.globalBatchSequences)), integer(e.time.tokensPerStep)));
    training.add({"training.micro_batch_size"}, shown("training.micro_batch_size", t.microBatchSize));
    training.add({"training.mfu"}, shown("training.mfu", t.mfu));
    training.add({"training.precision"}, named(kPrecisionNames, t.precision));
    training.add({"training.matmul_precision"}, named(kMatmulPrecisionNames, t.matmulPrecision));
    training.add({"framework.profile"}, p.framework.profile.empty() ? QString("not given") : q(p.framework.profile));
    // The kernel as the plan gives it, else as its profile does, else unknown.
    const auto flash = frameworkSwitch(p.framework, &FrameworkSpec::flashAttention);
    training.add({"framework.flash_attention"},
        flash ? kernelName(*flash) + (p.framework.flashAttention ? QString() : QString(" (the profile's)"))
              : QString("not given (%1 assumed)").arg(kernelName(kUnknownFlashAttentionExpected)));
    training.add({"training.buffer_gb", "training.fragmentation_fraction"},
        QString("%1 / %2").arg(
            shown("training.buffer_gb", t.bufferBytes), shown("training.fragmentation_fraction", t.fragmentationFraction)));
    out.push_back({QObject::tr("Training"), training.take()});

    Rows layout(p);
    {
        std::vector<std::string> paths;
        QStringList sizes;
        for (ParallelDim d : parallelDimsForDisplay()) {
            paths.push_back("layout." + std::string(parallelDimKey(d)));
            sizes << integer(l.size(d));
        }
        Row row;
        for (const std::string& path : paths) {
            row.label += (row.label.isEmpty() ? "" : " × ") + label(planField(path));
            row.fields << QString::fromStdString(path);
        }
        row.value = sizes.join(" × ") + " = " + integer(e.gpusUsed);
        std::vector<Row> rows{std::move(row)};
        Rows rest(p);
        if (p.model.moe)
            rest.add({"layout.ep", "layout.etp"}, QString("%1 × %2, folded into TP × CP × DP").arg(integer(l.ep), integer(l.etp)));
        const PlanField& chunks = planField("layout.virtual_stages");
        rest.add({"layout.schedule"},
            named(kScheduleNames, l.schedule)
                + (l.schedule == Schedule::Interleaved ? QString(", %1 = %2").arg(q(chunks.symbol), integer(l.virtualStages)) : QString()));
        rest.add({"layout.zero_stage"}, integer(l.zeroStage));
        rest.add({"layout.sequence_parallel"}, yesNo(l.sequenceParallel));
        rest.add({"layout.recompute"},
            named(kRecomputeNames, l.recompute)
                + (l.recompute == Recompute::Full && l.recomputeLayers > 0 ? QString(", %1 layers a stage").arg(l.recomputeLayers)
                                                                           : QString()));
        rest.add({"layout.rank_order"}, named(kRankOrderNames, l.rankOrder));
        for (Row& more : rest.take())
            rows.push_back(std::move(more));
        out.push_back({QObject::tr("Layout"), std::move(rows)});
    }

    Rows reliability(p);
    reliability.add(
        {"reliability.checkpoint_write_seconds"}, shown("reliability.checkpoint_write_seconds", e.reliability.checkpointWriteSeconds));
    reliability.add({"reliability.restart_seconds"}, shown("reliability.restart_seconds", r.restartSeconds));
    reliability.add({"reliability.other_overhead_fraction"}, shown("reliability.other_overhead_fraction", r.otherOverheadFraction));
    out.push_back({QObject::tr("Reliability"), reliability.take()});

    // Cost and energy: what the plan gives; the preset's power where it gives none.
    const CostSpec& money = p.cost;
    Rows cost(p);
    cost.add({"cost.price_per_gpu_hour_usd"}, money.pricePerGpuHourUsd ? shown("cost.price_per_gpu_hour_usd", *money.pricePerGpuHourUsd)
                                                                   : QObject::tr("not given (no cost figures)"));
    cost.add({"cost.gpu_power_watts"}, money.gpuPowerWatts ? shown("cost.gpu_power_watts", *money.gpuPowerWatts) : QObject::tr("the preset's"));
    cost.add({"cost.server_overhead_fraction"}, shown("cost.server_overhead_fraction", money.serverOverheadFraction));
    cost.add({"cost.pue"}, shown("cost.pue", money.pue));
    cost.add({"cost.grid_kg_co2e_per_kwh"},
        money.gridKgCo2ePerKwh ? shown("cost.grid_kg_co2e_per_kwh", *money.gridKgCo2ePerKwh) : QObject::tr("not given (no carbon figure)"));
    out.push_back({QObject::tr("Cost and energy"), cost.take()});
    return out;
}

QString html(const std::vector<Section>& sections)
{
    // Two columns: the inputs are short rows, and one column left half of each page empty. The
    // first two sections (model, cluster) on the left, the rest on the right.
    QString left, right;
    for (size_t i = 0; i < sections.size(); ++i)
        (i < 2 ? left : right) += tableHtml(sections[i]);
    return "<table width='100%' cellspacing='0' cellpadding='0'><tr><td width='50%' style='padding-right:16px'>" + left
        + "</td><td width='50%'>" + right + "</td></tr></table>";
}

}  // namespace inputspage
