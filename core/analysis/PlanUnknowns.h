// What a plan leaves unknown that moves its predicted step, and what the analysis assumes for it.
//
// Two kinds of unknown: framework switches neither the plan nor its profile sets (FrameworkSpec.h),
// and layout fields the plan file left out (Plan.h, LayoutUnknown). The analysis expects each
// one's default (frameworkChoicesFor(), the field's default), except an unknown recompute, which
// becomes the lightest setting with which the plan fits (a run that fits only with recompute ran
// with it). The predicted range sets all of them to their faster and to their slower values;
// sensitivity moves them one at a time and names them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/estimate/LayoutUnknowns.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

struct UnknownInput {
    std::string label;  // "TP communication overlap", "Recompute"
    std::string field;  // the plan path a person would set: "framework.tp_comm_overlap"
    std::string slowValue, expectedValue, fastValue;  // "off", "off", "on"
    // Sets the input to its faster (fast = true) or slower value in the plan or the options.
    std::function<void(bool fast, Plan&, FrameworkOptions&)> apply;
};

// Every unknown of the plan that can move its step, in a fixed order (framework switches, the
// expert load imbalance, the accelerator's borrowed efficiencies, then the layout unknowns in table order). Layout fields that cannot act are left out: sequence
// parallelism with TP 1, the schedule with one pipeline stage.
std::vector<UnknownInput> unknownInputs(const Plan& plan);


// "2 framework switches, recompute and the pipeline schedule": what a range or a tooltip names as
// unknown ("no unknown inputs" when there is none).
std::string unknownInputsPhrase(int frameworkSwitches, unsigned layoutFields, bool loadImbalance = false, bool efficiencies = false);


// The plan with an unknown recompute settled: its own setting when it fits, else the lightest that
// makes every stage fit: selective, then full recompute of the fewest layers per stage
// (layout.recompute_layers), else full recompute of every layer. Anything else is unchanged.
Plan withAssumedRecompute(const Plan& plan);

// The plan with every unknown layout field at the value the analysis expects (LayoutUnknownFields.h,
// expectation): the file's default, which the plan already holds, or for recompute the lightest
// that fits (withAssumedRecompute).
Plan withExpectedLayoutUnknowns(const Plan& plan);

// The plan's layout unknowns all at their faster (fast) or slower values, as each row of the table
// of layout unknowns sets them (LayoutUnknownFields.h): recompute as assumed (withAssumedRecompute)
// or full; sequence parallelism on or off; the interleaved schedule with the fewest chunks per stage
// (2 to 8) the layers and micro-batches allow, or 1F1B. Returns whether anything changed.
bool setLayoutUnknowns(Plan& plan, bool fast);

}  // namespace trainplan
