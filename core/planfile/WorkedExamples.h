// The built-in plans: the two worked examples, read from the plan files examples/ ships (embedded
// at build time), and the default plan the window opens with.
#pragma once

#include "core/plan/Plan.h"

namespace trainplan {

// The two worked examples (docs/worked-examples.md), exactly as examples/ ships them:
// A is the 70B model on 2,048 H100s, B the 70B model on 512 GPUs.
enum class WorkedExample { None, A, B };
Plan workedExamplePlan(WorkedExample example);
// Which worked example the plan is (every input equal, the name aside), or None.
WorkedExample workedExampleOf(const Plan& plan);

// The default plan: worked example A exactly as examples/70b-2048-h100.json ships it.
Plan defaultPlan();

}  // namespace trainplan
