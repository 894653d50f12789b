// The readable estimate: aligned text for the CLI, Markdown for export; with units, grouped like a plan.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/schedule/Schedule.h"
#include "core/search/LayoutSearch.h"

namespace trainplan {

enum class ReportNotation { Text, Markdown };

// The estimate's figures, grouped like a plan: the predicted step first (the headline), the
// assumed MFU as a comparison, then memory, pipeline, communication, reliability, warnings.
std::string estimateReport(const Analysis& analysis, ReportNotation notation, const std::string& title);
// The CLI's text report, with the derivation appended when asked.
std::string estimateToText(const Analysis& analysis, bool withDerivation);
// What a report is titled: the plan's name, else the name of the file it came from, else
// "Untitled plan" (the PDF, the slides and the Markdown report alike).
std::string reportTitle(const Plan& plan, const std::string& sourceName);
// The whole report as Markdown (what `export --markdown` and the window's File → Export write):
// the figures as tables, the warnings, then every derivation step, under the given title.
std::string estimateToMarkdown(const Analysis& analysis, const std::string& title);
// The analysis's simulated schedule; its step is the predicted step (pipeline, exposed DP, optimizer).
std::string scheduleToText(const Analysis& analysis);
std::string searchToText(const SearchResult& result);
// "0 errors, 1 warning, 2 notes": severities counted and pluralised (for every summary line).
std::string warningCounts(const std::vector<Warning>& warnings);

// The parameters card's detail line, the window's and the PDF's: the mean per GPU, and for an MoE
// model what a token touches ("37.55 billion active · 1.74e9 per GPU (avg)").
std::string parametersDetail(const Plan& plan, const Estimate& estimate);
// "19.8 tok/param": training tokens per (active) parameter (against ~20: core/estimate/ComputeOptimal.h).
std::string tokensPerParameterText(const Plan& plan, const Estimate& estimate);
// Where the layers' GEMMs run in FP8 or FP4, MFU and HFU stay counted against the BF16 peak
// (docs/plan-format.md) and may pass 100 %: "BF16 peak; 29.0 % of nvfp4 peak" (HFU at the
// format's own peak), for every view to put beside them; empty for BF16 GEMMs.
std::string formatPeakNote(const Plan& plan, const PredictedStep& predicted);
// The FLOPs card's terms: "6ND − lookups + attention", or for MoE, MLA and MTP models the count
// they follow ("Megatron-LM count, 2.60e11 per token"); withValues gives each term's value.
std::string flopsTermsText(const Plan& plan, const Estimate& estimate, bool withValues);

}  // namespace trainplan
