// Importing whatever a person points at: a Hugging Face config.json, a model folder holding one,
// a Megatron-LM launch script, or an argument list (one line, or a JSON array of strings), a
// torchtitan TOML config, a Megatron-Bridge / NeMo override YAML. What it is is read from the
// contents (and .yaml / .yml names a YAML file).
#pragma once

#include <string>

#include "core/interop/ImportReport.h"

namespace trainplan {

// text: the file's bytes; name: how to call it in messages and, for a config, the model's name
// when the config has none. Throws PlanError for contents that are neither kind, or a plan.
ImportReport importText(const std::string& text, const std::string& name, const Plan& base);
// A file or a folder (its config.json). Throws PlanError naming the path for one that cannot be read.
ImportReport importPath(const std::string& path, const Plan& base);

}  // namespace trainplan
