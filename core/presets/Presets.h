// Built-in presets (resources/presets/*.json, embedded at build time).
#pragma once

#include <string>
#include <vector>

#include "core/plan/Plan.h"
#include "core/presets/AcceleratorEfficiency.h"

namespace trainplan {

struct ModelPreset {
    ModelSpec model;               // model.name is the preset's name
    double nominalParameters = 0;  // as the model's authors publish it (MTP modules left out, as they publish)
    double nominalActiveParameters = 0;  // parameters a token touches as published; 0 for a dense model
    bool nominalActiveExcludesEmbedding = false;  // the publisher leaves the embedding lookup out of "active" (gpt-oss)
    std::string source;
};

struct AcceleratorPreset {
    std::string name;
    double memoryBytes = 0;
    double peakBf16FlopsPerSecond = 0;
    double peakFp8FlopsPerSecond = 0;  // 0 when the part has no FP8
    double peakFp4FlopsPerSecond = 0;  // dense FP4 (NVFP4 or MXFP4); 0 when the part has none
    bool mxfp8 = false;                // tensor cores that apply MX block scales (Blackwell, CDNA 4)
    double intraNodeBytesPerSecond = 0;
    double interNodeBytesPerSecond = 0;
    int gpusPerNode = 8;
    int nvlinkDomain = 0;              // GPUs sharing the scale-up link when not one node (NVL72: 72)
    std::string scaleUpLink;           // the scale-up link's own name: "NVLink 5", "Infinity Fabric"
    double powerWatts = 0;             // board power per GPU (TDP), W
    std::string source;
    std::string notes;
    // Sustained efficiencies for the step-time model ("step_time" in accelerators.json);
    // efficiency.valid() is false for an entry without them.
    AcceleratorEfficiency efficiency;
    std::string efficiencySource;
};

// A preset found by name, or why not: names match case-insensitively, ignoring spaces and
// punctuation, by exact name or unique prefix ("h800", "B200", "llama 3.1 405"). When nothing
// is found, candidates lists the names that matched (ambiguous) or every name (unknown).
template <typename T>
struct PresetMatch {
    const T* preset = nullptr;
    std::vector<std::string> candidates;
    bool ambiguous = false;
};

const std::vector<ModelPreset>& modelPresets();
const std::vector<AcceleratorPreset>& acceleratorPresets();
const ModelPreset* findModelPreset(const std::string& name);
const AcceleratorPreset* findAcceleratorPreset(const std::string& name);

// Lower-case letters and digits only: the key names are compared by.
std::string presetKey(const std::string& name);
PresetMatch<ModelPreset> matchModelPreset(const std::string& name);
PresetMatch<AcceleratorPreset> matchAcceleratorPreset(const std::string& name);

// The preset a model's numbers equal (sameModelShape, Plan.h), or nullptr: presets are matched
// by shape, never by name, so an edited model is not shown as the preset it was copied from.
// When several share a shape, the one the model's name names wins, else the first.
const ModelPreset* modelPresetOf(const ModelSpec& model);
// The accelerator preset whose hardware figures (acceleratorPresetFields) the cluster's equal,
// to 0.1 %, or nullptr; when several match, the one cluster.accelerator names wins.
const AcceleratorPreset* acceleratorPresetOf(const ClusterSpec& cluster);
// The part the cluster is: the preset its label names, else the one whose figures it carries
// (acceleratorPresetOf); nullptr for a part of its own. For what the part is rather than what
// its figures are (its board power, its MX support).
const AcceleratorPreset* acceleratorPresetOfPart(const ClusterSpec& cluster);

// The cluster's dense FP8 peak, FLOP/s: cluster.peak_fp8_tflops when given, else that of the preset
// its label names or its figures match, else 0 (no FP8 tensor cores known).
double fp8PeakFlopsPerGpu(const ClusterSpec& cluster);
// The cluster's dense FP4 peak, FLOP/s, as fp8PeakFlopsPerGpu() finds the FP8 one.
double fp4PeakFlopsPerGpu(const ClusterSpec& cluster);
// The dense peak the layers' GEMMs run at in a low-precision format: FP8's for the FP8 formats,
// FP4's for NVFP4; 0 for BF16, or when the part has no peak for the format (a red flag then).
double formatPeakFlopsPerGpu(const ClusterSpec& cluster, MatmulPrecision precision);
// The scale-up link's name for the cluster's part ("NVLink 4", "Infinity Fabric"), from the preset
// its label names or its figures match; "scale-up link" for a part that is no preset.
std::string scaleUpLinkName(const ClusterSpec& cluster);
// What the texts call the scale-up domain: "node" when it is one node, else "NVLink 5 domain".
std::string scaleUpDomainNoun(const ClusterSpec& cluster);
// Whether the cluster's tensor cores apply MX block scales (its preset says so; a part that is no
// preset is taken at its word when it gives an FP8 peak).
bool mxfp8Supported(const ClusterSpec& cluster);

// Copies an accelerator's hardware figures into a cluster (GPU count untouched) and forgets the
// plan's own efficiencies (cluster.efficiency): the preset's are measured on that part.
void applyAccelerator(const AcceleratorPreset& preset, ClusterSpec& cluster);

// When cluster.accelerator names a preset (as matchAcceleratorPreset finds it) but the
// cluster's figures differ from it: the preset and the JSON paths of the differing fields.
struct AcceleratorMismatch {
    const AcceleratorPreset* preset = nullptr;
    std::vector<std::string> fields;  // e.g. "cluster.memory_gb"
};
AcceleratorMismatch acceleratorMismatch(const ClusterSpec& cluster);
// Bit i set: field i of acceleratorPresetFields() differs between the cluster and the preset
// (figures to 0.1 %, as plan files give them with a few digits). Allocation-free: the layout
// search's checks ask it for every candidate.
unsigned differingAcceleratorFields(const ClusterSpec& cluster, const AcceleratorPreset& preset);
// The accelerator preset a label names (index into acceleratorPresets()), or -1: the same rule
// as matchAcceleratorPreset, without allocating (for the estimate's hot path).
int presetLabelIndex(const std::string& label);
// The fields acceleratorMismatch compares, in a fixed order (bit i of a mask is field i).
const std::vector<const char*>& acceleratorPresetFields();

}  // namespace trainplan
