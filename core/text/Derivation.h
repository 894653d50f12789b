// The arithmetic behind every figure, step by step, as the worked examples show it:
// the formula in symbols, the same formula with this plan's numbers, the result with
// units, and its source. Built on demand from a plan and its estimate; every value is
// the estimate's own number (tests check this), so the text can never drift from it.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/estimate/Estimate.h"

namespace trainplan {

struct DerivationStep {
    std::string id;           // stable, e.g. "compute.flops_6nd"
    std::string title;        // "Training FLOPs, 6ND"
    std::string formula;      // "6 · N · D"
    std::string substituted;  // "6 × 70.55e9 × 1.4e12"
    double value = 0;         // in SI units (bytes, FLOPs, seconds) or a plain count
    std::string unit;         // "FLOPs", "bytes", "s", "", ...
    std::string result;       // "5.93e23 FLOPs"
    std::string source;       // where the formula comes from, e.g. "Kaplan et al. 2020, Sec. 2.1"
    std::string note;         // optional remark; a worked example's own figure "for comparison"
};

struct DerivationSection {
    std::string title;
    std::vector<DerivationStep> steps;
};

std::vector<DerivationSection> derive(const Plan& plan, const Estimate& est);
// The same for an analysis (its plan and the estimate at the assumed MFU).
std::vector<DerivationSection> derive(const Analysis& analysis);

// Finds a step by id across sections; nullptr when absent.
const DerivationStep* findStep(const std::vector<DerivationSection>& sections, const std::string& id);

// Markdown and plain-text renderings (the report's "Show the math", CLI text).
// False when the substituted line would only say the result again: a given value ("60 s"
// beside "60.0 s") or a lone figure, no arithmetic. Views then show formula = result and
// skip the "= value = value" repetition.
bool substitutionAddsToResult(const DerivationStep& step);

std::string derivationToMarkdown(const std::vector<DerivationSection>& sections);
std::string derivationToText(const std::vector<DerivationSection>& sections);

}  // namespace trainplan
