// libFuzzer target: sensitivity (analysis/Sensitivity.h) of a plan read from the input, on the
// basis and with the fraction of its "fuzz" object ({"basis": "assumed", "fraction": 0.2}).
// Rejection (PlanError) is fine; an exception, a sanitizer report, a non-finite figure, or bars
// that break the header's promises (order, ends, swings) abort.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/analysis/Sensitivity.h"

namespace {

using fuzzchecks::fail;

void checkBar(const trainplan::SensitivityBar& bar, double fraction, size_t i)
{
    const std::string at = "sensitivity bar " + std::to_string(i) + " (" + bar.field + "): ";
    for (double v : {bar.baseValue, bar.lowValue, bar.highValue, bar.stepSecondsLow, bar.stepSecondsHigh, bar.daysLow, bar.daysHigh,
             bar.swingDays, bar.swingStepSeconds})
        if (!std::isfinite(v))
            fail(at + "a figure is not finite");
    if (!(bar.stepSecondsLow > 0) || !(bar.stepSecondsHigh > 0) || bar.daysLow < 0 || bar.daysHigh < 0)
        fail(at + "a step time that is not positive or negative days");
    if (bar.swingDays != std::abs(bar.daysHigh - bar.daysLow) || bar.swingStepSeconds != std::abs(bar.stepSecondsHigh - bar.stepSecondsLow))
        fail(at + "a swing that is not the difference of its ends");
    fuzzchecks::requireText(bar.input, at + "input");
    fuzzchecks::requireText(bar.field, at + "field");
    fuzzchecks::requireText(bar.change, at + "change");
    switch (bar.kind) {
    case trainplan::SensitivityKind::Continuous: {
        const double tolerance = 1e-9 * std::abs(bar.baseValue);
        if (std::abs(bar.lowValue - bar.baseValue * (1 - fraction)) > tolerance
            || std::abs(bar.highValue - bar.baseValue * (1 + fraction)) > tolerance)
            fail(at + "a continuous input not moved by the fraction");
        break;
    }
    case trainplan::SensitivityKind::Discrete:
        if (!(bar.lowValue <= bar.baseValue && bar.baseValue <= bar.highValue))
            fail(at + "a whole-number input's low end above its base or high end below it");
        break;
    case trainplan::SensitivityKind::Unknown:
        // The low end is the slower value, whichever it is (Sensitivity.cpp).
        if (bar.stepSecondsLow < bar.stepSecondsHigh || !(bar.swingStepSeconds > 0))
            fail(at + "an unknown input's low end is not the slower or it does not move the step");
        fuzzchecks::requireText(bar.lowText, at + "low text");
        fuzzchecks::requireText(bar.baseText, at + "base text");
        fuzzchecks::requireText(bar.highText, at + "high text");
        break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    trainplan::Plan plan;
    nlohmann::json options;
    if (!fuzzchecks::readPlanInput(data, size, plan, options))
        return 0;
    trainplan::SensitivityOptions o;
    o.basis = fuzzchecks::optionText(options, "basis", "predicted") == "assumed" ? trainplan::SensitivityBasis::Assumed
                                                                                 : trainplan::SensitivityBasis::Predicted;
    o.fraction = fuzzchecks::optionNumber(options, "fraction", 0.01, 0.5, 0.10);

    const trainplan::SensitivityResult r = trainplan::sensitivity(plan, o);
    if (r.basis != o.basis)
        fail("the result's basis is not the one asked for");
    if (!std::isfinite(r.baseStepSeconds) || !(r.baseStepSeconds > 0) || !std::isfinite(r.baseDays) || r.baseDays < 0)
        fail("base step " + std::to_string(r.baseStepSeconds) + " s, base days " + std::to_string(r.baseDays));
    fuzzchecks::requireText(r.basisLabel, "basis label");
    fuzzchecks::requireText(r.title, "title");
    for (size_t i = 0; i < r.bars.size(); ++i) {
        checkBar(r.bars[i], o.fraction, i);
        if (o.basis == trainplan::SensitivityBasis::Assumed && r.bars[i].kind == trainplan::SensitivityKind::Unknown)
            fail("an unknown input's bar on the assumed basis");
        if (i > 0 && r.bars[i].swingDays > r.bars[i - 1].swingDays)
            fail("bars not widest swing first at " + std::to_string(i));
    }
    fuzzchecks::requireDumpable(trainplan::sensitivityToJson(r), "sensitivity");
    return 0;
}
