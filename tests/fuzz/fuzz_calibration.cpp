// libFuzzer target: a training log (calibration/TrainingLog.h) on arbitrary bytes, then a
// calibration of the default plan to what it read. Rejection (PlanError, with a reason) is fine;
// a measured figure that is not finite and positive, a non-finite figure in the report, or a
// calibrated plan the reader refuses (its record must round-trip) aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/calibration/Calibration.h"
#include "core/calibration/TrainingLog.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/WorkedExamples.h"

using fuzzchecks::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    static const trainplan::Plan base = trainplan::defaultPlan();
    trainplan::MeasuredRun run;
    try {
        run = trainplan::measuredRunFromLog(bytes, "fuzz.log");
    } catch (const trainplan::PlanError& e) {
        fuzzchecks::requireReasonedRejection(e);
        return 0;
    }
    for (const auto& figure : {run.stepSeconds, run.tokensPerSecondPerGpu, run.peakMemoryBytes})
        if (figure && !(std::isfinite(*figure) && *figure > 0))
            fail("a log figure that is not finite and positive");
    if (!run.hasThroughput())
        fail("a log accepted without a step or a throughput");
    trainplan::CalibrationInputs inputs;
    inputs.run = run;
    inputs.date = "2026-12-05";
    trainplan::CalibrationResult result;
    try {
        result = trainplan::calibrate(base, inputs);
    } catch (const trainplan::PlanError& e) {
        fuzzchecks::requireReasonedRejection(e);
        return 0;
    }
    fuzzchecks::requireDumpable(trainplan::calibrationToJson(result), "calibration report");
    fuzzchecks::requireText(trainplan::calibrationToText(result), "calibration report text");
    try {
        if (!(trainplan::planFromJson(trainplan::planToJson(result.plan)) == result.plan))
            fail("the calibrated plan does not round-trip");
    } catch (const trainplan::PlanError& e) {
        fail("the reader refuses the calibrated plan: " + e.problems().front().path + ": " + e.problems().front().message);
    }
    fuzzchecks::checkAcceptedPlan(result.plan);
    return 0;
}
