// What every fuzz target checks of a plan the reader accepted: the analysis runs, every figure
// is finite, and what the writer makes of the plan reads back. A failed check aborts, which
// libFuzzer reports with the input that caused it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/Analysis.h"
#include "plan/PlanIO.h"
#include "text/EstimateJson.h"
#include "text/PredictedScheduleJson.h"

namespace fuzzchecks {

[[noreturn]] inline void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
    std::abort();
}

// Every number in the document is finite (nlohmann keeps NaN and inf as numbers and writes
// them as null, so a non-finite figure would reach scripts as null).
inline void requireFinite(const nlohmann::json& j, const std::string& path)
{
    if (j.is_number_float() && !std::isfinite(j.get<double>()))
        fail(path + " is not finite");
    if (j.is_object())
        for (const auto& [k, v] : j.items())
            requireFinite(v, path + "." + k);
    if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i)
            requireFinite(j[i], path + "[" + std::to_string(i) + "]");
}

inline void checkAcceptedPlan(const trainplan::Plan& plan)
{
    const trainplan::Analysis analysis = trainplan::analyse(plan);
    requireFinite(trainplan::estimateToJson(analysis), "estimate");
    // As the schedule verb does: a plan whose pipeline cannot be simulated is reported by field
    // (scheduleProblem) instead of written.
    if (!analysis.scheduleProblem)
        requireFinite(trainplan::predictedScheduleToJson(analysis, false), "schedule");
    else if (!analysis.scheduleProblem->field || !*analysis.scheduleProblem->field || analysis.scheduleProblem->message.empty())
        fail("a schedule problem without a field or a reason");
    const double mfu = analysis.predicted.mfu;
    if (!(mfu >= 0 && mfu <= 1.0 + 1e-9))
        fail("predicted MFU " + std::to_string(mfu) + " is outside [0, 1]");
    // What the writer makes of an accepted plan must read back.
    try {
        trainplan::planFromJson(trainplan::planToJson(plan));
    } catch (const trainplan::PlanError& e) {
        fail(std::string("the written plan does not read back: ") + e.what());
    }
}

}  // namespace fuzzchecks
