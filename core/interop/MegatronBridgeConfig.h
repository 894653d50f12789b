// Megatron-Bridge's (NeMo 2's) training configuration as a YAML override file, both ways: the
// sections of its ConfigContainer (megatron/bridge/training/config.py) that say the model, the
// layout, the batch, the precision and the switches:
//   model: the shape (num_layers, hidden_size, ffn_hidden_size, num_attention_heads,
//     num_query_groups, kv_channels, seq_length, vocab_size, normalization, gated_linear_unit,
//     MoE, MLA, MTP), the parallel sizes, sequence_parallel, uneven first/last stages,
//     recompute_granularity/method/num_layers and the kernel switches;
//   train: global_batch_size, micro_batch_size, train_iters (or train_samples);
//   optimizer / ddp: the distributed optimizer, Megatron-FSDP's sharding strategy, the overlaps;
//   dist: FSDP and the rank order; mixed_precision: a recipe name (bf16_mixed, ...).
// An override names only what it changes and the recipe supplies the rest, so the import starts
// from the base plan and replaces what the file says; every key is mapped or listed with why not.
// What the format cannot say (ZeRO-2 outside Megatron-FSDP, schedules Megatron-Core does not run,
// uneven middle stages) is a comment in the export, never a guess (docs/import-export.md).
#pragma once

#include <string>

#include "core/interop/ImportReport.h"

namespace trainplan {

// Whether text reads as a Megatron-Bridge override: a top-level model:, train:, optimizer:, ddp:,
// dist:, mixed_precision: or comm_overlap: key at the start of a line.
bool looksLikeMegatronBridgeConfig(const std::string& text);

// Throws PlanError naming the key ("model.tensor_model_parallel_size (layout.tp)") for a value of
// the wrong kind or one the plan cannot hold, and "line N" for text that is not YAML this reads.
// modelName names the model when the file changes the base plan's shape and has no hf_model_id.
ImportReport importMegatronBridgeConfig(const std::string& text, const Plan& base, const std::string& modelName = {});

// The plan's model, layout, batch, budget, precision and switches as a Megatron-Bridge override YAML.
std::string megatronBridgeConfig(const Plan& plan);

}  // namespace trainplan
