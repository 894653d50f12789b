#include "core/calibration/TrainingLog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/base/Units.h"

namespace trainplan {

namespace {

// A log line without its terminal colour codes (ESC [ ... letter), which torchtitan writes.
std::string withoutColour(std::string_view line)
{
    std::string out;
    out.reserve(line.size());
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i])))
                ++i;
            continue;
        }
        out += line[i];
    }
    return out;
}

// The number right after `label` in `line` (spaces skipped, thousands commas dropped), if any.
// from_chars: locale-independent (the window's process runs under the user's locale).
std::optional<double> numberAfter(std::string_view line, std::string_view label)
{
    const size_t at = line.find(label);
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t i = at + label.size();
    while (i < line.size() && line[i] == ' ')
        ++i;
    std::string digits;
    while (i < line.size() && digits.size() < 64
        && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.' || line[i] == ',' || line[i] == 'e' || line[i] == 'E'
            || line[i] == '+' || line[i] == '-')) {
        if (line[i] != ',')
            digits += line[i];
        ++i;
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end == digits.data() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median after the warm-up iteration (TrainingLog.h).
double steadyMedian(const std::vector<double>& values)
{
    if (values.size() >= 3)
        return medianOf(std::vector<double>(values.begin() + 1, values.end()));
    return medianOf(values);
}

}  // namespace

MeasuredRun measuredRunFromLog(std::string_view text, const std::string& sourceName)
{
    std::vector<double> megatronMs, titanTps;
    double peakReserved = 0;
    // A reading in MiB or GiB, in bytes; one so large that its bytes overflow is no GPU's.
    const auto memoryReading = [](double value, double unit, const char* unitName) {
        const double bytes = value * unit;
        if (!std::isfinite(bytes))
            throw PlanError({PlanProblem{"log", "a memory reading of " + formatSci(value) + " " + unitName + " is not a figure a GPU reports"}});
        return bytes;
    };
    size_t from = 0;
    while (from < text.size()) {
        size_t end = text.find('\n', from);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string line = withoutColour(text.substr(from, end - from));
        from = end + 1;
        if (auto ms = numberAfter(line, "elapsed time per iteration (ms):"); ms && *ms > 0)
            megatronMs.push_back(*ms);
        if (line.find("memory (MB)") != std::string::npos)
            if (auto mib = numberAfter(line, "max reserved:"); mib && *mib > 0)
                peakReserved = std::max(peakReserved, memoryReading(*mib, units::MiB, "MiB"));
        if (line.find("step:") != std::string::npos) {
            if (auto tps = numberAfter(line, "tps:"); tps && *tps > 0) {
                titanTps.push_back(*tps);
                if (auto gib = numberAfter(line, "memory:"); gib && *gib > 0)
                    peakReserved = std::max(peakReserved, memoryReading(*gib, units::GiB, "GiB"));
            }
        }
    }
    MeasuredRun run;
    if (!megatronMs.empty()) {
        run.stepSeconds = steadyMedian(megatronMs) * 1e-3;
        run.samples = int(megatronMs.size());
        run.source = sourceName + " (Megatron-LM log): median of " + std::to_string(megatronMs.size() >= 3 ? megatronMs.size() - 1 : megatronMs.size())
            + " iteration reports";
    } else if (!titanTps.empty()) {
        run.tokensPerSecondPerGpu = steadyMedian(titanTps);
        run.samples = int(titanTps.size());
        run.source = sourceName + " (torchtitan log): median of " + std::to_string(titanTps.size() >= 3 ? titanTps.size() - 1 : titanTps.size())
            + " step reports";
    } else {
        throw PlanError({PlanProblem{"log",
            "has no iteration lines: expected Megatron-LM's \"elapsed time per iteration (ms): ...\" or torchtitan's \"step: ... tps: ...\""}});
    }
    if (peakReserved > 0) {
        run.peakMemoryBytes = peakReserved;
        run.peakIsAllocatorReserved = true;
    }
    return run;
}

MeasuredRun enteredMeasuredRun(std::optional<double> stepSeconds, std::optional<double> tokensPerSecondPerGpu)
{
    MeasuredRun run;
    run.stepSeconds = stepSeconds;
    run.tokensPerSecondPerGpu = stepSeconds ? std::nullopt : tokensPerSecondPerGpu;
    if (run.stepSeconds)
        run.source = "entered: step " + formatSeconds(*run.stepSeconds);
    else if (run.tokensPerSecondPerGpu)
        run.source = "entered: " + formatNumber(*run.tokensPerSecondPerGpu) + " tokens/s per GPU";
    return run;
}

}  // namespace trainplan
