// What an import made of another tool's description of a run (a Hugging Face config.json, a
// Megatron-LM launch script): the plan, and for every key of the source what became of it. A key
// is either mapped to a plan field or listed with the reason it was not: nothing is dropped
// silently (docs/import-export.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/plan/Plan.h"

namespace trainplan {

// The note of a key that changes none of the plan's figures (a learning rate, a token id): the
// report lists such keys together, after the ones a person should look at.
inline constexpr const char* kNoEffectNote = "does not change parameters, FLOPs, memory or time";

struct ImportedKey {
    std::string key;    // as the source spells it: "num_key_value_heads", "--tensor-model-parallel-size"
    std::string field;  // the plan field it set ("model.kv_heads"); empty when not mapped
    std::string note;   // how it was read, or why it was not
};

struct ImportReport {
    std::string format;  // "huggingface", "megatron", "torchtitan" or "megatron-bridge"
    Plan plan;
    std::vector<ImportedKey> mapped;
    std::vector<ImportedKey> unmapped;
    std::vector<std::string> assumptions;  // what the source does not say and the plan took from the base plan
};

// The plan document an import built, read as any plan file is (every field checked); a problem
// is reported under the source's key that set the field ("num_attention_heads (model.attention_heads)").
Plan readImportedPlan(const nlohmann::json& document, const std::vector<ImportedKey>& mapped);

// The note for Megatron-Core's integer moe_layer_freq k > 1 (--moe-layer-freq k): it makes
// layers 0, k, 2k, ... MoE, and a plan's model.moe.layer_step k makes layers k - 1, 2k - 1, ...
// MoE (Hugging Face's interleave_moe_layer_step), so the import says how the two differ.
std::string megatronEveryKthLayerNote(int layers, int k);

// The report as JSON for `trainplan-cli import --json`: {"format", "plan", "mapped", "unmapped",
// "assumptions"}; each key as {"key", "field", "note"}.
nlohmann::json importReportToJson(const ImportReport& report);
// The report for a person, for standard error: one line per unmapped key and assumption.
std::string importReportToText(const ImportReport& report);

}  // namespace trainplan
