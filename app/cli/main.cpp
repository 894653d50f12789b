// trainplan-cli: the estimate (and later schedule, search, export) for scripts.
// Exit status: 0 success, 2 invalid input (including a plan file that cannot be read),
// 3 valid input whose plan has error-level red flags, 1 anything else (e.g. an output file that
// cannot be written; the message names the path).
#include <algorithm>
#include <array>
#include <ctime>
#include <optional>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"
#include "core/base/AtomicFile.h"
#include "core/base/BoundedFile.h"
#include "core/base/BoundedJson.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/calibration/Calibration.h"
#include "core/calibration/TrainingLog.h"
#include "core/interop/ImportFile.h"
#include "core/interop/MegatronBridgeConfig.h"
#include "core/interop/MegatronExport.h"
#include "core/interop/TorchtitanConfig.h"
#include "core/plan/PlanFieldsListing.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/ClusterProfile.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"
#include "core/presets/PresetsListing.h"
#include "core/schedule/Schedule.h"
#include "core/search/LayoutSearch.h"
#include "core/sizing/ClusterSizing.h"
#include "core/text/Derivation.h"
#include "core/text/EstimateJson.h"
#include "core/text/PlanComparison.h"
#include "core/text/PredictedScheduleJson.h"
#include "core/text/TextReport.h"
#include "trainplan/Version.h"

#ifdef TRAINPLAN_WITH_EXPORT
#include <QGuiApplication>
#include <QFileInfo>

#include "render/compare/ComparisonPdf.h"
#include "render/compare/ComparisonSet.h"
#include "render/report/Exporter.h"
#include "render/report/SizingPdf.h"
#endif

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitInvalidInput = 2;
constexpr int kExitRedFlags = 3;

const char* kUsage =
    "Usage: trainplan-cli estimate PLAN.json [PLAN OPTIONS] [--json] [--derivation]\n"
    "       trainplan-cli schedule PLAN.json [PLAN OPTIONS] [--json] [--no-events]\n"
    "       trainplan-cli search PLAN.json [PLAN OPTIONS] [--top N] [--objective time|gpu-hours|cost]\n"
    "                            [--cost-per-gpu-hour USD (default: the plan's cost.price_per_gpu_hour_usd)]\n"
    "                            [--batch-range MIN:MAX] [--allow-tight-memory]\n"
    "                            [--red-flags last|hide|mixed] [--json]\n"
    "       trainplan-cli export PLAN.json [PLAN OPTIONS] [--pdf OUT.pdf] [--letter]\n"
    "                            [--slides DIR] [--markdown OUT.md] [--megatron-args OUT.sh]\n"
    "                            [--torchtitan-config OUT.toml] [--megatron-bridge-config OUT.yaml]\n"
    "                            [--cluster-profile OUT.json] [--deadline-days D [SIZE OPTIONS]]\n"
    "       trainplan-cli compare A.json B.json [MORE.json...] [PLAN OPTIONS] [--json]\n"
    "                            [--pdf OUT.pdf] [--letter]\n"
    "       trainplan-cli import FILE|FOLDER [PLAN OPTIONS] [--json]\n"
    "       trainplan-cli calibrate PLAN.json (--step-seconds S | --tokens-per-second-per-gpu T |\n"
    "                            --log TRAIN.log) [--exposed-communication-seconds C]\n"
    "                            [--peak-memory-gb G] [--framework TEXT] [--date YYYY-MM-DD]\n"
    "                            [PLAN OPTIONS] [--json]\n"
    "       trainplan-cli size PLAN.json --deadline-days D [--budget USD] [--gpus MIN:MAX]\n"
    "                            [--gpu NAME[=USD_PER_GPU_HOUR]]... [--max-batch-tokens T]\n"
    "                            [--scaling-threshold F] [PLAN OPTIONS] [--json] [--pdf OUT.pdf]\n"
    "       trainplan-cli presets [--json]\n"
    "       trainplan-cli fields [--json]\n"
    "\n"
    "estimate: parameters, FLOPs, time, memory per GPU and stage, pipeline bubble,\n"
    "          communication, checkpoints and failures, and red flags.\n"
    "schedule: simulates one optimizer step of one pipeline replica (GPipe, 1F1B,\n"
    "          interleaved 1F1B, zero-bubble or DualPipe per layout.schedule): step time, bubble,\n"
    "          idle time and peak micro-batches in flight per stage, and every event.\n"
    "search:   every valid layout for the plan's model and cluster that fits, ranked by\n"
    "          predicted step time (or GPU-hours, or cost), with the Pareto front of memory\n"
    "          against time and the simplest layout that fits marked. Layouts with the\n"
    "          same figures under another DP x CP split or micro-batch share one row\n"
    "          (\"= also\"; JSON: group and equivalents), so --top N gives N distinct options.\n"
    "          Each row carries its memory verdict (fits, may not fit: the memory range\n"
    "          straddles capacity less the margin) and its red flags (TP across nodes...):\n"
    "          \"may not fit\" rows rank after every fitting row of their tier.\n"
    "export:   writes the PDF report (A4, or US Letter with --letter), slides (PNG at\n"
    "          1920x1080 and 2x, SVG, deck.pdf) and/or the whole report as Markdown; headless.\n"
    "          --megatron-args writes the plan's Megatron-LM launch settings (model, layout,\n"
    "          batch, precision, switches), which 'import' reads back to the same plan;\n"
    "          --torchtitan-config the same as torchtitan's TOML tables, --megatron-bridge-config\n"
    "          as a Megatron-Bridge / NeMo override YAML. --cluster-profile writes the plan's\n"
    "          cluster (a calibrated one with its record) as a named profile for --cluster.\n"
    "          With --pdf, --deadline-days D (and size's --budget, --gpus, --max-batch-tokens,\n"
    "          --scaling-threshold) adds a sizing section for the plan's accelerator: the answer,\n"
    "          the chart of days against cost and the Pareto front (every point: size --pdf).\n"
    "compare:  two or more plans side by side: each headline figure (predicted and at the\n"
    "          assumed MFU), its difference from the first plan, and the input fields that\n"
    "          differ. PLAN OPTIONS apply to every plan. --pdf also writes the comparison\n"
    "          report: those tables, memory per stage and step components overlaid, and\n"
    "          each plan's diagram and schedule.\n"
    "size:     the inverse question: for each accelerator (--gpu, repeatable, each with its price;\n"
    "          else the plan's own) and each GPU count in whole nodes (1-1.5-2 steps, 8 to 32,768\n"
    "          unless --gpus), the fastest layout that fits, its days with failures and their range,\n"
    "          GPU-hours, cost and energy; the cheapest that meets the deadline (and the budget), the\n"
    "          Pareto front of days against cost, where adding GPUs stops paying (a step up buying\n"
    "          less than --scaling-threshold, default 0.7, of its ideal speed-up), tokens per\n"
    "          parameter against Chinchilla's ~20, and why, in words. --max-batch-tokens lets the\n"
    "          search grow the global batch up to that many tokens per step. --pdf writes the\n"
    "          sizing report: the sentences, the chart of days against cost, every point.\n"
    "import:   reads a Hugging Face config.json (or a model folder holding one), a Megatron-LM\n"
    "          launch script or an argument list, a torchtitan TOML config or a Megatron-Bridge\n"
    "          YAML, and prints the plan it describes (the\n"
    "          default plan's cluster, budget and layout where the source says nothing), ready\n"
    "          for 'trainplan-cli estimate -'. What was not mapped, and why, goes to standard\n"
    "          error; --json prints {format, plan, mapped, unmapped, assumptions} instead.\n"
    "calibrate: fits the plan's efficiency figures to one run measured on its cluster with the\n"
    "          plan's own layout: the step (or tokens per second per GPU, or a Megatron-LM or\n"
    "          torchtitan log) fits the GEMM efficiency; an exposed communication time fits the\n"
    "          collective efficiency of the link that carries it; a peak memory (device, GB;\n"
    "          a log's max reserved) fits the allocator slack. Prints the calibrated plan, with\n"
    "          its record (cluster.calibration), for 'estimate -'; the before and after figures,\n"
    "          and what one run cannot settle and why, go to standard error (--json: both).\n"
    "presets:  the model and accelerator presets with their figures and sources.\n"
    "fields:   every plan field a file or --set can give: its JSON path, meaning, unit,\n"
    "          allowed values and default (the path first on each line).\n"
    "\n"
    "  PLAN.json           a TrainPlan plan file (docs/plan-format.md); '-' reads stdin\n"
    "PLAN OPTIONS, applied in this order:\n"
    "  --model NAME        take the model from a preset, e.g. --model \"llama 3.1 405\"\n"
    "  --gpu NAME          take the accelerator's memory, peak, bandwidths and GPUs per node\n"
    "                      from a preset, e.g. --gpu h200 (GPU count and layout unchanged)\n"
    "                      Names match case-insensitively, ignoring spaces and punctuation,\n"
    "                      by a unique prefix; see 'trainplan-cli presets'.\n"
    "  --cluster FILE      take the whole cluster (part, GPUs, links, efficiency figures and\n"
    "                      a calibration's record) from a cluster profile, as 'export\n"
    "                      --cluster-profile' writes it; DP follows a changed GPU count\n"
    "  --set PATH=VALUE    override one field by its JSON path, e.g. --set layout.tp=4\n"
    "                      (cluster.accelerator set to a preset's name applies that preset)\n"
    "                      --set training.mfu=0.35 --set layout.dp=auto (repeatable)\n"
    "  --json              print one JSON object (SI units) instead of text\n"
    "  --derivation        with text output, also print every step of the arithmetic\n"
    "  --no-events         schedule: leave the event list out (large pipelines)\n"
    "  --allow-tight-memory  search: also keep layouts that fit with less free memory than\n"
    "                      training.memory_margin_fraction (flagged under-margin)\n"
    "  --red-flags ORDER   search: layouts that raise red flags (TP_SPANS_NODES, LARGE_BUBBLE,\n"
    "                      DP_NOT_HIDDEN...) rank after every layout without them (last, the\n"
    "                      default), are left out (hide), or rank by the objective (mixed)\n"
    "  --help, --version\n"
    "\n"
    "Exit status:\n"
    "  0  success\n"
    "  2  invalid input: bad arguments, an unreadable file, or a field out of range (the\n"
    "     message names the field by its JSON path)\n"
    "  3  the input is valid but the plan has error-level red flags: it does not fit in\n"
    "     memory, failures outpace progress, the layout does not match the GPUs, TP does not\n"
    "     divide the attention heads, the batch does not divide... (search: no layout fits).\n"
    "     The output is still printed; the flags are listed on standard error.\n"
    "  1  anything else\n";

struct Options {
    std::string verb;
    std::string planPath;
    std::vector<std::string> morePlans;  // compare: the plans after the first
    std::string modelPreset, gpuPreset;
    std::vector<std::string> overrides;
    bool json = false;
    bool derivation = false;
    bool events = true;
    std::string pdf, slides, markdown, megatronArgs, torchtitanConfig, megatronBridgeConfig, clusterProfileOut;
    std::string clusterProfile;  // --cluster: a cluster profile applied to the plan
    // size: the options as given, parsed (and refused by name) in runSize
    std::vector<std::string> sizeGpus;
    std::optional<std::string> deadlineDays, budget, gpuRange, maxBatchTokens, scalingThreshold;
    // calibrate: the measured run
    std::optional<double> stepSeconds, tokensPerSecondPerGpu, exposedCommunicationSeconds, peakMemoryGb;
    std::string logPath, framework, date;
    bool letter = false;
    int top = 20;
    std::string objective = "time";
    double costPerGpuHour = 0;
    long long minBatch = 0, maxBatch = 0;
    bool allowTightMemory = false;
    trainplan::RedFlagOrder redFlags = trainplan::RedFlagOrder::Last;
};

class UsageError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An unknown or ambiguous --model / --gpu name: invalid input (exit 2), reported with the
// candidate names rather than the whole usage text.
class PresetNameError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

Options parseArguments(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--set") {
            if (i + 1 >= argc)
                throw UsageError("--set needs PATH=VALUE");
            o.overrides.push_back(argv[++i]);
        } else if (arg.rfind("--set=", 0) == 0) {
            o.overrides.push_back(arg.substr(6));
        } else if (arg == "--cluster") {
            if (i + 1 >= argc)
                throw UsageError("--cluster needs a cluster profile file");
            o.clusterProfile = argv[++i];
        } else if (arg == "--model" || arg == "--gpu") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a preset name (see 'trainplan-cli presets')");
            (arg == "--model" ? o.modelPreset : o.gpuPreset) = argv[++i];
            if (arg == "--gpu")
                o.sizeGpus.push_back(o.gpuPreset);  // size: every --gpu is a candidate
        } else if (arg == "--deadline-days" || arg == "--budget" || arg == "--gpus" || arg == "--max-batch-tokens"
            || arg == "--scaling-threshold") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            (arg == "--deadline-days"       ? o.deadlineDays
                : arg == "--budget"         ? o.budget
                : arg == "--gpus"           ? o.gpuRange
                : arg == "--max-batch-tokens" ? o.maxBatchTokens
                                            : o.scalingThreshold) = std::string(argv[++i]);
        } else if (arg == "--allow-tight-memory") {
            o.allowTightMemory = true;
        } else if (arg == "--red-flags" || arg.rfind("--red-flags=", 0) == 0) {
            std::string value;
            if (arg == "--red-flags") {
                if (i + 1 >= argc)
                    throw UsageError("--red-flags needs last, hide or mixed");
                value = argv[++i];
            } else {
                value = arg.substr(12);
            }
            const auto order = trainplan::redFlagOrderNamed(value);
            if (!order)
                throw UsageError("--red-flags must be last, hide or mixed, not " + value);
            o.redFlags = *order;
        } else if (arg == "--json") {
            o.json = true;
        } else if (arg == "--derivation") {
            o.derivation = true;
        } else if (arg == "--no-events") {
            o.events = false;
        } else if (arg == "--pdf" || arg == "--slides" || arg == "--markdown" || arg == "--megatron-args" || arg == "--torchtitan-config"
            || arg == "--megatron-bridge-config" || arg == "--cluster-profile") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a path");
            (arg == "--pdf"                ? o.pdf
                : arg == "--slides"        ? o.slides
                : arg == "--markdown"      ? o.markdown
                : arg == "--megatron-args" ? o.megatronArgs
                : arg == "--torchtitan-config" ? o.torchtitanConfig
                : arg == "--cluster-profile"   ? o.clusterProfileOut
                                               : o.megatronBridgeConfig) = argv[++i];
        } else if (arg == "--step-seconds" || arg == "--tokens-per-second-per-gpu" || arg == "--exposed-communication-seconds"
            || arg == "--peak-memory-gb") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a number");
            const std::string value = argv[++i];
            double number = 0;
            try {
                size_t used = 0;
                number = std::stod(value, &used);
                if (used != value.size())
                    throw std::invalid_argument(value);
            } catch (const std::logic_error&) {
                throw UsageError(arg + ": not a number: " + value);
            }
            (arg == "--step-seconds"                    ? o.stepSeconds
                : arg == "--tokens-per-second-per-gpu" ? o.tokensPerSecondPerGpu
                : arg == "--exposed-communication-seconds" ? o.exposedCommunicationSeconds
                                                           : o.peakMemoryGb) = number;
        } else if (arg == "--log" || arg == "--framework" || arg == "--date") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            (arg == "--log" ? o.logPath : arg == "--framework" ? o.framework : o.date) = argv[++i];
        } else if (arg == "--letter") {
            o.letter = true;
        } else if (arg == "--top" || arg == "--objective" || arg == "--cost-per-gpu-hour" || arg == "--batch-range") {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            const std::string value = argv[++i];
            try {
                if (arg == "--top") {
                    o.top = std::stoi(value);
                    if (o.top < 1)
                        throw UsageError("--top must be at least 1");
                } else if (arg == "--objective") {
                    if (value != "time" && value != "gpu-hours" && value != "cost")
                        throw UsageError("--objective must be time, gpu-hours or cost");
                    o.objective = value;
                } else if (arg == "--cost-per-gpu-hour") {
                    o.costPerGpuHour = std::stod(value);
                    if (!(o.costPerGpuHour > 0))
                        throw UsageError("--cost-per-gpu-hour must be positive");
                } else {
                    const auto colon = value.find(':');
                    if (colon == std::string::npos)
                        throw UsageError("--batch-range needs MIN:MAX sequences");
                    o.minBatch = std::stoll(value.substr(0, colon));
                    o.maxBatch = std::stoll(value.substr(colon + 1));
                    if (o.minBatch < 1 || o.maxBatch < o.minBatch)
                        throw UsageError("--batch-range needs 1 <= MIN <= MAX");
                }
            } catch (const std::logic_error&) {
                throw UsageError(arg + ": not a number: " + value);
            }
        } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
            throw UsageError("unknown option " + arg);
        } else if (o.verb.empty()) {
            o.verb = arg;
        } else if (o.planPath.empty()) {
            o.planPath = arg;
        } else if (o.verb == "compare") {
            o.morePlans.push_back(arg);
        } else {
            throw UsageError("unexpected argument " + arg);
        }
    }
    constexpr std::array<std::string_view, 10> kVerbs = {
        "estimate", "schedule", "search", "export", "compare", "import", "calibrate", "size", "presets", "fields"};
    std::string verbList;
    for (std::string_view v : kVerbs)
        verbList += (verbList.empty() ? "" : ", ") + std::string(v);
    if (o.verb.empty())
        throw UsageError("missing command (" + verbList + ")");
    if (std::find(kVerbs.begin(), kVerbs.end(), o.verb) == kVerbs.end())
        throw UsageError("unknown command " + o.verb + " (available: " + verbList + ")");
    if (o.verb == "presets" || o.verb == "fields") {
        if (!o.planPath.empty())
            throw UsageError(o.verb + " takes no plan file");
        return o;
    }
    if (o.verb == "export" && o.pdf.empty() && o.slides.empty() && o.markdown.empty() && o.megatronArgs.empty() && o.torchtitanConfig.empty()
        && o.megatronBridgeConfig.empty() && o.clusterProfileOut.empty())
        throw UsageError(
            "export needs at least one of --pdf, --slides, --markdown, --megatron-args, --torchtitan-config, --megatron-bridge-config, "
            "--cluster-profile");
    if (o.verb == "size") {
        if (!o.deadlineDays)
            throw UsageError("size needs --deadline-days D");
        o.gpuPreset.clear();  // the candidates, not the plan's part
    } else if (o.verb == "export" && !o.pdf.empty()) {
        if (!o.deadlineDays && (o.budget || o.gpuRange || o.maxBatchTokens || o.scalingThreshold))
            throw UsageError("--budget, --gpus, --max-batch-tokens and --scaling-threshold size the cluster: they need --deadline-days D");
    } else if (o.deadlineDays || o.budget || o.gpuRange || o.maxBatchTokens || o.scalingThreshold) {
        throw UsageError("--deadline-days, --budget, --gpus, --max-batch-tokens and --scaling-threshold are for size (and export --pdf)");
    }
    if (o.verb == "compare" && o.morePlans.empty())
        throw UsageError("compare needs at least two plans");
    if (o.verb == "calibrate" && int(o.stepSeconds.has_value()) + o.tokensPerSecondPerGpu.has_value() + !o.logPath.empty() != 1)
        throw UsageError("calibrate needs one of --step-seconds, --tokens-per-second-per-gpu, --log");
    if (o.verb != "calibrate"
        && (o.stepSeconds || o.tokensPerSecondPerGpu || o.exposedCommunicationSeconds || o.peakMemoryGb || !o.logPath.empty()
            || !o.framework.empty() || !o.date.empty()))
        throw UsageError("--step-seconds, --tokens-per-second-per-gpu, --log, --exposed-communication-seconds, --peak-memory-gb, "
                         "--framework and --date belong to calibrate");
    if (o.planPath.empty())
        throw UsageError(o.verb == "import" ? "missing FILE (a config.json, a model folder or a launch script)" : "missing PLAN.json");
    return o;
}

// Standard input is held to the same 16 MiB bound as a plan file.
std::string readStandardInput()
{
    constexpr size_t kMaxPlanBytes = trainplan::kMaxInputFileBytes;
    std::string text;
    char chunk[65536];
    while (std::cin.read(chunk, sizeof chunk) || std::cin.gcount() > 0) {
        text.append(chunk, size_t(std::cin.gcount()));
        if (text.size() > kMaxPlanBytes)
            throw trainplan::PlanError({{"", std::string("standard input is larger than 16 MiB; not a plan file")}});
    }
    return text;
}

template <typename T>
const T& requirePreset(const trainplan::PresetMatch<T>& match, const std::string& option, const std::string& name)
{
    if (match.preset)
        return *match.preset;
    std::string list;
    for (const auto& c : match.candidates)
        list += "\n  " + c;
    throw PresetNameError(
        option + " \"" + name + "\"" + (match.ambiguous ? " is ambiguous; it matches:" : " matches no preset; the presets are:") + list);
}

// An accelerator preset's figures into the plan document's cluster (its GPU count kept).
void applyAcceleratorPreset(nlohmann::json& doc, const trainplan::AcceleratorPreset& preset)
{
    if (!doc["cluster"].is_object())
        doc["cluster"] = nlohmann::json::object();
    trainplan::Plan holder;
    trainplan::applyAccelerator(preset, holder.cluster);
    const nlohmann::json cluster = trainplan::planToJson(holder)["cluster"];
    for (const char* key : {"accelerator", "memory_gb", "peak_bf16_tflops", "intra_node_bandwidth_gb_per_s",
             "inter_node_bandwidth_gb_per_s", "gpus_per_node"})
        doc["cluster"][key] = cluster[key];
    // Optional keys: set by the preset, else removed (an NVL72 rack's domain must not outlive it,
    // nor another part's efficiencies: --set after --gpu gives new ones).
    for (const char* key : {"nvlink_domain", "peak_fp8_tflops", "peak_fp4_tflops", "efficiency"}) {
        if (cluster.contains(key))
            doc["cluster"][key] = cluster[key];
        else
            doc["cluster"].erase(key);
    }
}

// --model and --gpu write a preset's numbers into the plan document before any --set.
void applyPresets(nlohmann::json& doc, const Options& o)
{
    if (!doc.is_object())
        return;  // planFromJson reports it
    if (!o.modelPreset.empty()) {
        const auto& preset = requirePreset(trainplan::matchModelPreset(o.modelPreset), "--model", o.modelPreset);
        trainplan::Plan holder;
        holder.model = preset.model;
        doc["model"] = trainplan::planToJson(holder)["model"];
    }
    if (!o.gpuPreset.empty())
        applyAcceleratorPreset(doc, requirePreset(trainplan::matchAcceleratorPreset(o.gpuPreset), "--gpu", o.gpuPreset));
}

// A --set of cluster.accelerator to a preset's exact name applies that preset, as --gpu does at
// that point of the order (later --set fields still override its figures): a label naming a
// part whose figures it does not carry would describe another machine.
void applyAcceleratorLabel(nlohmann::json& doc, const std::string& assignment)
{
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || assignment.substr(0, eq) != "cluster.accelerator" || !doc.is_object() || !doc["cluster"].is_object())
        return;
    const nlohmann::json& label = doc["cluster"]["accelerator"];
    if (!label.is_string())
        return;
    if (const auto* preset = trainplan::findAcceleratorPreset(label.get<std::string>()))
        applyAcceleratorPreset(doc, *preset);
}

// A missing or unreadable plan is invalid input (exit 2), like a malformed one.
trainplan::Plan loadPlan(const Options& o)
{
    const bool fromStdin = o.planPath == "-";
    const std::string text = fromStdin ? readStandardInput() : trainplan::readPlanFileText(o.planPath);
    nlohmann::json doc = trainplan::parseJsonBounded(text, fromStdin ? "standard input" : o.planPath);
    applyPresets(doc, o);
    if (!o.clusterProfile.empty()) {
        try {
            trainplan::applyClusterProfile(doc, trainplan::loadClusterProfile(o.clusterProfile));
        } catch (const trainplan::PlanError& e) {
            // Named by the profile's file, so a bad profile is not mistaken for a bad plan.
            std::vector<trainplan::PlanProblem> problems;
            for (const auto& p : e.problems())
                problems.push_back({"--cluster " + o.clusterProfile + (p.path.empty() ? "" : ": " + p.path), p.message});
            throw trainplan::PlanError(std::move(problems));
        }
    }
    for (const auto& assignment : o.overrides) {
        trainplan::applyOverride(doc, assignment);
        applyAcceleratorLabel(doc, assignment);
    }
    return trainplan::planFromJson(doc);
}

// Exit 3 when the plan is valid but has error-level red flags; they are listed on stderr so a
// script that gates on the status can say why.
int exitStatusFor(const trainplan::Estimate& est)
{
    if (!est.hasErrors())
        return kExitOk;
    for (const auto& w : est.warnings)
        if (w.severity == trainplan::Severity::Error)
            std::cerr << "trainplan-cli: red flag: " << trainplan::codeName(w.code) << ": " << trainplan::describe(w) << "\n";
    return kExitRedFlags;
}

// QFileInfo::completeBaseName without Qt: the file name up to its last dot ("" for stdin's "-").
std::string planFileBaseName(const std::string& planPath)
{
    std::string base = planPath.substr(planPath.rfind('/') == std::string::npos ? 0 : planPath.rfind('/') + 1);
    const auto dot = base.rfind('.');
    if (dot != std::string::npos)
        base = base.substr(0, dot);
    return base;
}

int runEstimate(const Options& o)
{
    const trainplan::Analysis analysis = trainplan::analyse(loadPlan(o));
    if (o.json)
        std::cout << trainplan::estimateToJson(analysis).dump(2) << "\n";
    else
        std::cout << trainplan::estimateToText(analysis, o.derivation);
    return exitStatusFor(analysis.estimate);
}

int runSchedule(const Options& o)
{
    const trainplan::Analysis analysis = trainplan::analyse(loadPlan(o));
    if (analysis.scheduleProblem)
        throw trainplan::PlanError({{analysis.scheduleProblem->field, analysis.scheduleProblem->message}});
    if (o.json)
        std::cout << trainplan::predictedScheduleToJson(analysis, o.events).dump(o.events ? -1 : 2) << "\n";
    else
        std::cout << trainplan::scheduleToText(analysis);
    return exitStatusFor(analysis.estimate);
}

int runSearch(const Options& o)
{
    const trainplan::Plan plan = loadPlan(o);
    trainplan::SearchOptions options;
    options.top = o.top;
    options.objective = o.objective == "cost" ? trainplan::SearchObjective::Cost
                        : o.objective == "gpu-hours" ? trainplan::SearchObjective::GpuHours
                                                      : trainplan::SearchObjective::Time;
    // The price: --cost-per-gpu-hour, else the plan's cost.price_per_gpu_hour_usd.
    options.costPerGpuHour = o.costPerGpuHour > 0 ? o.costPerGpuHour : plan.cost.pricePerGpuHourUsd.value_or(0);
    if (options.objective == trainplan::SearchObjective::Cost && !(options.costPerGpuHour > 0))
        throw UsageError("--objective cost needs a price: --cost-per-gpu-hour USD, or cost.price_per_gpu_hour_usd in the plan");
    options.minGlobalBatch = o.minBatch;
    options.maxGlobalBatch = o.maxBatch;
    options.requireMemoryMargin = !o.allowTightMemory;
    options.redFlags = o.redFlags;
    options.groupEquivalents = true;
    const trainplan::SearchResult result = trainplan::searchLayouts(plan, options);
    if (o.json)
        std::cout << trainplan::searchToJson(result).dump(2) << "\n";
    else
        std::cout << trainplan::searchToText(result);
    if (result.rows.empty() && !result.cancelled) {
        std::cerr << "trainplan-cli: red flag: no layout of this model fits on this cluster"
                  << (options.requireMemoryMargin ? " with the memory margin" : "") << "\n";
        return kExitRedFlags;
    }
    return kExitOk;
}

#ifdef TRAINPLAN_WITH_EXPORT
// Headless unless a display is there: exports never need a window.
void useOffscreenWithoutDisplay()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

// The application the drawing verbs (compare --pdf, size --pdf) need for fonts and painting,
// made without the command's own arguments; offscreen unless a display is there.
class DrawingApplication {
    [[maybe_unused]] bool offscreen_ = (useOffscreenWithoutDisplay(), true);  // first: before the application exists
    int argc_ = 1;
    char name_[14] = "trainplan-cli";
    char* argv_[2] = {name_, nullptr};
    QGuiApplication app_{argc_, argv_};
};
#endif

int runCompare(const Options& o)
{
    std::vector<std::string> paths{o.planPath};
    paths.insert(paths.end(), o.morePlans.begin(), o.morePlans.end());
    if (std::count(paths.begin(), paths.end(), std::string("-")) > 1)
        throw UsageError("compare reads standard input ('-') for one plan at most");
    std::vector<trainplan::Analysis> analyses;
    analyses.reserve(paths.size());
    for (const auto& path : paths) {
        Options one = o;
        one.planPath = path;
        analyses.push_back(trainplan::analyse(loadPlan(one)));
    }
    std::vector<const trainplan::Analysis*> pointers;
    for (const auto& a : analyses)
        pointers.push_back(&a);
    const trainplan::PlanComparison comparison = trainplan::comparePlans(pointers, paths);
    if (o.json)
        std::cout << trainplan::comparisonToJson(comparison).dump(2) << "\n";
    else
        std::cout << trainplan::comparisonToText(comparison);
    int status = kExitOk;
    for (const auto& a : analyses)
        status = std::max(status, exitStatusFor(a.estimate));
    if (o.pdf.empty())
        return status;
#ifdef TRAINPLAN_WITH_EXPORT
    const DrawingApplication app;
    std::vector<QString> sources;
    for (const auto& path : paths)
        sources.push_back(QString::fromStdString(path == "-" ? std::string("standard input") : path));
    const ComparisonSet set(std::move(analyses), sources);
    QString error;
    if (!comparisonpdf::write(set, QString::fromStdString(o.pdf), o.letter ? QPageSize::Letter : QPageSize::A4, &error)) {
        std::cerr << "trainplan-cli: " << error.toStdString() << "\n";
        return kExitFailure;
    }
    std::cerr << o.pdf << "\n";  // stdout holds the comparison itself
    return status;
#else
    std::cerr << "trainplan-cli: --pdf needs the Qt views; this build has TRAINPLAN_BUILD_UI=OFF\n";
    return kExitFailure;
#endif
}

// The imported plan, then --model, --gpu and --set on it as on any plan file.
int runImport(const Options& o)
{
    const trainplan::Plan base = trainplan::defaultPlan();
    trainplan::ImportReport report = o.planPath == "-" ? trainplan::importText(readStandardInput(), "standard input", base)
                                                       : trainplan::importPath(o.planPath, base);
    if (!o.modelPreset.empty() || !o.gpuPreset.empty() || !o.overrides.empty()) {
        nlohmann::json doc = trainplan::planToJson(report.plan);
        applyPresets(doc, o);
        for (const auto& assignment : o.overrides) {
            trainplan::applyOverride(doc, assignment);
            applyAcceleratorLabel(doc, assignment);
        }
        report.plan = trainplan::planFromJson(doc);
    }
    if (o.json) {
        std::cout << trainplan::importReportToJson(report).dump(2) << "\n";
    } else {
        std::cout << trainplan::planToText(report.plan);
        std::cerr << trainplan::importReportToText(report);
    }
    return kExitOk;
}

// Today's date in UTC, YYYY-MM-DD, for the calibration record.
std::string todayUtc()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
    return text;
}

int runCalibrate(const Options& o)
{
    const trainplan::Plan plan = loadPlan(o);
    trainplan::CalibrationInputs inputs;
    if (!o.logPath.empty()) {
        const std::string name = o.logPath == "-" ? "standard input" : o.logPath.substr(o.logPath.find_last_of('/') + 1);
        inputs.run = trainplan::measuredRunFromLog(o.logPath == "-" ? readStandardInput() : trainplan::readRegularFile(o.logPath), name);
    } else {
        inputs.run = trainplan::enteredMeasuredRun(o.stepSeconds, o.tokensPerSecondPerGpu);
    }
    if (o.exposedCommunicationSeconds)
        inputs.run.exposedCommunicationSeconds = o.exposedCommunicationSeconds;
    if (o.peakMemoryGb) {
        // A figure given here is the device's (nvidia-smi), in GB; it replaces a log's.
        inputs.run.peakMemoryBytes = *o.peakMemoryGb * trainplan::units::GB;
        inputs.run.peakIsAllocatorReserved = false;
    }
    inputs.framework = o.framework;
    inputs.date = o.date.empty() ? todayUtc() : o.date;
    const trainplan::CalibrationResult result = trainplan::calibrate(plan, inputs);
    if (o.json) {
        nlohmann::json doc;
        doc["format"] = "trainplan.calibration";
        doc["plan"] = trainplan::planToJson(result.plan);
        doc["calibration"] = trainplan::calibrationToJson(result);
        std::cout << doc.dump(2) << "\n";
    } else {
        std::cout << trainplan::planToText(result.plan);
        std::cerr << trainplan::calibrationToText(result);
    }
    return kExitOk;
}

int runFields(const Options& o)
{
    if (o.json)
        std::cout << trainplan::planFieldsJson().dump(2) << "\n";
    else
        std::cout << trainplan::planFieldsText();
    return kExitOk;
}

// A number an option gives, or exit 2 naming the option.
double optionNumber(const std::string& option, const std::string& value)
{
    try {
        size_t used = 0;
        const double number = std::stod(value, &used);
        if (used == value.size() && std::isfinite(number))
            return number;
    } catch (const std::logic_error&) {
    }
    throw UsageError(option + ": not a number: " + value);
}

// The sizing question the options ask (--deadline-days, --budget, --gpus, --max-batch-tokens,
// --scaling-threshold); for size every --gpu is a candidate, for export the plan's own part is.
trainplan::SizingOptions sizingOptionsFrom(const Options& o)
{
    trainplan::SizingOptions options;
    options.deadlineDays = optionNumber("--deadline-days", *o.deadlineDays);
    if (o.budget)
        options.budgetUsd = optionNumber("--budget", *o.budget);
    if (o.maxBatchTokens)
        options.maxGlobalBatchTokens = optionNumber("--max-batch-tokens", *o.maxBatchTokens);
    if (o.scalingThreshold)
        options.scalingThreshold = optionNumber("--scaling-threshold", *o.scalingThreshold);
    if (o.gpuRange) {
        const auto colon = o.gpuRange->find(':');
        if (colon == std::string::npos)
            throw UsageError("--gpus needs MIN:MAX GPUs");
        options.minGpus = static_cast<long long>(optionNumber("--gpus", o.gpuRange->substr(0, colon)));
        options.maxGpus = static_cast<long long>(optionNumber("--gpus", o.gpuRange->substr(colon + 1)));
        if (options.minGpus < 1 || options.maxGpus < options.minGpus)
            throw UsageError("--gpus needs 1 <= MIN <= MAX");
    }
    if (o.verb == "size") {
        for (const std::string& given : o.sizeGpus) {
            trainplan::SizingCandidate c;
            const auto eq = given.find('=');
            c.accelerator = given.substr(0, eq);
            if (eq != std::string::npos)
                c.pricePerGpuHourUsd = optionNumber("--gpu " + c.accelerator, given.substr(eq + 1));
            options.accelerators.push_back(c);
        }
    }
    return options;
}

int runSize(const Options& o)
{
    const trainplan::Plan plan = loadPlan(o);
    const trainplan::SizingResult result = trainplan::sizeCluster(plan, sizingOptionsFrom(o));
    if (o.json)
        std::cout << trainplan::sizingToJson(result).dump(2) << "\n";
    else
        std::cout << trainplan::sizingToText(result);
    if (o.pdf.empty())
        return kExitOk;
#ifdef TRAINPLAN_WITH_EXPORT
    const DrawingApplication app;
    QString error;
    const QString title = QString::fromStdString(trainplan::reportTitle(plan, planFileBaseName(o.planPath)));
    if (!sizingpdf::write(result, title, QString::fromStdString(o.pdf), o.letter ? QPageSize::Letter : QPageSize::A4, &error)) {
        std::cerr << "trainplan-cli: " << error.toStdString() << "\n";
        return kExitFailure;
    }
    std::cerr << o.pdf << "\n";  // stdout holds the sizing itself
    return kExitOk;
#else
    std::cerr << "trainplan-cli: --pdf needs the Qt views; this build has TRAINPLAN_BUILD_UI=OFF\n";
    return kExitFailure;
#endif
}

int runPresets(const Options& o)
{
    if (o.json) {
        std::cout << trainplan::presetsToJson().dump(2) << "\n";
        return kExitOk;
    }
    std::cout << trainplan::presetsToText();
    return kExitOk;
}

int runExport(const Options& o, int argc, char** argv)
{
    const trainplan::Analysis analysis = trainplan::analyse(loadPlan(o));
    // The Markdown report needs no drawing, so it is written here, atomically, in every build.
    if (!o.markdown.empty())
        trainplan::writeFileAtomically(
            o.markdown, trainplan::estimateToMarkdown(analysis, trainplan::reportTitle(analysis.plan, planFileBaseName(o.planPath))));
    if (!o.megatronArgs.empty())
        trainplan::writeFileAtomically(o.megatronArgs, trainplan::megatronArguments(analysis.plan));
    if (!o.torchtitanConfig.empty())
        trainplan::writeFileAtomically(o.torchtitanConfig, trainplan::torchtitanConfig(analysis.plan));
    if (!o.megatronBridgeConfig.empty())
        trainplan::writeFileAtomically(o.megatronBridgeConfig, trainplan::megatronBridgeConfig(analysis.plan));
    if (!o.clusterProfileOut.empty())
        trainplan::writeFileAtomically(
            o.clusterProfileOut, trainplan::clusterProfileToJson(analysis.plan, planFileBaseName(o.clusterProfileOut)).dump(2) + "\n");
    if (o.pdf.empty() && o.slides.empty()) {
        for (const std::string* path : {&o.markdown, &o.megatronArgs, &o.torchtitanConfig, &o.megatronBridgeConfig, &o.clusterProfileOut})
            if (!path->empty())
                std::cout << *path << "\n";
        return exitStatusFor(analysis.estimate);
    }
#ifdef TRAINPLAN_WITH_EXPORT
    useOffscreenWithoutDisplay();
    QGuiApplication app(argc, argv);
    ExportRequest request;
    request.pdfPath = QString::fromStdString(o.pdf);
    request.pageSize = o.letter ? QPageSize::Letter : QPageSize::A4;
    request.slidesDirectory = QString::fromStdString(o.slides);
    if (o.deadlineDays)
        request.sizing = trainplan::sizeCluster(analysis.plan, sizingOptionsFrom(o));  // the report's sizing section
    QString error;
    QStringList written, kept;
    if (!exporter::run(analysis, QFileInfo(QString::fromStdString(o.planPath)).completeBaseName(), request, &error, &written, &kept)) {
        std::cerr << "trainplan-cli: " << error.toStdString() << "\n";
        return kExitFailure;
    }
    for (const auto& f : written)
        std::cout << f.toStdString() << "\n";
    for (const auto& f : kept)
        std::cerr << "trainplan-cli: kept " << f.toStdString() << " (TrainPlan did not write it)\n";
    for (const std::string* path : {&o.markdown, &o.megatronArgs, &o.torchtitanConfig, &o.megatronBridgeConfig, &o.clusterProfileOut})
        if (!path->empty())
            std::cout << *path << "\n";
    return exitStatusFor(analysis.estimate);
#else
    (void)argc;
    (void)argv;
    std::cerr << "trainplan-cli: --pdf and --slides need the Qt views; this build has TRAINPLAN_BUILD_UI=OFF\n";
    return kExitFailure;
#endif
}

}  // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::cout << kUsage;
            return kExitOk;
        }
        if (!std::strcmp(argv[i], "--version")) {
            std::cout << "trainplan-cli " << trainplan::kVersion << "\n";
            return kExitOk;
        }
    }
    try {
        const Options options = parseArguments(argc, argv);
        if (options.verb == "export")
            return runExport(options, argc, argv);
        if (options.verb == "search")
            return runSearch(options);
        if (options.verb == "presets")
            return runPresets(options);
        if (options.verb == "fields")
            return runFields(options);
        if (options.verb == "import")
            return runImport(options);
        if (options.verb == "compare")
            return runCompare(options);
        if (options.verb == "calibrate")
            return runCalibrate(options);
        if (options.verb == "size")
            return runSize(options);
        return options.verb == "schedule" ? runSchedule(options) : runEstimate(options);
    } catch (const PresetNameError& e) {
        std::cerr << "trainplan-cli: " << e.what() << "\n";
        return kExitInvalidInput;
    } catch (const UsageError& e) {
        std::cerr << "trainplan-cli: " << e.what() << "\n\n" << kUsage;
        return kExitInvalidInput;
    } catch (const trainplan::PlanError& e) {
        for (const auto& p : e.problems())
            std::cerr << "trainplan-cli: invalid plan: " << (p.path.empty() ? "" : p.path + ": ") << p.message << "\n";
        return kExitInvalidInput;
    } catch (const trainplan::FileWriteError& e) {
        std::cerr << "trainplan-cli: " << e.what() << "\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "trainplan-cli: " << e.what() << "\n";
        return kExitFailure;
    }
}
