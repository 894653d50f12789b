#include "report/ReportContext.h"

#include "charts/MemoryChart.h"
#include "document/PlanDocument.h"
#include "charts/TimeBreakdownChart.h"

ReportContext::ReportContext(const trainplan::Plan& plan, QString sourceName)
    : doc_(std::make_unique<PlanDocument>())
    , sourceName_(std::move(sourceName))
    , created_(QDateTime::currentDateTime())
{
    doc_->resetTo(plan);
}

ReportContext::~ReportContext() = default;

const trainplan::Plan& ReportContext::plan() const
{
    return doc_->plan();
}

const trainplan::Estimate& ReportContext::estimate() const
{
    return doc_->estimate();
}

QString ReportContext::title() const
{
    if (!plan().name.empty())
        return QString::fromStdString(plan().name);
    return sourceName_.isEmpty() ? QStringLiteral("Untitled plan") : sourceName_;
}

MemoryChart* ReportContext::memoryChart()
{
    if (!memory_)
        memory_ = std::make_unique<MemoryChart>(doc_.get());
    return memory_.get();
}

TimeBreakdownChart* ReportContext::timeChart()
{
    if (!time_)
        time_ = std::make_unique<TimeBreakdownChart>(doc_.get());
    return time_.get();
}
