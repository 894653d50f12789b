// Everything an export needs, detached from the live window: a private copy of the plan
// (its own PlanDocument, so an export never sees a half-finished edit) and the chart
// widgets that render into any painter.
#pragma once

#include <QDateTime>
#include <QString>

#include <memory>

#include "estimate/Estimate.h"

class MemoryChart;
class PlanDocument;
class TimeBreakdownChart;

class ReportContext {
public:
    explicit ReportContext(const trainplan::Plan& plan, QString sourceName = {});
    ~ReportContext();

    const trainplan::Plan& plan() const;
    const trainplan::Estimate& estimate() const;
    PlanDocument* document() const { return doc_.get(); }
    QString title() const;        // the plan's name, or the file's
    QString sourceName() const { return sourceName_; }
    QDateTime created() const { return created_; }

    MemoryChart* memoryChart();
    TimeBreakdownChart* timeChart();

private:
    std::unique_ptr<PlanDocument> doc_;
    QString sourceName_;
    QDateTime created_;
    std::unique_ptr<MemoryChart> memory_;
    std::unique_ptr<TimeBreakdownChart> time_;
};
