// The built-in presets as a listing for people and scripts (trainplan-cli presets).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace trainplan {

// {"presets": {"models": [{name, nominal_parameters, layers, hidden_size, ffn_hidden_size,
// attention_heads, kv_heads, vocab_size, sequence_length, source}], "accelerators": [{name,
// memory_gb, peak_bf16_tflops, peak_fp8_tflops, intra_node_bandwidth_gb_per_s,
// inter_node_bandwidth_gb_per_s, gpus_per_node, hbm_bandwidth_gb_per_s, source, notes}]}},
// in the units plan files use.
nlohmann::json presetsToJson();
// The same as two tables, each entry followed by its source.
std::string presetsToText();

}  // namespace trainplan
