#include "render/report/ReportContext.h"

#include "core/text/TextReport.h"

ReportContext::ReportContext(trainplan::Analysis analysis, QString sourceName)
    : analysis_(std::move(analysis))
    , sourceName_(std::move(sourceName))
    , created_(QDateTime::currentDateTime())
{
    memory_.setEstimate(analysis_.estimate);
    memory_.setRange(analysis_.memoryRange);
    time_.setAnalysis(analysis_);
}

void ReportContext::setSizing(trainplan::SizingResult sizing)
{
    sizing_ = std::move(sizing);
    sizingChart_.setResult(&*sizing_);
    sections_.reset();
}

QString ReportContext::title() const
{
    return QString::fromStdString(trainplan::reportTitle(plan(), sourceName_.toStdString()));
}

const std::vector<trainplan::DerivationSection>& ReportContext::derivation() const
{
    if (!derivation_)
        derivation_ = trainplan::derive(analysis_);
    return *derivation_;
}

const std::vector<ReportSection>& ReportContext::sections() const
{
    if (!sections_)
        sections_ = reportsections::build(*this);
    return *sections_;
}

const ReportSection& ReportContext::section(ReportView kind, int index) const
{
    for (const ReportSection& s : sections())
        if (s.kind == kind && (kind != ReportView::Derivation || s.section == index))
            return s;
    static const ReportSection none;
    return none;
}
