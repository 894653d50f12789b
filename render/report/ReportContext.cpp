#include "report/ReportContext.h"

ReportContext::ReportContext(trainplan::Analysis analysis, QString sourceName)
    : analysis_(std::move(analysis))
    , sourceName_(std::move(sourceName))
    , created_(QDateTime::currentDateTime())
{
    memory_.setEstimate(analysis_.estimate);
    memory_.setRange(analysis_.memoryRange.lowBytes, analysis_.memoryRange.highBytes);
    time_.setAnalysis(analysis_);
}

QString ReportContext::title() const
{
    if (!plan().name.empty())
        return QString::fromStdString(plan().name);
    return sourceName_.isEmpty() ? QStringLiteral("Untitled plan") : sourceName_;
}
