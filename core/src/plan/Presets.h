// Built-in presets (resources/presets/*.json, embedded at build time).
#pragma once

#include <string>
#include <vector>

#include "steptime/AcceleratorEfficiency.h"
#include "plan/Plan.h"

namespace trainplan {

struct ModelPreset {
    ModelSpec model;               // model.name is the preset's name
    double nominalParameters = 0;  // as the model's authors publish it
    std::string source;
};

struct AcceleratorPreset {
    std::string name;
    double memoryBytes = 0;
    double peakBf16FlopsPerSecond = 0;
    double peakFp8FlopsPerSecond = 0;  // 0 when the part has no FP8
    double intraNodeBytesPerSecond = 0;
    double interNodeBytesPerSecond = 0;
    int gpusPerNode = 8;
    std::string source;
    std::string notes;
    // Sustained efficiencies for the step-time model ("step_time" in accelerators.json);
    // efficiency.valid() is false for an entry without them.
    AcceleratorEfficiency efficiency;
    std::string efficiencySource;
};

const std::vector<ModelPreset>& modelPresets();
const std::vector<AcceleratorPreset>& acceleratorPresets();
const ModelPreset* findModelPreset(const std::string& name);
const AcceleratorPreset* findAcceleratorPreset(const std::string& name);

// Copies an accelerator's hardware figures into a cluster (GPU count untouched).
void applyAccelerator(const AcceleratorPreset& preset, ClusterSpec& cluster);

// The default plan: worked example A, a 70B model on 2,048 H100s.
Plan defaultPlan();

}  // namespace trainplan
