#include "core/planfile/PlanName.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/base/Units.h"
#include "core/estimate/ParameterModel.h"
#include "core/presets/Presets.h"

namespace trainplan {

namespace {

// "2,048": digits grouped in threes, as the worked examples write GPU counts.
std::string grouped(long long n)
{
    std::string digits = std::to_string(n < 0 ? -n : n);
    for (int at = int(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(size_t(at), ",");
    return (n < 0 ? "-" : "") + digits;
}

// 1.4e12 -> "1.4T", 3e11 -> "300B", 7.06e10 -> "71B" (two digits): `significant` digits, no
// trailing zeros, no exponent; a count past the largest scale is grouped ("1,000,000T").
std::string shortCount(double value, int significant)
{
    struct Scale { double factor; const char* suffix; };
    static const Scale scales[] = {{units::tera, "T"}, {units::giga, "B"}, {units::mega, "M"}, {units::kilo, "K"}, {1, ""}};
    if (!std::isfinite(value) || value <= 0)
        return "0";
    // Round first, so 999.6B becomes "1T" rather than "1,000B".
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)) - (significant - 1));
    const double rounded = std::round(value / magnitude) * magnitude;
    for (const Scale& s : scales) {
        if (rounded < s.factor && s.factor > 1)
            continue;
        const double scaled = rounded / s.factor;
        if (scaled >= 1000)
            return grouped((long long)std::llround(scaled)) + s.suffix;
        const int decimals = std::max(0, significant - 1 - int(std::floor(std::log10(scaled))));
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, scaled);
        std::string text = buf;
        if (text.find('.') != std::string::npos) {
            text.erase(text.find_last_not_of('0') + 1);
            if (text.back() == '.')
                text.pop_back();
        }
        return text + s.suffix;
    }
    return "0";
}

// "70B" in "Llama 3.1 70B", "1T" in "Megatron 1T": the size as the model's authors name it.
std::string sizeToken(const std::string& presetName)
{
    size_t at = 0;
    while (at < presetName.size()) {
        while (at < presetName.size() && presetName[at] == ' ')
            ++at;
        size_t end = presetName.find(' ', at);
        if (end == std::string::npos)
            end = presetName.size();
        const std::string word = presetName.substr(at, end - at);
        at = end;
        if (word.size() < 2 || !std::isdigit((unsigned char)word.front()))
            continue;
        const char suffix = word.back();
        if (suffix != 'B' && suffix != 'T' && suffix != 'M')
            continue;
        bool number = true;
        for (size_t i = 0; i + 1 < word.size(); ++i)
            number = number && (std::isdigit((unsigned char)word[i]) || word[i] == '.');
        if (number)
            return word;
    }
    return {};
}

std::string modelSize(const ModelSpec& model)
{
    if (const ModelPreset* preset = modelPresetOf(model)) {
        const std::string named = sizeToken(preset->model.name);
        if (!named.empty())
            return named;
    }
    // A model of its own: two significant digits, as sizes are quoted ("71B", "6.7B").
    return shortCount(countParameters(model).total, 2);
}

std::string acceleratorName(const ClusterSpec& cluster)
{
    const AcceleratorPreset* preset = acceleratorPresetOf(cluster);
    if (!preset) {
        const int named = presetLabelIndex(cluster.accelerator);
        preset = named >= 0 ? &acceleratorPresets()[size_t(named)] : nullptr;
    }
    if (!preset)
        return "GPU";
    // "H100 SXM 80GB" -> "H100": the part, without form factor and memory.
    const std::string& name = preset->name;
    return name.substr(0, name.find(' '));
}

}  // namespace

std::string generatedPlanName(const Plan& plan)
{
    const int gpus = plan.cluster.gpus;
    return modelSize(plan.model) + " on " + grouped(gpus) + " " + acceleratorName(plan.cluster) + (gpus == 1 ? "" : "s") + ", " +
           shortCount(plan.training.tokens, 3) + " tokens";
}

void refreshPlanName(Plan& plan)
{
    if (!plan.nameUserSet)
        plan.name = generatedPlanName(plan);
}

void setPlanName(Plan& plan, const std::string& typed)
{
    const bool blank = typed.find_first_not_of(" \t\r\n") == std::string::npos;
    plan.nameUserSet = !blank;
    if (blank)
        refreshPlanName(plan);
    else
        plan.name = typed;
}

}  // namespace trainplan
