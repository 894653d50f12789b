#include "render/report/ReviewHtml.h"

#include <algorithm>

#include "core/analysis/LayoutRationale.h"
#include "core/analysis/MemoryFitSentence.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/analysis/Thresholds.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/estimate/CommunicationModel.h"
#include "core/plan/EnumNames.h"
#include "core/text/TextReport.h"
#include "render/charts/MemoryChartPainter.h"
#include "render/report/ReportContext.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"

using namespace trainplan;

namespace reviewhtml {

namespace {

QString q(const std::string& s)
{
    return markup::escaped(s);
}

QString bytes(double b)
{
    return q(formatBytes(b));
}
QString seconds(double s)
{
    return q(formatSeconds(s));
}
QString number(double v)
{
    return q(formatNumber(v));
}
QString integer(double v)
{
    return q(formatInteger(v));
}
QString percent(double f, int decimals = 1)
{
    return q(formatPercent(f, decimals));
}
QString count(double n, const char* singular, const char* plural = "")
{
    return q(countOf(n, singular, plural));
}

QString basis(TimeBasis b)
{
    return QString::fromLatin1(timeBasisLabel(b));
}

// "a – b": a predicted range, smaller number first, each end formatted by `format`.
QString range(double a, double b, QString (*format)(double))
{
    const QString low = format(std::min(a, b)), high = format(std::max(a, b));
    return low == high ? low : low + " – " + high;
}

QString percentOf(double f)
{
    return percent(f);
}

QString cell(const QString& text, const char* extra = "")
{
    return QString("<td style='padding:2px 12px 2px 0; %1'>%2</td>").arg(QString::fromLatin1(extra), text);
}

QString headCell(const QString& text)
{
    return QString("<td style='padding:2px 12px 2px 0; color:@muted; border-bottom:1px solid @grid'>%1</td>").arg(text);
}

QString table(const QString& rows)
{
    return "<table cellspacing='0' cellpadding='0'>" + rows + "</table>";
}

QString dataRow(std::initializer_list<QString> cells, bool bold = false)
{
    QString out = "<tr>";
    bool first = true;
    for (const QString& c : cells) {
        out += cell(first || !bold ? c : "<b>" + c + "</b>", first ? "color:@inkSoft" : "");
        first = false;
    }
    return out + "</tr>";
}

QString head(std::initializer_list<QString> cells)
{
    QString out = "<tr>";
    for (const QString& c : cells)
        out += headCell(c);
    return out + "</tr>";
}

QString accelerator(const ReportContext& ctx)
{
    return markup::escaped(ctx.plan().cluster.accelerator);
}

}  // namespace

QString askLine(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const bool failures = e.reliability.failuresModelled;
    const double days = failures ? a.atPredictedMfu.reliability.paddedDays : a.predicted.days;
    int errors = 0;
    for (const auto& w : e.warnings)
        errors += w.severity == Severity::Error;
    // A plan with error-level red flags is not yet an ask: the line says so.
    return QObject::tr("%1 × %2 for %3 days %4 (%5); %6 GPU-hours of compute%7")
        .arg(integer(e.gpusUsed), accelerator(ctx), number(days),
            failures ? QObject::tr("with failures") : QObject::tr("without a failure allowance"), basis(TimeBasis::Predicted),
            integer(a.predicted.gpuHours),
            errors > 0 ? QObject::tr(" (not yet valid: %1)").arg(count(errors, "error-level red flag")) : QString());
}

QString ask(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& pr = a.predicted;
    const auto& r = pr.range;  // high = optimistic end, low = pessimistic end
    const auto& plan = ctx.plan();
    const bool failures = e.reliability.failuresModelled;
    const QString assumed = basis(TimeBasis::AssumedMfu) + " " + percent(plan.training.mfu, 0);
    QString rows = head({QString(), basis(TimeBasis::Predicted), QObject::tr("predicted range"), assumed});
    rows += dataRow({QObject::tr("Compute days"), number(pr.days), range(r.high.days, r.low.days, number), number(e.time.days)}, true);
    rows += dataRow(
        {QObject::tr("Days with failures"), failures ? number(a.atPredictedMfu.reliability.paddedDays) : QObject::tr("not modelled"),
            QString(), failures ? number(e.reliability.paddedDays) : QObject::tr("not modelled")},
        true);
    rows += dataRow({QObject::tr("GPU-hours (compute)"), integer(pr.gpuHours), range(r.high.gpuHours, r.low.gpuHours, integer),
                        integer(e.time.gpuHours)},
        true);
    rows += dataRow({QObject::tr("Step time"), seconds(pr.stepSeconds), range(r.high.stepSeconds, r.low.stepSeconds, seconds),
                        seconds(e.time.stepSeconds)},
        true);
    rows += dataRow({QObject::tr("MFU"), percent(pr.mfu), range(r.low.mfu, r.high.mfu, percentOf), percent(plan.training.mfu, 0)}, true);
    // Cost, energy and carbon of the compute time on each basis, where the plan gives what they need
    // (estimate/CostEnergyModel.h): a price, a power, a grid intensity.
    const auto& atPredicted = a.costAtPredicted;
    const auto& atAssumed = a.cost;
    const auto money = [](const std::optional<double>& usd) { return usd ? "$" + q(formatCount(*usd)) : QString("–"); };
    const auto energy = [](const std::optional<double>& joules) {
        return joules ? q(formatNumber(*joules / trainplan::units::MWh)) + QObject::tr(" MWh") : QString("–");
    };
    const auto carbon = [](const std::optional<double>& kg) { return kg ? q(formatNumber(*kg / trainplan::units::kgPerTonne)) + QObject::tr(" t CO₂e") : QString("–"); };
    if (atPredicted.usd)
        rows += dataRow({QObject::tr("Cost (compute)"), money(atPredicted.usd), QString(), money(atAssumed.usd)}, true);
    if (atPredicted.energyJoules)
        rows += dataRow({QObject::tr("Energy (compute)"), energy(atPredicted.energyJoules), QString(), energy(atAssumed.energyJoules)}, true);
    if (atPredicted.carbonKg)
        rows += dataRow({QObject::tr("Carbon (compute)"), carbon(atPredicted.carbonKg), QString(), carbon(atAssumed.carbonKg)}, true);
    QString html = "<p style='font-size:120%'><b>" + askLine(ctx) + "</b></p>" + table(rows);
    html += QObject::tr(
        "<p style='color:@muted'>%8 GPUs on %9; %1 tokens in %2 steps of %3 tokens. The predicted range spans the model's measured error "
        "(%4 slower to %5 faster: a %10 band of its error on published runs %11)%6. The %7 column is the plan's own MFU "
        "assumption.</p>")
                .arg(q(formatSci(plan.training.tokens)), integer(double(e.time.steps)), integer(e.time.tokensPerStep),
                    percent(r.modelErrorSlower, 0), percent(r.modelErrorFaster, 0),
                    r.unknownInputs() > 0
                        ? QObject::tr(" and %1 the plan leaves unknown (each measured alone; independent spreads add in quadrature)")
                              .arg(q(trainplan::unknownInputsPhrase(r.unknownSwitches, r.unknownLayoutFields, r.unknownLoadImbalance, r.unknownEfficiencies)))
                        : QString(),
                    basis(TimeBasis::AssumedMfu))
                .arg(integer(e.gpusUsed), count(e.nodes, "node"))
                .arg(percent(r.coverage, 0),
                    trainplan::usesCalibratedStepBand(plan)
                        ? QObject::tr("predicted after calibrating on another run of their cluster, as this plan is calibrated on %1")
                              .arg(markup::escaped(plan.cluster.calibration->source))
                        : QObject::tr("it was not fitted on"));
    return html;
}

QString layoutWhy(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const LayoutRationale& why = ctx.layoutRationale();
    QString html = "<p><b>" + q(describeLayout(searchLayoutOf(a.plan))) + "</b> — "
        + QObject::tr("<span style='color:%1'>%2</span> in memory, %3 per step (%4)")
              .arg(theme::verdict(memoryVerdict(a.memoryRange), theme::ink()).name(), q(memoryFitName(a.memoryRange.fit)),
                  seconds(a.predicted.stepSeconds), basis(TimeBasis::Predicted))
        + "</p><ul>";
    for (const auto& line : why.constraints)
        html += "<li>" + q(line) + "</li>";
    html += "</ul>";
    html += QObject::tr("<p>The layout search tried %1 and %2 with the memory margin.")
                .arg(count(double(why.evaluated), "layout"), q(formatInteger(double(why.fitting))) + (why.fitting == 1 ? " fits" : " fit"));
    if (why.fitting > 0) {
        html += why.searchFoundBetter ? QObject::tr(" Its fastest, %1, predicts %2 per step: <b>faster than this plan</b>.")
                                            .arg(q(describeLayout(why.fastest)), seconds(why.fastestStepSeconds))
                                      : QObject::tr(" Its fastest, %1, predicts %2 per step: this plan is as fast or faster.")
                                            .arg(q(describeLayout(why.fastest)), seconds(why.fastestStepSeconds));
        html += QObject::tr(" The simplest that fits is %1 (%2 per step).")
                    .arg(q(describeLayout(why.simplest)), seconds(why.simplestStepSeconds));
    }
    html += "</p>";
    if (!why.alternatives.empty()) {
        QString rows = head({QObject::tr("Alternative"), QObject::tr("Against this plan (%1)").arg(basis(TimeBasis::Predicted))});
        for (const auto& alt : why.alternatives)
            rows += QString("<tr>%1%2</tr>")
                        .arg(cell(q(alt.name), "color:@inkSoft"),
                            cell((alt.rejected        ? "<span style='color:@error'>"
                                         : alt.faster ? "<span style='color:@ok'>"
                                                      : "<span>")
                                + q(alt.verdict) + "</span>"));
        html += table(rows);
    }
    return html;
}

QString memoryTable(const ReportContext& ctx)
{
    const auto& e = ctx.estimate();
    const auto& m = e.perGpu;
    QString rows = head(
        {QObject::tr("Component (stage %1, the fullest)").arg(e.fullestStage + 1), QObject::tr("per GPU"), QObject::tr("of capacity")});
    for (int part = 0; part < MemoryChartPainter::PartCount; ++part) {
        const double b = MemoryChartPainter::partBytes(m, part);
        if (b <= 0)
            continue;
        rows += dataRow({MemoryChartPainter::partName(part), bytes(b), percent(b / e.capacityBytes)});
    }
    rows += dataRow({QObject::tr("<b>Total</b>"), "<b>" + bytes(m.total) + "</b>", "<b>" + percent(m.total / e.capacityBytes) + "</b>"});
    rows += dataRow({QObject::tr("Free"), bytes(e.headroomBytes), percent(e.headroomBytes / e.capacityBytes)});
    // The range and its verdict (MemoryFit.h), coloured as the window colours them (Thresholds.h).
    const MemoryRange& r = ctx.analysis().memoryRange;
    rows += dataRow({QObject::tr("Range"), bytes(r.lowBytes) + " – " + bytes(r.highBytes), percent(r.highBytes / e.capacityBytes)});
    rows += dataRow({QObject::tr("Verdict"),
        QString("<b style='color:%1'>%2</b>").arg(theme::verdict(memoryVerdict(r), theme::ok()).name(), q(memoryFitName(r.fit))),
        bytes(r.usableBytes) + QObject::tr(" usable")});
    return table(rows) + "<p style='color:@muted'>" + q(memoryFitSentence(r)) + "</p>";
}

QString stepTable(const ReportContext& ctx)
{
    const auto& pr = ctx.analysis().predicted;
    const auto& c = pr.components;
    struct Part {
        const char* name;
        double seconds;
    };
    const Part parts[] = {
        {"Forward compute", c.forwardCompute},
        {"Backward compute", c.backwardCompute},
        {"Memory-bound kernels", c.memoryBound},
        {"Recompute", c.recompute},
        {"TP collectives (exposed)", c.tpCommunication},
        {"CP ring (exposed)", c.cpCommunication},
        {"ZeRO collectives (exposed)", c.zeroCommunication},
        {"EP all-to-all (exposed)", c.epCommunication},
        {"Expert imbalance", c.expertImbalance},
        {"PP sends", c.ppSend},
        {"Pipeline bubble", c.pipelineBubble},
        {"DP tail (exposed)", c.dpCommunication},
        {"Optimizer step", c.optimizer},
        {"Kernel overhead", c.kernelOverhead},
    };
    QString rows =
        head({QObject::tr("Component (%1)").arg(basis(TimeBasis::Predicted)), QObject::tr("per step"), QObject::tr("of the step")});
    for (const Part& p : parts)
        if (p.seconds > 0)
            rows += dataRow({QString::fromLatin1(p.name), seconds(p.seconds), percent(p.seconds / pr.stepSeconds)});
    rows += dataRow({QObject::tr("<b>Step</b>"), "<b>" + seconds(pr.stepSeconds) + "</b>", "<b>" + percent(1.0, 0) + "</b>"});
    return table(rows);
}

QString communication(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& c = e.communication;
    const auto& pc = a.predicted.components;
    const auto& l = ctx.plan().layout;
    const auto link = [](bool crosses) { return crosses ? QObject::tr("network") : QObject::tr("NVLink"); };
    QString rows = head({QObject::tr("Group"), QObject::tr("traffic"), QObject::tr("link"), QObject::tr("per step at link bandwidth"),
        QObject::tr("exposed (%1)").arg(basis(TimeBasis::Predicted))});
    if (l.tp > 1)
        rows += dataRow({QObject::tr("TP %1").arg(l.tp),
            QObject::tr("%1 per all-reduce, %2 per layer").arg(bytes(c.tpMessageBytes)).arg(c.tpCollectivesPerLayer),
            link(c.tpCrossesNodes), seconds(c.tpSecondsPerStep), seconds(pc.tpCommunication)});
    if (l.cp > 1)
        rows += dataRow({QObject::tr("CP %1").arg(l.cp), QObject::tr("%1 per layer").arg(bytes(c.cpBytesPerLayer)), link(c.cpCrossesNodes),
            seconds(c.cpSecondsPerStep), seconds(pc.cpCommunication)});
    if (l.pp > 1)
        rows += dataRow({QObject::tr("PP %1").arg(l.pp), QObject::tr("%1 per micro-batch send").arg(bytes(c.ppBytesPerMicrobatch)),
            link(c.ppCrossesNodes), seconds(c.ppSecondsPerStep), seconds(pc.ppSend)});
    rows += dataRow({QObject::tr("DP %1").arg(c.dpGroupSize), QObject::tr("%1 gradients per GPU").arg(bytes(c.dpBytesPerGpu)),
        link(c.dpCrossesNodes), seconds(c.dpSeconds), seconds(pc.dpCommunication)});
    // An MoE layer's dispatch and combine: priced per layer inside the step-time model, so only
    // where it runs and what of it stays exposed are quoted here.
    if (ctx.plan().model.hasMoeLayers() && l.ep > 1)
        rows += dataRow({QObject::tr("EP %1").arg(l.ep), QObject::tr("all-to-all dispatch and combine, every MoE layer"),
            link(trainplan::groupPlacement(l.etp, l.ep, ctx.plan().cluster.gpusPerNode, e.gpusUsed).nodes > 1), QStringLiteral("–"),
            seconds(pc.epCommunication)});
    if (l.zeroStage >= 3)
        rows += dataRow({QObject::tr("ZeRO-3"), QObject::tr("%1 all-gathers").arg(bytes(c.zero3AllGatherBytesPerStep)),
            link(c.dpCrossesNodes), seconds(c.zero3SecondsPerStep), seconds(pc.zeroCommunication)});
    QString html = table(rows);
    html += QObject::tr("<p>The gradient reduction %1 (backward window %2, %3).</p>")
                .arg(c.dpHidden ? QObject::tr("hides under the backward pass")
                                : QObject::tr("<span style='color:@error'>is longer than the backward pass</span>"),
                    seconds(c.dpBackwardWindowSeconds), basis(TimeBasis::AssumedMfu));
    return html;
}

QString reliability(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& r = a.estimate.reliability;
    const auto& rp = a.atPredictedMfu.reliability;
    QString rows = head({QString(), basis(TimeBasis::Predicted), basis(TimeBasis::AssumedMfu)});
    rows += dataRow({QObject::tr("Checkpoint"),
                        QObject::tr("%1 (%2 per GPU)").arg(bytes(r.checkpointBytes), bytes(r.checkpointBytesPerGpu)), QString()},
        true);
    rows += dataRow({QObject::tr("Write stall"), seconds(r.checkpointWriteSeconds), QString()}, true);
    if (r.failuresModelled) {
        rows += dataRow({QObject::tr("Cluster MTBF"), seconds(r.clusterMtbfSeconds), QString()}, true);
        rows +=
            dataRow({QObject::tr("Checkpoint every"), seconds(rp.checkpointIntervalSeconds), seconds(r.checkpointIntervalSeconds)}, true);
        rows += dataRow({QObject::tr("Expected failures"), number(rp.expectedFailures), number(r.expectedFailures)}, true);
        rows += dataRow({QObject::tr("Lost per failure"), seconds(rp.lostSecondsPerFailure), seconds(r.lostSecondsPerFailure)}, true);
        rows += dataRow({QObject::tr("Compute days"), number(a.predicted.days), number(a.estimate.time.days)}, true);
        rows += dataRow({QObject::tr("Padded days"), number(rp.paddedDays), number(r.paddedDays)}, true);
    } else {
        rows += dataRow({QObject::tr("Failures"), QObject::tr("<span style='color:@error'>not modelled: set an MTBF</span>"), QString()});
    }
    return table(rows)
        + QObject::tr("<p style='color:@muted'>Checkpoint interval √(2 · stall · MTBF) (Young 1974; Daly 2006); each failure costs "
                      "the restart and half an interval of lost work.</p>");
}

QString redFlags(const ReportContext& ctx)
{
    const auto& e = ctx.estimate();
    if (e.warnings.empty())
        return QObject::tr(
            "<p><b style='color:@ok'>Red flags: none.</b> <span style='color:@muted'>The layout fits, TP stays inside a node, the batch "
            "divides and failures are budgeted.</span></p>");
    QString html =
        "<p><b>" + QObject::tr("Red flags") + ":</b> " + q(warningCounts(e.warnings)) + "</p><table cellspacing='0' cellpadding='2'>";
    for (auto sev : {Severity::Error, Severity::Warning, Severity::Info})
        for (const auto& w : e.warnings)
            if (w.severity == sev)
                html +=
                    QString("<tr><td style='color:%1; padding-right:8px'><b>%2</b></td><td><b>%3</b> %4 <span "
                            "style='color:@faint'>(%5)</span></td></tr>")
                        .arg(theme::severity(sev).name(), QString(severityName(sev)).toUpper(), codeName(w.code), q(describe(w)), w.field);
    return html + "</table>";
}

QString risks(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& pr = a.predicted;
    QStringList items;
    for (auto sev : {Severity::Error, Severity::Warning})
        for (const auto& w : e.warnings)
            if (w.severity == sev)
                items << QString("<span style='color:%1'><b>%2</b></span> %3")
                             .arg(theme::severity(sev).name(), codeName(w.code), q(describe(w)));
    // Tight stages (analysis/Thresholds.h): the first to break when activations or the
    // framework's buffers come out larger than modelled.
    for (const auto& st : e.stages)
        if (stageIsTight(st, e))
            items << QObject::tr("Stage %1 is near capacity: %2 free of %3 (%4)")
                         .arg(st.index + 1)
                         .arg(bytes(st.headroomBytes), bytes(e.capacityBytes), percent(st.headroomBytes / e.capacityBytes));
    // Exposed communication large enough to matter (Thresholds.h): where a slow link shows first.
    const struct {
        const char* name;
        double seconds;
    } exposed[] = {{"TP collectives", pr.components.tpCommunication}, {"CP ring", pr.components.cpCommunication},
        {"ZeRO collectives", pr.components.zeroCommunication}, {"PP sends", pr.components.ppSend},
        {"DP tail", pr.components.dpCommunication}};
    for (const auto& x : exposed)
        if (communicationIsRisk(x.seconds, pr.stepSeconds))
            items << QObject::tr("Exposed %1: %2 per step, %3 of it (%4)")
                         .arg(QString::fromLatin1(x.name), seconds(x.seconds), percent(x.seconds / pr.stepSeconds),
                             basis(TimeBasis::Predicted));
    if (bubbleIsRisk(pr.bubbleFraction))
        items << QObject::tr("Pipeline bubble %1 of the pipeline's time (%2)").arg(percent(pr.bubbleFraction), basis(TimeBasis::Predicted));
    items << QObject::tr("The prediction itself: step %1 – %2 (%3 range)")
                 .arg(seconds(pr.range.high.stepSeconds), seconds(pr.range.low.stepSeconds), basis(TimeBasis::Predicted));
    QString html = "<ul>";
    for (const QString& item : items)
        html += "<li>" + item + "</li>";
    return html + "</ul>";
}

QString validationStages(const ReportContext& ctx)
{
    const auto& a = ctx.analysis();
    const auto& e = a.estimate;
    const auto& pr = a.predicted;
    const auto& plan = ctx.plan();
    const auto& l = plan.layout;
    const int node = std::min(plan.cluster.gpusPerNode, e.gpusUsed);
    const long long replica = parallelSizeProduct(l, splitsReplica);
    const QString replicaDims = q(parallelDimsText([](ParallelDim) { return std::string(); }, " × ", splitsReplica));
    QString html = "<ol>";
    html += QObject::tr("<li><b>Small-scale parity</b> (a few layers, 1 node): loss and gradients match a reference run; "
                        "N = %1, %2 FLOPs per token.</li>")
                .arg(q(formatCount(e.parameters.total)), q(formatSci(e.flops.perToken)));
    html += QObject::tr("<li><b>Single node</b> (%1 GPUs): one TP all-reduce of %2 takes about %3; memory by component on stage %4 "
                        "within the table (%5 in all).</li>")
                .arg(node)
                .arg(bytes(e.communication.tpMessageBytes), seconds(e.communication.tpSecondsPerCollective))
                .arg(e.fullestStage + 1)
                .arg(bytes(e.perGpu.total));
    html += QObject::tr("<li><b>One replica</b> (%1 = %2 GPUs): bubble near %3 and peak memory on stage %4 near %5.</li>")
                .arg(replicaDims)
                .arg(replica)
                .arg(percent(pr.bubbleFraction))
                .arg(e.fullestStage + 1)
                .arg(bytes(e.perGpu.total));
    html += QObject::tr("<li><b>Full scale, short run</b> (%1 GPUs, a few hundred steps): step %2 (range %3 – %4), MFU %5, exposed DP %6; "
                        "write a checkpoint (stall %7) and test one restart.</li>")
                .arg(e.gpusUsed)
                .arg(seconds(pr.stepSeconds), seconds(pr.range.high.stepSeconds), seconds(pr.range.low.stepSeconds), percent(pr.mfu),
                    seconds(pr.components.dpCommunication), seconds(e.reliability.checkpointWriteSeconds));
    return html + "</ol>";
}

}  // namespace reviewhtml
