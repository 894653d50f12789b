// The CLI's readable estimate: aligned, with units, grouped like a plan.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/schedule/Schedule.h"
#include "core/search/LayoutSearch.h"

namespace trainplan {

std::string estimateToText(const Analysis& analysis, bool withDerivation);
// The analysis's simulated schedule; its step is the predicted step (pipeline, exposed DP, optimizer).
std::string scheduleToText(const Analysis& analysis);
std::string searchToText(const SearchResult& result);
// "0 errors, 1 warning, 2 notes": severities counted and pluralised (for every summary line).
std::string warningCounts(const std::vector<Warning>& warnings);

}  // namespace trainplan
