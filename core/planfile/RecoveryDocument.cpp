#include "core/planfile/RecoveryDocument.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/BoundedJson.h"
#include "core/planfile/PlanFile.h"

namespace trainplan {

using nlohmann::json;

namespace {

// A value as a message quotes it: its JSON, shortened.
std::string describe(const json& v)
{
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40) {
        s.resize(37);
        s.append("...");
    }
    return s;
}

bool digits(const std::string& s, size_t at, size_t count, int& value)
{
    if (at + count > s.size())
        return false;
    value = 0;
    for (size_t i = at; i < at + count; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        value = value * 10 + (s[i] - '0');
    }
    return true;
}

// "2024-05-01T12:00:00Z", with optional fractional seconds and a "Z" or "+HH:MM" offset: what
// QDateTime writes and reads as Qt::ISODate (ISO 8601 extended format, a calendar date and time).
bool isIsoDateTime(const std::string& s)
{
    int year, month, day, hour, minute, second;
    if (!digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, month) || s[7] != '-' || !digits(s, 8, 2, day) ||
        s[10] != 'T' || !digits(s, 11, 2, hour) || s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' || !digits(s, 17, 2, second))
        return false;
    static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month < 1 || month > 12 || day < 1 || day > kDaysIn[month - 1] || (month == 2 && day == 29 && !leap))
        return false;
    if (hour > 23 || minute > 59 || second > 59)
        return false;
    size_t at = 19;
    if (at < s.size() && s[at] == '.') {
        const size_t first = ++at;
        while (at < s.size() && s[at] >= '0' && s[at] <= '9')
            ++at;
        if (at == first)
            return false;
    }
    if (at == s.size())
        return true;
    if (s[at] == 'Z')
        return at + 1 == s.size();
    int offsetHours, offsetMinutes;
    return (s[at] == '+' || s[at] == '-') && at + 6 == s.size() && digits(s, at + 1, 2, offsetHours) && s[at + 3] == ':' &&
           digits(s, at + 4, 2, offsetMinutes) && offsetHours <= 23 && offsetMinutes <= 59;
}

const char* const kKeys[] = {"format", "version", "original_path", "saved_at", "plan"};

}  // namespace

std::string recoveryDocumentToText(const Plan& plan, const std::string& originalPath, const std::string& savedAtIso)
{
    if (!isValidUtf8(originalPath))
        throw PlanError(std::vector<PlanProblem>{{"original_path", "is not valid UTF-8"}});
    if (!isIsoDateTime(savedAtIso))
        throw PlanError(std::vector<PlanProblem>{{"saved_at",
            "must be an ISO 8601 date and time such as \"2024-05-01T12:00:00Z\", got \""
                + (isValidUtf8(savedAtIso) ? savedAtIso.substr(0, 40) : std::string("bytes that are not UTF-8")) + "\""}});
    const json doc = {{"format", kRecoveryFormat},
                      {"version", kRecoveryVersion},
                      {"original_path", originalPath},
                      {"saved_at", savedAtIso},
                      {"plan", planToJson(plan)}};
    try {
        return doc.dump(2) + "\n";
    } catch (const json::type_error& e) {
        // 316: a string that is not UTF-8; only the plan's texts are left unchecked above.
        throw PlanError(std::vector<PlanProblem>{{"plan", std::string("holds a text that is not valid UTF-8 (") + e.what() + ")"}});
    }
}

RecoveryDocument parseRecoveryDocument(const std::string& bytes)
{
    const json doc = parseJsonBounded(bytes, "the recovery file");
    if (!doc.is_object())
        throw PlanError(std::vector<PlanProblem>{{"", "a recovery file must be a JSON object, got " + describe(doc)}});

    const auto format = doc.find("format");
    if (format == doc.end())
        throw PlanError(std::vector<PlanProblem>{{"format", "is missing (not a TrainPlan recovery file)"}});
    if (!format->is_string() || format->get<std::string>() != kRecoveryFormat)
        throw PlanError(std::vector<PlanProblem>{
            {"format", "must be \"" + std::string(kRecoveryFormat) + "\", got " + describe(*format) + " (not a TrainPlan recovery file)"}});

    const auto version = doc.find("version");
    if (version == doc.end())
        throw PlanError(std::vector<PlanProblem>{{"version", "is missing"}});
    if (!version->is_number_integer())
        throw PlanError(std::vector<PlanProblem>{{"version", "must be a whole number, got " + describe(*version)}});
    if (version->is_number_unsigned() ? version->get<json::number_unsigned_t>() > json::number_unsigned_t(kRecoveryVersion)
                                      : version->get<json::number_integer_t>() > kRecoveryVersion)
        throw PlanError(std::vector<PlanProblem>{{"version",
            "is " + describe(*version) + ", newer than this TrainPlan reads (" + std::to_string(kRecoveryVersion)
                + "); open it with a newer TrainPlan"}});
    if (version->get<json::number_integer_t>() < kRecoveryVersion)
        throw PlanError(
            std::vector<PlanProblem>{{"version", "must be " + std::to_string(kRecoveryVersion) + ", got " + describe(*version)}});

    std::vector<PlanProblem> problems;
    for (const auto& [key, value] : doc.items()) {
        if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
            problems.push_back({key, "is not a known field of a recovery file"});
    }
    RecoveryDocument out;
    const auto text = [&](const char* key, std::string& into) {
        const auto it = doc.find(key);
        if (it == doc.end())
            problems.push_back({key, "is missing"});
        else if (!it->is_string())
            problems.push_back({key, "must be a string, got " + describe(*it)});
        else
            into = it->get<std::string>();
    };
    text("original_path", out.originalPath);
    text("saved_at", out.savedAt);
    if (doc.contains("saved_at") && doc["saved_at"].is_string() && !isIsoDateTime(out.savedAt))
        problems.push_back(
            {"saved_at", "must be an ISO 8601 date and time such as \"2024-05-01T12:00:00Z\", got " + describe(doc["saved_at"])});

    const auto plan = doc.find("plan");
    if (plan == doc.end()) {
        problems.push_back({"plan", "is missing"});
    } else if (!plan->is_object()) {
        problems.push_back({"plan", "must be an object (a plan document), got " + describe(*plan)});
    } else {
        try {
            out.plan = planFromJson(*plan);
        } catch (const PlanError& e) {
            for (const auto& p : e.problems())
                problems.push_back({p.path.empty() ? std::string("plan") : "plan." + p.path, p.message});
        }
    }
    if (!problems.empty())
        throw PlanError(std::move(problems));
    return out;
}

}  // namespace trainplan
