// The CLI's readable estimate: aligned, with units, grouped like a plan.
#pragma once

#include <string>

#include "estimate/Estimate.h"
#include "search/LayoutSearch.h"
#include "schedule/Schedule.h"

namespace trainplan {

std::string estimateToText(const Plan& plan, const Estimate& est, bool withDerivation);
std::string scheduleToText(const ScheduleResult& schedule);
std::string searchToText(const SearchResult& result);

}  // namespace trainplan
