// The window's recovery file (ui/document/RecoveryStore): a session's latest unsaved plan, where
// it was edited from and when it was written. Versioned JSON, like a plan file:
//
//   {"format": "trainplan.recovery", "version": 1,
//    "original_path": "/home/me/plans/70b.json",   (empty for a plan never saved)
//    "saved_at": "2024-05-01T12:00:00Z",            (ISO 8601)
//    "plan": { ...a plan document (PlanIO.h)... }}
//
// The reader is the window's first contact with a file left by a process that died, so it is as
// strict as the plan reader: bounded nesting (BoundedJson.h), and every problem is a PlanError
// naming the field ("plan.layout.tp", "saved_at") and the reason.
#pragma once

#include <string>

#include "core/base/PlanError.h"
#include "core/plan/Plan.h"

namespace trainplan {

inline constexpr const char* kRecoveryFormat = "trainplan.recovery";
inline constexpr int kRecoveryVersion = 1;

struct RecoveryDocument {
    std::string originalPath;  // the plan file it was edited from; empty for a new plan
    std::string savedAt;       // ISO 8601 date and time as written, e.g. "2024-05-01T12:00:00Z"
    Plan plan;
};

// The file's bytes (pretty JSON, newline-terminated). Throws PlanError naming original_path or
// saved_at when one is not valid UTF-8 (or saved_at not an ISO 8601 date and time), and "plan"
// when a text of the plan is not valid UTF-8: what is written always reads back.
std::string recoveryDocumentToText(const Plan& plan, const std::string& originalPath, const std::string& savedAtIso);

// Throws PlanError on anything wrong: not JSON or nested deeper than kMaxJsonDepth (""), not an
// object (""), a wrong or missing format ("format") or version ("version"), a missing or
// wrong-typed original_path or saved_at, an unknown key, and a plan the plan reader rejects
// (its problems, each path prefixed "plan.").
RecoveryDocument parseRecoveryDocument(const std::string& bytes);

}  // namespace trainplan
