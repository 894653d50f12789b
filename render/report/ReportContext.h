// Everything an export needs, detached from the live window: one analysis of the plan
// (its own copy, so an export never sees a half-finished edit; what the analysis computes on
// first use, such as sensitivity, is shared with the window's), the chart painters drawn from
// it, and the report as data: its sections (ReportSection.h) and the derivation, each built once
// on first use and read by the PDF, the slides and presentation mode alike. QtGui only: the CLI
// exports with no widgets. It computes no figure: the caller analyses the plan
// (trainplan::analyse()).
#pragma once

#include <QDateTime>
#include <QString>

#include <optional>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/analysis/LayoutRationale.h"
#include "core/analysis/Sensitivity.h"
#include "core/sizing/ClusterSizing.h"
#include "core/text/Derivation.h"
#include "render/charts/MemoryChartPainter.h"
#include "render/charts/StepTimeChartPainter.h"
#include "render/report/ReportSection.h"
#include "render/sizing/SizingChartPainter.h"

class ReportContext {
public:
    explicit ReportContext(trainplan::Analysis analysis, QString sourceName = {});

    const trainplan::Analysis& analysis() const { return analysis_; }
    const trainplan::Plan& plan() const { return analysis_.plan; }
    const trainplan::Estimate& estimate() const { return analysis_.estimate; }
    QString title() const;  // the plan's name, or the file's
    QString sourceName() const { return sourceName_; }
    QDateTime created() const { return created_; }

    const MemoryChartPainter& memoryChart() const { return memory_; }
    const StepTimeChartPainter& timeChart() const { return time_; }
    // The layout search and neighbouring layouts behind "the layout and why" (the analysis's).
    const trainplan::LayoutRationale& layoutRationale() const { return analysis_.layoutRationale(); }
    // Which inputs move the run's days most, on the predicted basis (the analysis's).
    const trainplan::SensitivityResult& sensitivity() const { return analysis_.sensitivity(trainplan::SensitivityBasis::Predicted); }

    // The sizing of this plan's cluster (from a deadline and a budget), when one was asked for:
    // the report then has a sizing section. Set it before the sections are first read.
    void setSizing(trainplan::SizingResult sizing);
    const trainplan::SizingResult* sizing() const { return sizing_ ? &*sizing_ : nullptr; }
    const SizingChartPainter& sizingChart() const { return sizingChart_; }

    // The report's sections in the document's order, built on first use.
    const std::vector<ReportSection>& sections() const;
    // The first section of a kind (the `index`th derivation section for Derivation); an empty
    // section when there is none.
    const ReportSection& section(ReportView kind, int index = 0) const;
    // The derivation's sections (trainplan::derive() of the analysis), made on first use.
    const std::vector<trainplan::DerivationSection>& derivation() const;

private:
    trainplan::Analysis analysis_;
    QString sourceName_;
    QDateTime created_;
    MemoryChartPainter memory_;
    StepTimeChartPainter time_;
    std::optional<trainplan::SizingResult> sizing_;
    SizingChartPainter sizingChart_;
    mutable std::optional<std::vector<trainplan::DerivationSection>> derivation_;
    mutable std::optional<std::vector<ReportSection>> sections_;
};
