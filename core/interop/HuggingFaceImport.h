// A Hugging Face config.json as a plan's model (docs/import-export.md, "Hugging Face"): the
// Llama, Mistral/Mixtral, Qwen2/Qwen3 (dense and MoE), DeepSeek-V2/V3, GPT-OSS, Gemma 1-3,
// GPT-NeoX and Llama 4 families key by key. The model replaces the base plan's; its cluster,
// training and layout stay. Every key of the config is mapped or listed with why not.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/interop/ImportReport.h"

namespace trainplan {

// Whether a parsed JSON document looks like a Hugging Face model config (not a plan).
bool looksLikeHuggingFaceConfig(const nlohmann::json& document);

// sourceName names the model when the config does not (a folder's name, "Llama-3.1-8B").
// Throws PlanError naming the config's key for a value of the wrong type, and the key and the
// plan field for a value the plan cannot hold.
ImportReport importHuggingFaceConfig(const nlohmann::json& config, const Plan& base, const std::string& sourceName = {});

}  // namespace trainplan
