// Two or more plans being compared, detached from any window: each plan's report context (its
// own analysis and chart painters, as an export of it would have) and the comparison of their
// figures and inputs (core/text/PlanComparison.h). The window's comparison view, the comparison
// PDF and `trainplan-cli compare --pdf` read this one object; it computes no figure (the caller
// analyses each plan).
#pragma once

#include <QString>

#include <memory>
#include <vector>

#include "core/text/PlanComparison.h"
#include "render/report/ReportContext.h"

class ComparisonSet {
public:
    // One analysis per plan, first the one the others are measured against; `sources` names
    // where each came from ("a.json", "current plan (live)"), as long as `analyses` or empty.
    ComparisonSet(std::vector<trainplan::Analysis> analyses, const std::vector<QString>& sources);

    int size() const { return int(plans_.size()); }
    const ReportContext& plan(int index) const { return *plans_[size_t(index)]; }
    QString letter(int index) const;  // "A", "B", …
    QString source(int index) const { return sources_[size_t(index)]; }
    // "A  Llama 3 70B, TP 8 × PP 4 …": the letter and the plan's title.
    QString heading(int index) const;
    const trainplan::PlanComparison& comparison() const { return comparison_; }

private:
    std::vector<std::unique_ptr<ReportContext>> plans_;
    std::vector<QString> sources_;
    trainplan::PlanComparison comparison_;
};
