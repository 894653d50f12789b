#include "core/text/TextReport.h"

#include "core/estimate/ComputeOptimal.h"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

#include "core/analysis/MemoryFitSentence.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/presets/Presets.h"
#include "core/text/Derivation.h"

namespace trainplan {

namespace {

// The text padded with spaces to width characters on screen: UTF-8 code points, not bytes, so a
// "−" (3 bytes) or "µ" (2) does not push the next column left (std::setw counts bytes).
std::string padded(const std::string& text, size_t width)
{
    size_t shown = 0;
    for (unsigned char c : text)
        shown += (c & 0xC0) != 0x80;
    return shown >= width ? text : text + std::string(width - shown, ' ');
}

// The report's rows, written as aligned plain text or as Markdown tables: one list of figures,
// two notations.
class Table {
public:
    Table(std::ostringstream& out, ReportNotation notation) : out_(out), notation_(notation) {}
    void heading(const std::string& title)
    {
        if (notation_ == ReportNotation::Markdown)
            out_ << "\n## " << escaped(title) << "\n\n| Figure | Value | Detail |\n|---|---|---|\n";
        else
            out_ << "\n" << title << "\n";
    }
    void row(const std::string& label, const std::string& value, const std::string& detail = {})
    {
        if (notation_ == ReportNotation::Markdown) {
            out_ << "| " << escaped(trimmed(label)) << " | " << escaped(value) << " | " << escaped(detail) << " |\n";
            return;
        }
        out_ << "  " << padded(label, 40) << padded(value, 22);
        if (!detail.empty())
            out_ << detail;
        out_ << "\n";
    }
    // A line of prose under the current heading (after a table in Markdown, a blank line first).
    void line(const std::string& text)
    {
        if (notation_ == ReportNotation::Markdown)
            out_ << "\n" << escaped(text) << "\n";
        else
            out_ << "  " << text << "\n";
    }

private:
    static std::string trimmed(const std::string& text)
    {
        const size_t first = text.find_first_not_of(' ');
        return first == std::string::npos ? std::string() : text.substr(first);
    }
    // A cell's text with the characters Markdown would read as markup made literal.
    static std::string escaped(const std::string& text)
    {
        std::string out;
        out.reserve(text.size());
        for (char c : text) {
            if (c == '|' || c == '*' || c == '_' || c == '`' || c == '[' || c == ']' || c == '<' || c == '>' || c == '\\')
                out += '\\';
            out += c == '\n' ? ' ' : c;
        }
        return out;
    }

    std::ostringstream& out_;
    ReportNotation notation_;
};

std::string bytes(double b) { return formatBytes(b); }

}  // namespace

std::string warningCounts(const std::vector<Warning>& warnings)
{
    int count[3] = {0, 0, 0};
    for (const auto& w : warnings)
        ++count[int(w.severity)];
    return countOf(count[int(Severity::Error)], "error") + ", " + countOf(count[int(Severity::Warning)], "warning") + ", " +
           countOf(count[int(Severity::Info)], "note");
}

namespace {

// "recompute selective (the lightest that fits), the pipeline schedule 1F1B": what the analysis
// assumed for the layout fields the plan left out (LayoutUnknownFields.h).
std::string assumedLayout(const LayoutSpec& l)
{
    std::string out;
    for (const LayoutUnknownField& u : layoutUnknownFields()) {
        if (!(l.unknownFields & u.bit))
            continue;
        out += (out.empty() ? "" : ", ") + std::string(u.phrase) + " " + u.valueName(l)
            + (u.expectation == LayoutExpectation::LightestThatFits ? " (the lightest that fits)" : "");
    }
    return out;
}

}  // namespace

std::string estimateToText(const Analysis& analysis, bool withDerivation)
{
    const std::string& name = analysis.plan.name;
    std::string out = estimateReport(analysis, ReportNotation::Text, name.empty() ? std::string("TrainPlan estimate") : name);
    if (withDerivation)
        out += "\nDerivation\n==========\n\n" + derivationToText(derive(analysis));
    return out;
}

std::string reportTitle(const Plan& plan, const std::string& sourceName)
{
    if (!plan.name.empty())
        return plan.name;
    return sourceName.empty() ? std::string("Untitled plan") : sourceName;
}

std::string estimateToMarkdown(const Analysis& analysis, const std::string& title)
{
    // The derivation's sections one level down, under its own heading.
    std::string derivation = derivationToMarkdown(derive(analysis));
    for (size_t at = 0; (at = derivation.find("## ", at)) != std::string::npos; at += 4)
        if (at == 0 || derivation[at - 1] == '\n')
            derivation.insert(at, "#");
    return estimateReport(analysis, ReportNotation::Markdown, title) + "\n## Derivation\n\n" + derivation;
}

std::string estimateReport(const Analysis& analysis, ReportNotation notation, const std::string& title)
{
    const Plan& plan = analysis.plan;
    const Estimate& e = analysis.estimate;
    const PredictedStep& pr = analysis.predicted;
    std::ostringstream out;
    Table t(out, notation);
    const auto& l = plan.layout;
    const bool markdown = notation == ReportNotation::Markdown;
    out << (markdown ? "# " : "") << title << "\n" << (markdown ? "\n" : "  ")
        << plan.model.name << " | " << formatInteger(plan.cluster.gpus) << " x " << plan.cluster.accelerator << " | "
        << layoutSizesText(l, " ") << " | ZeRO-" << l.zeroStage << " | " << nameOf(kScheduleNames, l.schedule)
        << (l.schedule == Schedule::Interleaved ? " v=" + std::to_string(l.virtualStages) : "") << "\n";
    if (l.unknownFields)
        out << (markdown ? "\n" : "  ") << "not in the plan, assumed: " << assumedLayout(l) << "\n";

    t.heading("Parameters");
    const bool beyondDense = plan.model.beyondDense();
    t.row("total", formatCount(e.parameters.total),
        plan.model.mtpLayers > 0 ? formatSci(e.parameters.total) + ", MTP's " + formatCount(e.parameters.mtp) + " included"
                                 : formatSci(e.parameters.total));
    if (plan.model.moe)
        t.row("active (per token)", formatCount(e.parameters.active), "top-" + std::to_string(plan.model.moe->topK) + " of "
            + std::to_string(plan.model.moe->experts) + " routed experts, the shared ones, attention, ends");
    // One row per layer kind; a model of one kind reads "per layer".
    for (size_t k = 0; k < e.parameters.kinds.size(); ++k)
        t.row(e.parameters.kinds.size() == 1
                ? std::string("per layer")
                : "per layer, " + plan.model.kindLabel(int(k)) + " (" + std::to_string(plan.model.kind(int(k)).layers) + ")",
            formatCount(e.parameters.kinds[k].total));
    t.row("embedding / LM head", formatCount(e.parameters.embedding) + " / " + formatCount(e.parameters.lmHead));
    t.row("per GPU (average)", formatSci(e.parametersPerGpuMean),
        plan.model.moe ? "routed experts / (EP x ETP), the rest / TP, over PP stages" : "N / (TP x PP)");

    t.heading("Compute");
    if (beyondDense) {
        // MoE, MLA and MTP: model FLOPs are Megatron-LM's count; 6 N_active D is the comparison.
        t.row("6 N_active D", formatSci(e.flops.model6nd) + " FLOPs", "a comparison; model FLOPs below are Megatron-LM's count");
        t.row("attention core (Megatron count)", formatSci(e.flops.attention) + " FLOPs", "causal half of Q K^T and the values");
        t.row("total model FLOPs", formatSci(e.flops.total) + " FLOPs", formatSci(e.flops.perToken) + " per token; MFU uses this count");
    } else {
        t.row("6ND", formatSci(e.flops.model6nd) + " FLOPs");
        t.row("attention (12 L h s D)", formatSci(e.flops.attention) + " FLOPs");
        t.row("embedding lookups (in 6ND)", "−" + formatSci(e.flops.embeddingLookup) + " FLOPs");
        t.row("total model FLOPs", formatSci(e.flops.total) + " FLOPs");
    }
    t.row("hardware FLOPs (recompute)", formatSci(e.flops.hardware) + " FLOPs");
    t.row("tokens per step", formatInteger(e.time.tokensPerStep));
    t.row("steps", formatInteger(double(e.time.steps)));
    const std::string assumed = std::string(" (") + timeBasisLabel(TimeBasis::AssumedMfu) + " " + formatPercent(plan.training.mfu, 0) + ")";
    const std::string predicted = std::string(" (") + timeBasisLabel(TimeBasis::Predicted) + ")";

    // The predicted step is the headline, as in the window and the PDF; the assumed MFU follows
    // as the comparison it is.
    t.heading("Predicted step (step-time model of this layout; the headline)");
    const std::string peakNote = formatPeakNote(plan, pr);
    t.row("step time" + predicted, formatSeconds(pr.stepSeconds),
        "MFU " + formatPercent(pr.mfu) + ", HFU " + formatPercent(pr.hfu) + (peakNote.empty() ? std::string() : " (" + peakNote + ")"));
    t.row("compute time" + predicted, formatNumber(pr.days) + " days", formatInteger(pr.gpuHours) + " GPU-hours");
    t.row("pipeline bubble" + predicted, formatPercent(pr.bubbleFraction), pr.simulated ? "simulated schedule" : "closed form");
    t.row("exposed DP" + predicted, formatSeconds(pr.components.dpCommunication), "gradient tail and parameter all-gather");
    t.row("tokens/s per GPU" + predicted, formatNumber(pr.tokensPerSecondPerGpu));
    const PredictedRange& range = pr.range;
    const std::string rangeSources =
        range.unknownInputs() > 0 ? "unknown " + unknownInputsPhrase(range.unknownSwitches, range.unknownLayoutFields, range.unknownLoadImbalance, range.unknownEfficiencies) : "nothing unknown";
    t.row("range" + predicted, "MFU " + formatPercent(range.low.mfu) + " to " + formatPercent(range.high.mfu),
        "step " + formatSeconds(range.high.stepSeconds) + " to " + formatSeconds(range.low.stepSeconds) + ": " + rangeSources
            + ", model error +" + formatPercent(range.modelErrorSlower, 0) + " / −" + formatPercent(range.modelErrorFaster, 0) + " ("
            + formatPercent(range.coverage, 0) + " band of its out-of-sample error)");
    if (const auto& c = plan.cluster.calibration)
        t.row("calibrated from", c->source, (c->date.empty() ? "" : c->date + ", ") + (c->framework.empty() ? "" : c->framework + ", ")
            + "measured step " + formatSeconds(c->measuredStepSeconds) + " on " + c->measuredLayout + "; fitted " + c->fitted
            + (plan.cluster.calibrationApplies() ? "" : " (measured on " + c->accelerator + ": not this part)"));

    t.heading("At the assumed MFU (a comparison)");
    t.row("compute time" + assumed, formatSci(e.time.totalSeconds) + " s", formatNumber(e.time.days) + " days");
    t.row("GPU-hours" + assumed, formatInteger(e.time.gpuHours));
    t.row("step time" + assumed, formatSeconds(e.time.stepSeconds));
    t.row("tokens/s per GPU" + assumed, formatNumber(e.time.tokensPerSecondPerGpu));

    t.heading("Memory per GPU (fullest: stage " + std::to_string(e.fullestStage + 1) + ")");
    t.row("weights", bytes(e.perGpu.weights));
    t.row("gradients", bytes(e.perGpu.gradients));
    t.row("optimizer", bytes(e.perGpu.optimizer));
    t.row("activations", bytes(e.perGpu.activations));
    if (e.perGpu.shardingBuffers > 0)
        t.row("ZeRO-3 gathered buffers", bytes(e.perGpu.shardingBuffers), "unsharded parameters and gradients of the unit being computed");
    t.row("model state + activations", bytes(e.perGpu.modelAndActivations));
    const auto& m = e.perGpu;
    t.row("runtime reserve", bytes(m.buffers),
          "context " + bytes(m.cudaContext) + ", workspace " + bytes(m.workspace) + ", NCCL " + bytes(m.ncclBuffers) + " (" +
              countOf(e.ncclCommunicators, "communicator") + "), fragmentation " + bytes(m.fragmentation) +
              (m.extraAllowance > 0 ? ", extra " + bytes(m.extraAllowance) : std::string()));
    t.row("total", bytes(e.perGpu.total), "of " + bytes(e.capacityBytes) + (e.fits ? " (fits)" : " (DOES NOT FIT)"));
    const MemoryRange& mr = analysis.memoryRange;
    t.row("range", bytes(mr.lowBytes) + " to " + bytes(mr.highBytes),
        (mr.unknownSwitches + int(mr.unknownLayoutFields != 0) + int(mr.unknownLoadImbalance) > 0
                ? "unknown " + unknownInputsPhrase(mr.unknownSwitches, mr.unknownLayoutFields, mr.unknownLoadImbalance)
                : std::string("nothing unknown"))
            + ", no fragmentation at the low end, +" + formatPercent(mr.modelErrorAbove, 0) + " model error at the high end");
    t.row("verdict", memoryFitName(analysis.memoryRange.fit), memoryFitSentence(analysis.memoryRange));
    t.row("headroom", bytes(e.headroomBytes),
        formatPercent(e.headroomBytes / e.capacityBytes) + " of capacity; margin " + formatPercent(plan.training.memoryMarginFraction, 0)
            + (e.hasMargin ? " kept" : " NOT kept"));
    // DualPipe: GPU row i holds stages i and p - 1 - i (DualPipe.h).
    const bool dualPipe = plan.layout.schedule == Schedule::DualPipe && plan.layout.pp >= 2;
    for (const auto& st : e.stages) {
        const std::string mirror = dualPipe ? " + " + std::to_string(plan.layout.pp - st.index) : "";
        t.row("  stage " + std::to_string(st.index + 1) + mirror + " (" + countOf(st.layers, "layer") + (st.hasEmbedding ? ", emb" : "") +
                  (st.hasLmHead ? ", head" : "") + ")",
              bytes(st.memory.total),
              countOf(st.microbatchesInFlight, "micro-batch", "micro-batches") + " in flight, " + bytes(st.headroomBytes) + " free" +
                  (!st.fits ? " (DOES NOT FIT)" : st.withinMargin ? " (UNDER MARGIN)" : ""));
    }

    t.heading("Pipeline");
    t.row("micro-batches per replica", formatInteger(double(e.pipeline.microbatches)));
    t.row("bubble (closed form)", formatPercent(e.pipeline.bubbleFraction), "(p - 1) / (m + p - 1) for equal stages");

    const auto& c = e.communication;
    t.heading("Communication");
    t.row("TP message", bytes(c.tpMessageBytes),
        std::to_string(c.tpCollectivesPerLayer) + " per layer per micro-batch" + (c.tpCrossesNodes ? ", CROSSES NODES" : ", " + scaleUpLinkName(plan.cluster)));
    t.row("TP time per step", formatSeconds(c.tpSecondsPerStep));
    t.row("PP send per micro-batch", bytes(c.ppBytesPerMicrobatch));
    t.row("DP gradient bytes per GPU", bytes(c.dpBytesPerGpu), "average " + bytes(c.dpBytesPerGpuMean));
    t.row("DP ring time", formatSeconds(c.dpSeconds),
          (c.dpHidden ? "hides under backward (" + formatSeconds(c.dpBackwardWindowSeconds) + ")" : std::string("EXPOSED")) + assumed);
    if (l.zeroStage >= 3)
        t.row("ZeRO-3 all-gathers per step", bytes(c.zero3AllGatherBytesPerStep), formatSeconds(c.zero3SecondsPerStep));
    if (l.cp > 1)
        t.row("CP ring per layer", bytes(c.cpBytesPerLayer), formatSeconds(c.cpSecondsPerStep) + " per step");

    const auto& r = e.reliability;
    t.heading("Reliability");
    t.row("model state", bytes(r.modelStateBytes));
    t.row("checkpoint", bytes(r.checkpointBytes), bytes(r.checkpointBytesPerGpu) + " per GPU");
    if (r.failuresModelled) {
        t.row("cluster MTBF", formatSeconds(r.clusterMtbfSeconds));
        t.row("checkpoint interval", formatSeconds(r.checkpointIntervalSeconds));
        t.row("expected failures", formatNumber(r.expectedFailures));
        // Failures that outpace progress: the run never finishes; the finite figure the estimate
        // keeps (the failure-free work) is no wall time to print.
        const auto outpaced = [](const Estimate& est) {
            return std::any_of(est.warnings.begin(), est.warnings.end(),
                [](const Warning& w) { return w.code == WarningCode::FailuresOutpaceProgress; });
        };
        const auto paddedWallTime = [&](const Estimate& est) {
            return outpaced(est) ? std::string("never finishes (FAILURES_OUTPACE_PROGRESS)")
                                 : formatNumber(est.reliability.paddedDays) + " days";
        };
        t.row("padded wall time" + predicted, paddedWallTime(analysis.atPredictedMfu));
        t.row("padded wall time" + assumed, paddedWallTime(e));
    } else {
        t.row("failures", "not modelled");
    }

    // Money, energy and carbon (estimate/CostEnergyModel.h), on both bases.
    t.heading("Cost and energy");
    const auto money = [](double usd) { return "$" + formatCount(usd); };
    for (const TimeBasis basis : {TimeBasis::Predicted, TimeBasis::AssumedMfu}) {
        const CostEnergyEstimate& ce = analysis.costFor(basis);
        const std::string suffix = basis == TimeBasis::Predicted ? predicted : assumed;
        if (ce.usd)
            t.row("cost" + suffix, money(*ce.usd),
                (ce.usdWithFailures ? money(*ce.usdWithFailures) + " with failures, " : std::string()) + "at $"
                    + formatNumber(*ce.pricePerGpuHourUsd) + " per GPU-hour");
        if (ce.energyJoules)
            t.row("energy" + suffix, formatNumber(*ce.energyJoules / units::MWh) + " MWh",
                (ce.energyJoulesWithFailures ? formatNumber(*ce.energyJoulesWithFailures / units::MWh) + " MWh with failures" : std::string()));
        if (ce.carbonKg)
            t.row("carbon" + suffix, formatNumber(*ce.carbonKg / units::kgPerTonne) + " t CO2e",
                (ce.carbonKgWithFailures ? formatNumber(*ce.carbonKgWithFailures / units::kgPerTonne) + " t with failures" : std::string()));
    }
    const CostEnergyEstimate& ce = analysis.cost;
    if (!ce.usd)
        t.row("cost", "no price", "set cost.price_per_gpu_hour_usd");
    if (ce.gpuPowerWatts > 0)
        t.row("power per GPU", formatNumber(ce.facilityWattsPerGpu) + " W",
            formatNumber(ce.gpuPowerWatts) + " W GPU (" + (ce.gpuPowerFromPreset ? "preset" : "plan") + ") x (1 + "
                + formatNumber(plan.cost.serverOverheadFraction) + " server) x PUE " + formatNumber(plan.cost.pue));
    else
        t.row("energy", "no power", "set cost.gpu_power_watts (the part is no preset)");

    if (markdown) {
        out << "\n## Warnings\n\n" << (e.warnings.empty() ? std::string("none") : warningCounts(e.warnings)) << "\n";
        if (!e.warnings.empty())
            out << "\n";
        for (const auto& w : e.warnings)
            out << "- **" << severityName(w.severity) << "** `" << codeName(w.code) << "`: " << describe(w) << "\n";
        return out.str();
    }
    t.heading("Warnings");
    if (e.warnings.empty())
        out << "  none\n";
    else
        out << "  " << warningCounts(e.warnings) << "\n";
    for (const auto& w : e.warnings)
        out << "  [" << severityName(w.severity) << "] " << codeName(w.code) << ": " << describe(w) << "\n";
    return out.str();
}

std::string searchToText(const SearchResult& r)
{
    // Every parallel dimension gets the same column: four digits (DP 4,096) and a gap.
    constexpr int kDimensionColumn = 6;
    std::ostringstream out;
    out << "Layout search: " << countOf(double(r.evaluated), "layout") << " evaluated"
        << (r.pruned > 0 ? " (" + formatInteger(double(r.pruned)) + " of them provably too large, not estimated)" : std::string()) << ", "
        << formatInteger(double(r.fitting)) << " fit"
        << (r.underMargin > 0 || r.marginBytes > 0 ? " keeping " + formatBytes(r.marginBytes) + " free" : std::string()) << ", "
        << r.paretoCount << " on the Pareto front of memory vs time, " << formatSeconds(r.seconds) << (r.cancelled ? " (cancelled)" : "")
        << "\n";
    // Red-flagged layouts: where the ranking put them (SearchOptions::redFlags).
    if (r.redFlagOrder == RedFlagOrder::Hide)
        out << countOf(double(r.hiddenRedFlags), "more layout") << " with red flags " << pluralNoun(double(r.hiddenRedFlags), "is", "are")
            << " left out (--red-flags hide)\n";
    else if (r.redFlagOrder == RedFlagOrder::Last)
        out << "Layouts with red flags rank after every layout without them (--red-flags last); \"may not fit\" after \"fits\"\n";
    else
        out << "Layouts with red flags rank among the others (--red-flags mixed); \"may not fit\" after \"fits\"\n";
    if (r.underMargin > 0)
        out << countOf(double(r.underMargin), "more layout") << " " << pluralNoun(double(r.underMargin), "fits", "fit")
            << " with less than that free and " << pluralNoun(double(r.underMargin), "is", "are") << " left out\n";
    // The cost column shows whenever a price is known (the plan's, or --cost-per-gpu-hour), not
    // only when cost is the objective: a time-ranked list still says what each layout costs.
    const bool cost = r.objective == SearchObjective::Cost
        || std::any_of(r.rows.begin(), r.rows.end(), [](const SearchRow& row) { return row.cost > 0; });
    const auto header = [&] {
        out << std::left;
        for (ParallelDim d : parallelDimsForDisplay())
            out << std::setw(kDimensionColumn) << parallelDimLabel(d);
        if (r.expertGrid)
            out << std::setw(kDimensionColumn) << "EP" << std::setw(kDimensionColumn) << "ETP";
        out << std::setw(4) << "v" << std::setw(4) << "b" << std::setw(6) << "ZeRO" << std::setw(11) << "recompute" << std::setw(4) << "SP"
            << std::setw(11) << "step" << std::setw(8) << "MFU" << std::setw(11) << "memory" << std::setw(11) << "headroom" << std::setw(13)
            << "GPU-hours" << (cost ? std::string("cost (USD)   ") : std::string()) << "flags\n";
    };
    // A grouped row is followed by the layouts folded into it, each by what differs from it.
    const auto equivalents = [&](size_t index) {
        const SearchLayout& shown = r.rows[index].layout;
        const auto others = r.equivalentsOf(index);
        if (others.empty())
            return;
        constexpr size_t kListed = 4;
        out << "  = also ";
        for (size_t k = 0; k < others.size() && k < kListed; ++k) {
            const SearchLayout& o = others[k];
            std::string diff;
            bool splitDiffers = false;
            for (ParallelDim d : kParallelDims)
                splitDiffers = splitDiffers || o.size(d) != shown.size(d);
            if (splitDiffers)
                diff += parallelDimsText([&](ParallelDim d) { return std::to_string(o.size(d)); }, " ", sharesWeights);
            if (o.microBatch != shown.microBatch)
                diff += (diff.empty() ? "" : " ") + std::string("b ") + std::to_string(o.microBatch);
            out << (k > 0 ? ", " : "") << diff;
        }
        if (others.size() > kListed)
            out << " and " << countOf(double(others.size() - kListed), "more layout");
        out << " (same figures, within " << formatPercent(kSameFiguresTolerance, 2) << ")\n";
    };
    const auto line = [&](size_t index) {
        const SearchRow& row = r.rows[index];
        const auto& l = row.layout;
        std::string flags;
        if (row.simplest)
            flags += "simplest ";
        if (row.pareto)
            flags += "pareto ";
        // The memory verdict (MemoryFit.h) when it is not "fits", then the layout's red flags by code.
        if (row.memoryFit != MemoryFit::Fits)
            flags += std::string(row.memoryFit == MemoryFit::MayNotFit ? "MAY-NOT-FIT " : "DOES-NOT-FIT ");
        for (int code = 0; code < kWarningCodeCount; ++code)
            if (row.redFlags & warningBit(WarningCode(code)))
                flags += std::string(codeName(WarningCode(code))) + " ";
        if (row.withinMargin)
            flags += "under-margin ";
        out << std::left;
        for (ParallelDim d : parallelDimsForDisplay())
            out << std::setw(kDimensionColumn) << l.size(d);
        if (r.expertGrid)
            out << std::setw(kDimensionColumn) << l.ep << std::setw(kDimensionColumn) << l.etp;
        out << std::setw(4) << l.virtualStages << std::setw(4) << l.microBatch << std::setw(6) << l.zeroStage << std::setw(11)
            << std::string(nameOf(kRecomputeNames, l.recompute)) << std::setw(4) << (l.sequenceParallel ? "yes" : "no") << std::setw(11)
            << formatSeconds(row.stepSeconds) << std::setw(8) << formatPercent(row.mfu) << std::setw(11) << formatBytes(row.memoryBytes)
            << std::setw(11) << formatBytes(row.headroomBytes) << std::setw(13) << formatInteger(row.gpuHours);
        if (cost)
            out << std::setw(13) << formatInteger(row.cost);
        out << flags << "\n";
        equivalents(index);
    };
    // The ranking is exactly `top` rows; the Pareto front and the simplest layout follow, each
    // in its own labelled section.
    out << "\nTop " << r.topRows() << " by "
        << (r.objective == SearchObjective::Cost       ? "cost"
                   : r.objective == SearchObjective::GpuHours ? "GPU-hours"
                                                              : "predicted step time")
        << (r.grouped ? "; layouts with the same figures under another DP x CP split or micro-batch share a row (\"= also\")" : "") << "\n";
    header();
    for (size_t i = 0; i < r.topRows(); ++i)
        line(i);
    std::vector<size_t> pareto;
    std::optional<size_t> simplest;
    for (size_t i = 0; i < r.rows.size(); ++i) {
        if (r.rows[i].pareto)
            pareto.push_back(i);
        if (r.rows[i].simplest)
            simplest = i;
    }
    std::stable_sort(pareto.begin(), pareto.end(), [&](size_t a, size_t b) { return r.rows[a].stepSeconds < r.rows[b].stepSeconds; });
    // As many Pareto rows as the ranking asked for (--top), fastest first; the JSON has them all.
    const size_t shownPareto = std::min(pareto.size(), std::max<size_t>(r.topRows(), 1));
    out << "\nPareto front of memory against step time (" << countOf(double(pareto.size()), r.grouped ? "row" : "layout")
        << ", fastest first"
        << (shownPareto < pareto.size() ? ", the first " + std::to_string(shownPareto) + " shown; --json lists all" : "") << ")\n";
    header();
    for (size_t k = 0; k < shownPareto; ++k)
        line(pareto[k]);
    if (simplest) {
        out << "\nSimplest layout that fits\n";
        header();
        line(*simplest);
    }
    return out.str();
}

std::string scheduleToText(const Analysis& analysis)
{
    std::ostringstream out;
    Table t(out, ReportNotation::Text);
    const ScheduleResult& r = analysis.schedule;
    const PredictedStep& pr = analysis.predicted;
    out << "Pipeline schedule: " << scheduleKindName(r.kind) << ", p = " << r.p << ", m = " << r.m;
    if (r.v > 1)
        out << ", v = " << r.v;
    out << " (op times " << timeBasisLabel(TimeBasis::Predicted) << " by the step-time model)\n";
    t.heading("Step");
    t.row("step time (predicted)", formatSeconds(pr.stepSeconds),
          "pipeline " + formatSeconds(r.computeSeconds) + " + exposed DP " + formatSeconds(pr.components.dpCommunication) + " + optimizer "
              + formatSeconds(pr.components.optimizer));
    t.row("bubble (simulated)", formatPercent(pr.bubbleFraction));
    t.row("bubble (closed form)", formatPercent(r.closedFormBubbleFraction));
    t.row("DP sync hidden / exposed", formatSeconds(r.dpSyncHiddenSeconds) + " / " + formatSeconds(r.dpSyncExposedSeconds));
    t.heading("Stages");
    for (size_t i = 0; i < r.stages.size(); ++i) {
        const auto& st = r.stages[i];
        t.row("stage " + std::to_string(i + 1), "idle " + formatSeconds(st.idleSeconds),
            "busy " + formatSeconds(st.busySeconds) + ", peak " + countOf(st.peakInFlightMicrobatches, "micro-batch", "micro-batches")
                + " in flight");
    }
    out << "\n" << r.events.size() << " events (use --json to list them)\n";
    return out.str();
}

std::string formatPeakNote(const Plan& plan, const PredictedStep& p)
{
    if (p.hfuAtFormatPeak == p.hfu)
        return {};
    return "BF16 peak; " + formatPercent(p.hfuAtFormatPeak) + " of " + std::string(nameOf(kMatmulPrecisionNames, plan.training.matmulPrecision))
        + " peak";
}

std::string tokensPerParameterText(const Plan& plan, const Estimate& e)
{
    return formatNumber(tokensPerParameter(plan.training.tokens, e.parameters), 3) + " tok/param";
}

std::string parametersDetail(const Plan& plan, const Estimate& e)
{
    // The mean per GPU (worked example A's figure), then training tokens per (active) parameter,
    // whose compute-optimal ~20 the derivation and the tooltip give (ComputeOptimal.h); short
    // enough that the card does not widen the dashboard.
    const std::string ratio = tokensPerParameterText(plan, e);
    return plan.model.moe ? formatCount(e.parameters.active) + " active · " + ratio : formatSci(e.parametersPerGpuMean) + "/GPU · " + ratio;
}

std::string flopsTermsText(const Plan& plan, const Estimate& e, bool withValues)
{
    const auto& f = e.flops;
    if (plan.model.beyondDense())
        return "Megatron-LM count, " + formatSci(f.perToken, withValues ? 3 : 2) + " per token"
            + (withValues ? " (6 N_active D " + formatSci(f.model6nd, 2) + ")" : "");
    if (!withValues)
        return f.embeddingLookup > 0 ? "6ND − lookups + attention" : "6ND + attention";
    return f.embeddingLookup > 0 ? "6ND " + formatSci(f.model6nd, 2) + " − embedding lookups " + formatSci(f.embeddingLookup, 2)
                                       + " + attention " + formatSci(f.attention, 2)
                                 : "6ND " + formatSci(f.model6nd, 2) + " + attention " + formatSci(f.attention, 2);
}

}  // namespace trainplan
