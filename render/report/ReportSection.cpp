#include "render/report/ReportSection.h"

#include <QObject>

#include "render/report/ReportContext.h"
#include "render/report/ReviewHtml.h"
#include "render/sizing/SizingReport.h"

namespace reportsections {

namespace {

ReportPart drawingPart(ReportView view)
{
    ReportPart part;
    part.kind = ReportPartKind::Drawing;
    part.view = view;
    return part;
}

ReportPart textPart(QString html)
{
    ReportPart part;
    part.kind = ReportPartKind::Text;
    part.html = std::move(html);
    return part;
}

ReportSection section(ReportView kind, QString title, std::vector<ReportPart> parts, bool headed = true, bool inDocument = true)
{
    ReportSection s;
    s.kind = kind;
    s.title = std::move(title);
    s.headed = headed;
    s.inDocument = inDocument;
    s.parts = std::move(parts);
    return s;
}

}  // namespace

std::vector<ReportSection> build(const ReportContext& ctx)
{
    using reportpainter::viewTitle;
    std::vector<ReportSection> out;
    // The first page: the title with the ask, the headline figures and the red flags, under the
    // page header "Summary" and no heading.
    const QString summary = QObject::tr("Summary");
    ReportPart title;
    title.kind = ReportPartKind::Title;
    title.html = reviewhtml::askLine(ctx);
    out.push_back(section(ReportView::Summary, summary, {title, drawingPart(ReportView::Summary)}, false));
    out.push_back(section(ReportView::RedFlags, summary, {textPart(reviewhtml::redFlags(ctx))}, false));
    out.push_back(section(ReportView::Ask, viewTitle(ReportView::Ask, ctx), {textPart(reviewhtml::ask(ctx))}, true, false));
    out.push_back(section(ReportView::LayoutWhy, viewTitle(ReportView::LayoutWhy, ctx), {textPart(reviewhtml::layoutWhy(ctx))}));
    if (const trainplan::SizingResult* sizing = ctx.sizing()) {
        // How many GPUs of which kind, when asked: the answer, the chart, then each accelerator's
        // front as its own part so a page breaks between accelerators (every row: size --pdf).
        std::vector<ReportPart> parts{textPart(sizingreport::sentencesHtml(*sizing)), drawingPart(ReportView::Sizing)};
        std::vector<std::string> accelerators;
        for (const trainplan::SizingPoint& p : sizing->points)
            if (p.usable && std::find(accelerators.begin(), accelerators.end(), p.accelerator) == accelerators.end())
                accelerators.push_back(p.accelerator);
        for (const std::string& accelerator : accelerators)
            parts.push_back(textPart(sizingreport::tableHtml(*sizing, accelerator, true)));
        out.push_back(section(ReportView::Sizing, viewTitle(ReportView::Sizing, ctx), std::move(parts)));
    }
    out.push_back(section(ReportView::Inputs, QObject::tr("Inputs"), {textPart(reportpainter::inputsBody(ctx))}));
    // Memory and step time: one heading; the step time continues the section.
    const QString memory = QObject::tr("Memory and step time");
    out.push_back(section(ReportView::Memory, memory, {drawingPart(ReportView::Memory), textPart(reviewhtml::memoryTable(ctx))}));
    out.push_back(section(ReportView::StepTime, memory, {drawingPart(ReportView::StepTime), textPart(reviewhtml::stepTable(ctx))}, false));
    out.push_back(section(ReportView::Timeline, QObject::tr("Pipeline schedule"), {drawingPart(ReportView::Timeline)}));
    out.push_back(section(ReportView::Layout, QObject::tr("Layout on the hardware"), {drawingPart(ReportView::Layout)}));
    out.push_back(
        section(ReportView::Communication, viewTitle(ReportView::Communication, ctx), {textPart(reviewhtml::communication(ctx))}));
    out.push_back(section(ReportView::Reliability, viewTitle(ReportView::Reliability, ctx), {textPart(reviewhtml::reliability(ctx))}));
    out.push_back(section(ReportView::Sensitivity, QObject::tr("Sensitivity"), {drawingPart(ReportView::Sensitivity)}));
    out.push_back(section(ReportView::Risks, viewTitle(ReportView::Risks, ctx), {textPart(reviewhtml::risks(ctx))}));
    out.push_back(
        section(ReportView::Staging, viewTitle(ReportView::Staging, ctx), {textPart(reviewhtml::validationStages(ctx))}, true, false));
    // The validation plan a stage a part, so it can start at the foot of a page.
    std::vector<ReportPart> stages;
    for (QString& stage : reportpainter::validationBodies(ctx))
        stages.push_back(textPart(std::move(stage)));
    out.push_back(section(ReportView::Validation, QObject::tr("Validation and reliability plan"), std::move(stages)));
    // The derivation, a step a part, so pages break between steps and never leave a section's
    // tail alone on a page of its own.
    const auto& derivation = ctx.derivation();
    for (int s = 0; s < int(derivation.size()); ++s) {
        std::vector<ReportPart> steps;
        for (int step = 0; step < int(derivation[size_t(s)].steps.size()); ++step) {
            ReportPart part;
            part.kind = ReportPartKind::Derivation;
            part.section = s;
            part.first = step;
            part.last = step + 1;
            steps.push_back(part);
        }
        ReportSection math = section(ReportView::Derivation, viewTitle(ReportView::Derivation, ctx, s), std::move(steps));
        math.section = s;
        out.push_back(std::move(math));
    }
    return out;
}

QString text(const ReportSection& section, ReportPartKind kind)
{
    QString out;
    for (const ReportPart& part : section.parts)
        if (part.kind == kind)
            out += part.html;
    return out;
}

}  // namespace reportsections
