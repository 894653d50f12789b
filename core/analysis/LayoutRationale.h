// Why this layout: what the layout search found for the plan's model and cluster, and a few
// neighbouring layouts (one dimension traded against DP, or another ZeRO stage), each analysed
// like the plan itself, with the reason it loses: it does not fit, it breaks a rule, or its
// predicted step is slower. Analysis, not presentation: the report's "layout and why" section
// and slide (render/report) phrase it.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/search/LayoutSearch.h"

namespace trainplan {

struct LayoutAlternative {
    std::string name;      // "PP 2 × DP 128 (TP 8)": the layout, by what changed
    std::string verdict;   // "does not fit: 97.1 GB of 80.0 GB on stage 1"
    bool rejected = false; // does not fit or breaks an error-level rule (else it only loses on time)
    bool faster = false;   // fits and its predicted step is shorter than the plan's
    double stepSeconds = 0;  // predicted (0 when rejected)
    double memoryBytes = 0;  // fullest GPU
};

struct LayoutRationale {
    long long evaluated = 0;  // layouts the search estimated
    long long fitting = 0;    // of those, the ones that fit with the memory margin
    bool planFits = false;
    bool searchFoundBetter = false;   // the search's fastest option is faster than the plan (predicted)
    SearchLayout fastest;  // the search's fastest option
    double fastestStepSeconds = 0;    // its predicted step, analysed like the plan
    SearchLayout simplest;
    double simplestStepSeconds = 0;
    std::vector<std::string> constraints;      // what decides this layout, one line each
    std::vector<LayoutAlternative> alternatives;  // up to three, rejected ones first
};

// Runs the layout search (grouped, top 5) and analyses the neighbours; a second or so for a
// large cluster. Pure: the same analysis gives the same rationale.
LayoutRationale layoutRationale(const Analysis& analysis);
// "TP 8 × PP 4 × DP 64 × CP 1, ZeRO-1, selective recompute, b 1"
std::string describeLayout(const SearchLayout& layout);

}  // namespace trainplan
