// A YAML document as JSON, for the Megatron-Bridge importer (MegatronBridgeConfig.h): the subset
// its override files and dumped ConfigContainers use (YAML 1.2, yaml.org/spec/1.2.2): block
// mappings by indentation, block sequences ("- item", items may be mappings), flow sequences and
// flow mappings on one line ([a, b], {a: 1}), comments, and scalars resolved as the core schema
// does: null (null, ~, nothing), true/false (any case), integers, floats (1e-4, .inf, .nan),
// single- and double-quoted strings, plain strings. Not: anchors and aliases, tags, block scalars
// (| and >), multi-line flow collections or quoted strings, several documents, complex keys.
// Throws PlanError with path "line N" and the reason. Depth and size are bounded, so hostile
// input is refused rather than exhausting the stack.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace trainplan {

nlohmann::json parseYamlTree(std::string_view text);

}  // namespace trainplan
