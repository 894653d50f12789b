// Ranking of the layout search's fitting layouts: objective order, Pareto front, simplest.
#pragma once

#include <vector>

#include "core/search/LayoutSearch.h"

namespace trainplan {

// The row's value under the objective (smaller is better).
double objectiveValue(const SearchRow& row, SearchObjective objective);

// The fitting rows the ranking reads (every one, or the shortlist of SearchShortlist.h), in
// enumeration order (the index breaks ties): pointers, as
// the search's workers keep their rows where they made them rather than copying them together.
using SearchRowRefs = std::vector<SearchRow*>;

// Marks the Pareto front of memory against time and the simplest layout among `fitting`, and
// fills result.rows with the best options.top rows plus every flagged one, best first.
void rankSearchRows(const SearchRowRefs& fitting, const SearchOptions& options, int gpusPerNode, SearchResult& result);

}  // namespace trainplan
