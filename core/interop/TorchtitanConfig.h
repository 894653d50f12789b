// torchtitan's training configuration (a TOML file: torchtitan/config/job_config.py defines its
// sections), both ways, for the layout, the batch and the switches torchtitan sets there:
//   [training] local_batch_size, global_batch_size, seq_len, steps;
//   [parallelism] data_parallel_replicate_degree, data_parallel_shard_degree (-1: the rest),
//     fsdp_reshard_after_forward, tensor_parallel_degree, pipeline_parallel_degree,
//     pipeline_parallel_schedule, pipeline_parallel_microbatch_size,
//     pipeline_parallel_layers_per_stage, context_parallel_degree, expert_parallel_degree,
//     expert_tensor_parallel_degree;
//   [activation_checkpoint] mode, selective_ac_option; [model] converters (float8, mx);
//   [compile] enable.
// torchtitan defines the model in code ([model] name and flavor), so the import keeps the base
// plan's model (import its config.json for the shape) and the export names the shape in a comment.
// What torchtitan cannot express (ZeRO-1: FSDP2 shards gradients too; schedules it does not run;
// uneven middle stages) is a comment in the export, never a guess (docs/import-export.md).
#pragma once

#include <string>

#include "core/interop/ImportReport.h"

namespace trainplan {

// Whether text reads as a torchtitan config: a [parallelism] or [training] table header line.
bool looksLikeTorchtitanConfig(const std::string& text);

// Throws PlanError naming the key ("parallelism.tensor_parallel_degree (layout.tp)") for a value
// of the wrong kind or one the plan cannot hold, and "line N" for text that is not TOML.
ImportReport importTorchtitanConfig(const std::string& text, const Plan& base);

// The plan's layout, batch and switches as a torchtitan TOML file's tables.
std::string torchtitanConfig(const Plan& plan);

}  // namespace trainplan
