#include "render/report/ReportPainter.h"

#include <QAbstractTextDocumentLayout>
#include <QFontMetricsF>
#include <QPainter>
#include <QTextDocument>

#include "core/analysis/Sensitivity.h"
#include "core/analysis/Thresholds.h"
#include "core/base/Format.h"
#include "core/plan/EnumNames.h"
#include "core/text/Derivation.h"
#include "core/text/TextReport.h"
#include "render/charts/TornadoPainter.h"
#include "render/layoutdiagram/LayoutDiagramGeometry.h"
#include "render/layoutdiagram/LayoutDiagramPainter.h"
#include "render/layoutdiagram/LayoutDiagramStyle.h"
#include "render/report/DerivationHtml.h"
#include "render/report/InputsPage.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportSection.h"
#include "render/style/Fonts.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"
#include "render/timeline/TimelineScene.h"

using namespace trainplan;

namespace reportpainter {

QFont font(double pointSize, bool bold);

namespace {

QString q(const std::string& s)
{
    return markup::escaped(s);
}

QString fmtBytes(double b) { return q(formatBytes(b)); }
QString fmtNum(double v) { return q(formatNumber(v)); }

QString htmlPage(const QString& body, double scale)
{
    return theme::styled(QString("<html><body style='font-family:DejaVu Sans; font-size:%1pt; color:@ink'>%2</body></html>")
                             .arg(10.0 * scale, 0, 'f', 1)
                             .arg(body));
}

// After worked example B, "Validate the plan in stages": one fragment per stage, the introduction
// with the first, so that the report can break a page between stages.
std::vector<QString> validationStages(const Analysis& a)
{
    const Plan& p = a.plan;
    const Estimate& e = a.estimate;
    const auto& r = e.reliability;
    const int node = p.cluster.gpusPerNode;
    QString grid;
    for (int g = node; g < e.gpusUsed; g *= 8)
        grid += QString::number(g) + ", ";
    grid += QString::number(e.gpusUsed);
    std::vector<QString> stages;
    stages.push_back(
        QString(
            "<p>Stages after worked example B, \"Validate the plan in stages\", with this plan's expected figures to compare against.</p>"
            "<h3>Stage 1: one-node correctness</h3><ul>"
            "<li>Confirm loss and gradient behaviour; check the parameter count is %1 and the FLOPs per token %2.</li>"
            "<li>Record peak memory by component on the fullest stage (stage %3): weights %4, gradients %5, optimizer %6, activations "
            "%7%8.</li>"
            "<li>Measure kernel shapes and numerical stability.</li></ul>")
            .arg(q(formatCount(e.parameters.total)), q(formatSci(e.flops.perToken)))
            .arg(e.fullestStage + 1)
            .arg(fmtBytes(e.perGpu.weights), fmtBytes(e.perGpu.gradients), fmtBytes(e.perGpu.optimizer), fmtBytes(e.perGpu.activations))
            .arg(e.perGpu.shardingBuffers > 0 ? ", ZeRO-3 gathered buffers " + fmtBytes(e.perGpu.shardingBuffers) : QString()));
    stages.push_back(
        QString("<h3>Stage 2: multi-node scaling</h3><ul>"
                "<li>Test a grid of %1 GPUs, keeping the global batch (%2 sequences) or reporting any change.</li>"
                "<li>Record tokens/s (predicted: %3 per GPU), MFU (predicted: %4), median and tail step time (predicted: %5), exposed "
                "collective time (exposed DP, predicted: %6; %7 of TP, CP and ZeRO collectives), per-rank imbalance and peak "
                "memory.</li></ul>")
            .arg(grid)
            .arg(p.training.globalBatchSequences)
            .arg(fmtNum(a.predicted.tokensPerSecondPerGpu), q(formatPercent(a.predicted.mfu)), q(formatSeconds(a.predicted.stepSeconds)),
                 q(formatSeconds(a.predicted.components.dpCommunication)),
                 q(formatSeconds(a.predicted.components.tpCommunication + a.predicted.components.cpCommunication
                                 + a.predicted.components.zeroCommunication))));
    stages.push_back(QString(
        "<h3>Stage 3: reliability</h3><ul>"
        "<li>Checkpoint model, optimizer, data position and random state: %1 in all, %2 per GPU; measure the write stall (plan: "
        "%3).</li>"
        "<li>Test restart before the full run (plan: %4 per restart). Checkpoint every %5 (Young/Daly).</li>"
        "<li>Expect about %6 failures (cluster MTBF %7); budget %8 days of wall time against %9 days of compute.</li>"
        "<li>Health checks for loss spikes, NaNs, stalled ranks and slow nodes; keep a known-good checkpoint for rollback.</li></ul>")
                         .arg(fmtBytes(r.checkpointBytes), fmtBytes(r.checkpointBytesPerGpu), q(formatSeconds(r.checkpointWriteSeconds)),
                             q(formatSeconds(p.reliability.restartSeconds)),
                             r.failuresModelled ? q(formatSeconds(r.checkpointIntervalSeconds)) : QString("(no MTBF set)"),
                             r.failuresModelled ? fmtNum(r.expectedFailures) : QString("an unknown number of"),
                             r.failuresModelled ? q(formatSeconds(r.clusterMtbfSeconds)) : QString("not set"), fmtNum(r.paddedDays),
                             fmtNum(e.time.days)));
    stages.push_back("<h3>Stage 4: convergence</h3><ul>"
                     "<li>Run enough tokens to test the learning curve, not only throughput; compare with smaller-scale predictions and "
                     "held-out loss by source.</li></ul>");
    return stages;
}

struct Figure {
    QString title, value, detail;
    QColor accent;
};

void paintSummary(const ReportContext& ctx, QPainter& p, const QRectF& rect, double scale)
{
    const auto& e = ctx.estimate();
    const auto& plan = ctx.plan();
    const QColor normal = theme::ink();
    const auto& a = ctx.analysis();
    const auto& pr = a.predicted;
    const std::string peakNote = formatPeakNote(plan, pr);  // FP8/FP4 GEMMs: MFU against the BF16 peak
    const auto& atPredicted = a.atPredictedMfu.reliability;
    const QString assumed = QString::fromLatin1(timeBasisLabel(TimeBasis::AssumedMfu));
    const QString predicted = QString::fromLatin1(timeBasisLabel(TimeBasis::Predicted));
    const Figure figures[] = {
        {"Parameters", q(formatCount(e.parameters.total)), q(trainplan::parametersDetail(a.plan, e)), normal},
        {"Training FLOPs", q(formatSci(e.flops.total)), q(trainplan::flopsTermsText(a.plan, e, true)), normal},
        {"Compute time, " + predicted, QString("%1 days").arg(fmtNum(pr.days)),
            QString("%1 %2 days at %3 %4")
                .arg(assumed)
                .arg(fmtNum(e.time.days))
                .arg(q(formatPercent(plan.training.mfu, 0)))
                .arg(q(countOf(e.gpusUsed, "GPU"))),
            normal},
        {"With failures, " + predicted,
            e.reliability.failuresModelled ? QString("%1 days").arg(fmtNum(atPredicted.paddedDays)) : QString("not modelled"),
            e.reliability.failuresModelled
                ? QString("%1 %2 days; %3")
                      .arg(assumed, fmtNum(e.reliability.paddedDays), q(countOf(e.reliability.expectedFailures, "failure")))
                : QString("set an MTBF"),
            e.reliability.failuresModelled ? normal : theme::severity(Severity::Warning)},
        {"GPU-hours, " + predicted, q(formatCount(pr.gpuHours)), QString("%1 %2").arg(assumed, q(formatCount(e.time.gpuHours))), normal},
        {"Step time, " + predicted, q(formatSeconds(pr.stepSeconds)),
            QString("%1 %2; MFU %3").arg(assumed, q(formatSeconds(e.time.stepSeconds)),
                q(formatPercent(pr.mfu) + (peakNote.empty() ? std::string() : " (" + peakNote + ")"))), normal},
        {"Memory per GPU", fmtBytes(e.perGpu.total),
            QString("of %1, stage %2; range %3 to %4: %5")
                .arg(fmtBytes(e.capacityBytes))
                .arg(e.fullestStage + 1)
                .arg(fmtBytes(ctx.analysis().memoryRange.lowBytes), fmtBytes(ctx.analysis().memoryRange.highBytes),
                    QString::fromLatin1(memoryFitName(ctx.analysis().memoryRange.fit))),
            // As in the window: the range's verdict, amber when it may not fit, red when it does not.
            theme::verdict(memoryVerdict(ctx.analysis().memoryRange), normal)},
        {"Pipeline bubble, " + predicted, q(formatPercent(pr.bubbleFraction)),
            QString("closed form %1, m = %2").arg(q(formatPercent(e.pipeline.bubbleFraction))).arg(e.pipeline.microbatches),
            theme::verdict(bubbleVerdict(pr.bubbleFraction), normal)},
    };
    // Four cards a row where a row is wide enough for four readable ones (slides), else two.
    const int columns = rect.width() / scale >= 880 ? 4 : 2;
    const int rows = (int(std::size(figures)) + columns - 1) / columns;
    const double gap = 10 * scale;
    const double w = (rect.width() - gap * (columns - 1)) / columns;
    const double h = std::min((rect.height() - gap * (rows - 1)) / rows, 150.0 * scale);
    const QFont titleFont = font(9 * scale);
    const QFont valueFont = font(18 * scale, true);
    const QFont detailFont = font(8.5 * scale);
    for (int i = 0; i < int(std::size(figures)); ++i) {
        const QRectF box(rect.x() + (i % columns) * (w + gap), rect.y() + (i / columns) * (h + gap), w, h);
        p.setPen(QPen(theme::border(), 1));
        p.setBrush(theme::panel());
        p.drawRoundedRect(box, 4 * scale, 4 * scale);
        const QRectF inner = box.adjusted(10 * scale, 6 * scale, -8 * scale, -6 * scale);
        // Titles and values shrink to fit their box rather than being clipped.
        QFont title = titleFont;
        while (title.pointSizeF() > 6.5 && QFontMetricsF(title, p.device()).horizontalAdvance(figures[i].title) > inner.width())
            title.setPointSizeF(title.pointSizeF() * 0.93);
        p.setFont(title);
        p.setPen(theme::muted());
        p.drawText(inner, Qt::AlignLeft | Qt::AlignTop, figures[i].title);
        // Shrink the value until it fits its box rather than clipping it.
        QFont fitted = valueFont;
        while (fitted.pointSizeF() > 8 && QFontMetricsF(fitted, p.device()).horizontalAdvance(figures[i].value) > inner.width())
            fitted.setPointSizeF(fitted.pointSizeF() * 0.9);
        p.setFont(fitted);
        p.setPen(figures[i].accent);
        p.drawText(inner, Qt::AlignLeft | Qt::AlignVCenter, figures[i].value);
        // Details wrap onto a second line at a readable size instead of shrinking to nothing.
        QFont detail = detailFont;
        const QRectF detailBox(inner.left(), inner.bottom() - 2.4 * QFontMetricsF(detail, p.device()).height(), inner.width(),
                               2.4 * QFontMetricsF(detail, p.device()).height());
        while (detail.pointSizeF() > 7 * scale
            && QFontMetricsF(detail, p.device()).boundingRect(detailBox, Qt::TextWordWrap, figures[i].detail).height() > detailBox.height())
            detail.setPointSizeF(detail.pointSizeF() * 0.94);
        p.setFont(detail);
        p.setPen(theme::muted());
        p.drawText(detailBox, Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, figures[i].detail);
    }
}


}  // namespace

QFont font(double pointSize, bool bold)
{
    return fonts::points(pointSize, bold);
}

QString viewTitle(ReportView view, const ReportContext& ctx, int section)
{
    switch (view) {
    case ReportView::Summary: return QObject::tr("Headline figures");
    case ReportView::Inputs: return QObject::tr("Inputs");
    case ReportView::Memory: return QObject::tr("Memory per GPU by pipeline stage");
    case ReportView::StepTime: return QObject::tr("Where a step's time goes");
    case ReportView::Timeline: return QObject::tr("Pipeline schedule");
    case ReportView::Layout: return QObject::tr("Ranks on nodes and GPUs");
    case ReportView::RedFlags: return QObject::tr("Red flags");
    case ReportView::Validation: return QObject::tr("Validation and reliability plan");
    case ReportView::Sensitivity:
        // The core's step for continuous inputs (SensitivityOptions), not a number of our own.
        return QObject::tr("Sensitivity: inputs ±%1").arg(q(formatPercent(SensitivityOptions{}.fraction, 0)));
    case ReportView::Ask: return QObject::tr("The ask");
    case ReportView::LayoutWhy: return QObject::tr("The layout and why");
    case ReportView::Communication: return QObject::tr("Communication");
    case ReportView::Reliability: return QObject::tr("Reliability");
    case ReportView::Risks: return QObject::tr("Risks");
    case ReportView::Staging: return QObject::tr("Staged validation plan");
    case ReportView::Sizing: return QObject::tr("Sizing the cluster");
    case ReportView::Derivation: {
        const auto& sections = ctx.derivation();
        return section >= 0 && section < int(sections.size())
            ? QObject::tr("The math: %1").arg(QString::fromStdString(sections[size_t(section)].title))
            : QObject::tr("The math");
    }
    }
    return {};
}

int derivationSectionCount(const ReportContext& ctx)
{
    return int(ctx.derivation().size());
}

QString inputsBody(const ReportContext& ctx)
{
    return inputspage::html(inputspage::sections(ctx.plan(), ctx.estimate()));
}

std::vector<QString> validationBodies(const ReportContext& ctx)
{
    return validationStages(ctx.analysis());
}

QString viewHtml(ReportView view, const ReportContext& ctx, int section, double scale)
{
    if (view == ReportView::Derivation)
        return derivationhtml::render(ctx.derivation(), section, scale);
    if (!isTextView(view))
        return {};
    // The section's text as the report holds it (ReportSection.h), in a page at this scale.
    return htmlPage(reportsections::text(ctx.section(view)), scale);
}

namespace {

// A paginated text flow: QTextDocument breaks pages between lines, never through one.
void layoutDocument(QTextDocument& doc, const QString& html, const QSizeF& size)
{
    doc.setDefaultFont(font(10));
    doc.setHtml(html);
    doc.setPageSize(size);
}

void paintHtmlPage(QPainter& p, const QRectF& rect, const QString& html, int pageIndex)
{
    QTextDocument doc;
    layoutDocument(doc, html, rect.size());
    p.save();
    p.translate(rect.topLeft() - QPointF(0, pageIndex * rect.height()));
    const QRectF clip(0, pageIndex * rect.height(), rect.width(), rect.height());
    p.setClipRect(clip);
    doc.drawContents(&p, clip);
    p.restore();
}

}  // namespace

// Derivation pages hold whole steps: greedily pack steps while the rendered height fits.
std::vector<std::pair<int, int>> derivationPages(const ReportContext& ctx, int section, const QSizeF& size, double scale)
{
    const auto& sections = ctx.derivation();
    std::vector<std::pair<int, int>> pages;
    if (section < 0 || section >= int(sections.size()))
        return {{0, 0}};
    const int steps = int(sections[size_t(section)].steps.size());
    int first = 0;
    while (first < steps) {
        int last = first + 1;
        while (last < steps) {
            QTextDocument doc;
            doc.setDefaultFont(font(10));
            doc.setHtml(derivationhtml::render(sections, section, scale, first, last + 1));
            doc.setTextWidth(size.width());
            if (doc.size().height() > size.height())
                break;
            ++last;
        }
        pages.push_back({first, last});
        first = last;
    }
    return pages.empty() ? std::vector<std::pair<int, int>>{{0, 0}} : pages;
}

bool isTextView(ReportView view)
{
    switch (view) {
    case ReportView::Summary:
    case ReportView::Memory:
    case ReportView::StepTime:
    case ReportView::Timeline:
    case ReportView::Layout:
    case ReportView::Sizing:
    case ReportView::Sensitivity: return false;
    default: return true;
    }
}

double htmlHeight(const QString& html, double width)
{
    QTextDocument doc;
    doc.setDefaultFont(font(10));
    doc.setHtml(html);
    doc.setTextWidth(width);
    return doc.size().height();
}

void paintHtmlFitted(QPainter& p, const QRectF& rect, const std::function<QString(double)>& html, double scale)
{
    QTextDocument doc;
    doc.setDefaultFont(font(10));
    for (double s = scale;; s *= 0.92) {
        doc.setHtml(html(s));
        doc.setTextWidth(rect.width());
        if (doc.size().height() <= rect.height() || s < scale * 0.6)
            break;
    }
    p.save();
    p.translate(rect.topLeft());
    const QRectF clip(0, 0, rect.width(), rect.height());
    p.setClipRect(clip);
    doc.drawContents(&p, clip);
    p.restore();
}

double layoutDiagramHeight(const ReportContext& ctx, double width, double scale)
{
    // Laid out in a tall rectangle, the drawing takes the height its width gives it; what it
    // covers (boxes, stacks, labels, legend) is the height it needs.
    LayoutDiagramPainter diagram;
    LayoutDiagramStyle style = diagram.style();
    style.interactiveHints = false;
    diagram.setStyle(style);
    diagram.setPlan(ctx.plan(), ctx.estimate());
    const QRectF tall(0, 0, width / scale, 2.0 * width / scale);
    diagram.layout(tall);
    const LayoutDiagramGeometry* g = diagram.geometry();
    if (!g)
        return 0.5 * width;
    // The drawing is what its boxes cover; the strips above and below it (titles, legend) are
    // anchored to the rectangle's edges, so they count by their own height, not their place.
    QRectF drawing;
    for (const auto& unit : g->units())
        drawing = drawing.united(unit.hull.boundingRect()).united(unit.stackHull.boundingRect());
    for (const auto& text : g->texts())
        if (g->diagramRect().contains(text.rect.center()))
            drawing = drawing.united(text.rect);
    if (drawing.isEmpty())
        return 0.5 * width;
    const double strips = (g->diagramRect().top() - tall.top()) + (tall.bottom() - g->diagramRect().bottom());
    return std::min(tall.height(), strips + drawing.height() + 24) * scale;
}

int pageCount(ReportView view, const ReportContext& ctx, const QSizeF& size, int section, double scale)
{
    // Drawings take one rectangle; the review sections shrink their type to fit one.
    if (!(view == ReportView::Inputs || view == ReportView::RedFlags || view == ReportView::Validation || view == ReportView::Derivation))
        return 1;
    if (view == ReportView::Derivation)
        return int(derivationPages(ctx, section, size, scale).size());
    QTextDocument doc;
    layoutDocument(doc, viewHtml(view, ctx, section, scale), size);
    return std::max(1, doc.pageCount());
}

void paint(ReportView view, const ReportContext& ctx, QPainter& p, const QRectF& rect, int section, double scale, int page)
{
    switch (view) {
    case ReportView::Summary: paintSummary(ctx, p, rect, scale); return;
    case ReportView::Memory: ctx.memoryChart().paint(p, rect, scale); return;
    case ReportView::StepTime: ctx.timeChart().paint(p, rect, scale); return;
    case ReportView::Timeline: {
        // The plan's own schedule with its in-flight strip, fitted to the whole step.
        TimelineScene timeline;
        timeline.setAnalysis(ctx.analysis());
        p.save();
        p.translate(rect.topLeft());
        p.scale(scale, scale);
        timeline.paint(p, QRectF(QPointF(0, 0), rect.size() / scale));
        p.restore();
        return;
    }
    case ReportView::Sensitivity: {
        // Predicted basis: which inputs move the run most, the step-time model swinging each.
        TornadoPainter tornado;
        tornado.setResult(ctx.sensitivity());
        p.save();
        p.translate(rect.topLeft());
        p.scale(scale, scale);
        tornado.paint(p, QRectF(QPointF(0, 0), rect.size() / scale));
        p.restore();
        return;
    }
    case ReportView::Layout: {
        // The diagram's sizes are logical pixels at 96 dpi; scale() enlarges it on slides.
        LayoutDiagramPainter diagram;
        LayoutDiagramStyle style = diagram.style();
        style.interactiveHints = false;
        diagram.setStyle(style);
        diagram.setPlan(ctx.plan(), ctx.estimate());
        p.save();
        p.translate(rect.topLeft());
        p.scale(scale, scale);
        diagram.paint(p, QRectF(QPointF(0, 0), rect.size() / scale));
        p.restore();
        return;
    }
    case ReportView::Sizing:
        ctx.sizingChart().paint(p, rect, scale);
        return;
    case ReportView::Inputs:
    case ReportView::RedFlags:
    case ReportView::Validation: paintHtmlPage(p, rect, viewHtml(view, ctx, section, scale), page); return;
    case ReportView::Ask:
    case ReportView::LayoutWhy:
    case ReportView::Communication:
    case ReportView::Reliability:
    case ReportView::Risks:
    case ReportView::Staging: paintHtmlFitted(p, rect, [&](double s) { return viewHtml(view, ctx, section, s); }, scale); return;
    case ReportView::Derivation: {
        const auto pages = derivationPages(ctx, section, rect.size(), scale);
        const auto [first, last] = pages[size_t(std::clamp(page, 0, int(pages.size()) - 1))];
        paintHtmlPage(p, rect, derivationhtml::render(ctx.derivation(), section, scale, first, last), 0);
        return;
    }
    }
}

}  // namespace reportpainter
