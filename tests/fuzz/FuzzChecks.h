// What every fuzz target checks of a plan the reader accepted: the analysis runs, every figure
// is finite, and what the writer makes of the plan reads back. A failed check aborts, which
// libFuzzer reports with the input that caused it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"
#include "core/base/BoundedJson.h"
#include "core/planfile/PlanFile.h"
#include "core/text/EstimateJson.h"
#include "core/text/PredictedScheduleJson.h"

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

// A rejection must say what and why: at least one problem, each with a message.
inline void requireReasonedRejection(const trainplan::PlanError& e)
{
    if (e.problems().empty())
        fail("a rejection without a problem");
    for (const auto& p : e.problems())
        if (p.message.empty())
            fail("a rejection of " + p.path + " without a reason");
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

// Text a person or a script reads: present and valid UTF-8 (a name cut inside a character, or
// bytes copied through unchecked, would break every reader downstream).
inline void requireText(const std::string& text, const std::string& what)
{
    if (text.empty())
        fail(what + " is empty");
    if (!trainplan::isValidUtf8(text))
        fail(what + " is not valid UTF-8");
}

// What a writer gives a script: every number finite and the document serialisable (nlohmann's
// dump throws on a string that is not UTF-8).
inline std::string requireDumpable(const nlohmann::json& j, const std::string& what)
{
    requireFinite(j, what);
    try {
        return j.dump(2);
    } catch (const nlohmann::json::exception& e) {
        fail(what + " cannot be written: " + e.what());
    }
}

// The input of the targets beyond the reader: a plan document that may carry, at its top level,
// a "fuzz" object of target options (e.g. {"objective": "cost", "top": 3}); it is removed before
// the plan reader sees the document. False when the reader rejects the input (PlanError).
inline bool readPlanInput(const uint8_t* data, size_t size, trainplan::Plan& plan, nlohmann::json& options)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    options = nlohmann::json::object();
    try {
        nlohmann::json doc = trainplan::parseJsonBounded(text, "the plan");
        if (doc.is_object()) {
            const auto it = doc.find("fuzz");
            if (it != doc.end()) {
                if (it->is_object())
                    options = *it;
                doc.erase(it);
            }
        }
        plan = trainplan::planFromJson(doc);
    } catch (const trainplan::PlanError&) {
        return false;
    }
    return true;
}

// Target options, read leniently: a missing or mistyped option takes its fallback, a number is
// clamped into [lo, hi].
inline double optionNumber(const nlohmann::json& options, const char* key, double lo, double hi, double fallback)
{
    const auto it = options.find(key);
    if (it == options.end() || !it->is_number())
        return fallback;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::clamp(v, lo, hi) : fallback;
}
inline bool optionBool(const nlohmann::json& options, const char* key, bool fallback)
{
    const auto it = options.find(key);
    return it != options.end() && it->is_boolean() ? it->get<bool>() : fallback;
}
inline std::string optionText(const nlohmann::json& options, const char* key, const std::string& fallback)
{
    const auto it = options.find(key);
    return it != options.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace fuzzchecks
