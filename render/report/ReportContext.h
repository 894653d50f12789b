// Everything an export needs, detached from the live window: one analysis of the plan
// (its own copy, so an export never sees a half-finished edit) and the chart painters drawn
// from it. QtGui only: the CLI exports with no widgets.
#pragma once

#include <QDateTime>
#include <QString>

#include <optional>

#include "analysis/Analysis.h"
#include "analysis/Sensitivity.h"
#include "charts/MemoryChartPainter.h"
#include "charts/StepTimeChartPainter.h"
#include "analysis/LayoutRationale.h"

class ReportContext {
public:
    explicit ReportContext(const trainplan::Plan& plan, QString sourceName = {});
    explicit ReportContext(trainplan::Analysis analysis, QString sourceName = {});

    const trainplan::Analysis& analysis() const { return analysis_; }
    const trainplan::Plan& plan() const { return analysis_.plan; }
    const trainplan::Estimate& estimate() const { return analysis_.estimate; }
    QString title() const;  // the plan's name, or the file's
    QString sourceName() const { return sourceName_; }
    QDateTime created() const { return created_; }

    const MemoryChartPainter& memoryChart() const { return memory_; }
    const StepTimeChartPainter& timeChart() const { return time_; }
    // The layout search and neighbouring layouts behind "the layout and why", run on first use.
    const trainplan::LayoutRationale& layoutRationale() const;
    // Which inputs move the run's days most (predicted basis), run on first use.
    const trainplan::SensitivityResult& sensitivity() const;

private:
    trainplan::Analysis analysis_;
    QString sourceName_;
    QDateTime created_;
    MemoryChartPainter memory_;
    StepTimeChartPainter time_;
    mutable std::optional<trainplan::LayoutRationale> rationale_;
    mutable std::optional<trainplan::SensitivityResult> sensitivity_;
};
