// Megatron-LM arguments as a plan (docs/import-export.md, "Megatron-LM"): a launch script or an
// argument list (--num-layers 80 --hidden-size 8192 ...), read into the model, the layout, the
// training settings and the framework switches. A model described by the arguments takes
// Megatron-LM's defaults for what they leave out (LayerNorm, GELU, biases, learned positions,
// tied embeddings: megatron/training/arguments.py), as the run would; the cluster comes from
// torchrun's --nnodes and --nproc-per-node when the script has them, else from the base plan.
#pragma once

#include <string>

#include "core/interop/ImportReport.h"

namespace trainplan {

// Whether text reads as Megatron-LM arguments (it names at least one model or parallelism flag).
bool looksLikeMegatronArguments(const std::string& text);

// Throws PlanError naming the flag for a value that is not a number where one is needed, and the
// flag and the plan field for a value the plan cannot hold.
// modelName names a model the arguments describe (they never name it); empty: "Megatron-LM model".
ImportReport importMegatronArguments(const std::string& text, const Plan& base, const std::string& modelName = {});

}  // namespace trainplan
