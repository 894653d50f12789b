// Shared helpers for the core tests: load an example plan, apply --set style overrides,
// and read any estimate figure by its JSON path (the same paths scripts use).
#pragma once

#include <QString>
#include <QtTest>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/estimate/Estimate.h"
#include "core/planfile/PlanFile.h"
#include "core/text/EstimateJson.h"

namespace testsupport {

inline std::string examplePath(const std::string& name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + name;
}

inline nlohmann::json readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
}

// A layout of the given parallel sizes and rank order, every other field as LayoutSpec has it.
inline trainplan::LayoutSpec layoutOf(int tp, int cp, int dp, int pp, trainplan::RankOrder order = trainplan::RankOrder::TpCpDpPp)
{
    trainplan::LayoutSpec l;
    l.tp = tp;
    l.cp = cp;
    l.dp = dp;
    l.pp = pp;
    l.rankOrder = order;
    return l;
}

inline trainplan::Plan planWith(const std::string& example, const std::vector<std::string>& overrides = {})
{
    nlohmann::json doc = readJsonFile(examplePath(example));
    for (const auto& o : overrides)
        trainplan::applyOverride(doc, o);
    return trainplan::planFromJson(doc);
}

inline nlohmann::json estimateJsonFor(const trainplan::Plan& plan)
{
    return trainplan::estimateToJson(trainplan::analyse(plan));
}

// "memory.per_gpu_bytes.total" or "memory.stages.0.total" -> the number there.
inline double figure(const nlohmann::json& doc, const std::string& dottedPath)
{
    std::string pointer = "/" + dottedPath;
    for (auto& c : pointer)
        if (c == '.')
            c = '/';
    const auto& v = doc.at(nlohmann::json::json_pointer(pointer));
    if (v.is_boolean())
        return v.get<bool>() ? 1.0 : 0.0;
    return v.get<double>();
}

inline bool hasPath(const nlohmann::json& doc, const std::string& dottedPath)
{
    std::string pointer = "/" + dottedPath;
    for (auto& c : pointer)
        if (c == '.')
            c = '/';
    return doc.contains(nlohmann::json::json_pointer(pointer));
}

inline QStringList splitOverrides(const QString& s)
{
    return s.isEmpty() ? QStringList{} : s.split(' ', Qt::SkipEmptyParts);
}

inline std::vector<std::string> toStd(const QStringList& list)
{
    std::vector<std::string> out;
    for (const auto& s : list)
        out.push_back(s.toStdString());
    return out;
}

}  // namespace testsupport
