#include "core/calibration/CalibrationValidation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/analysis/Analysis.h"
#include "core/calibration/Calibration.h"

namespace trainplan {

namespace {

StepErrorStats statsOfLogs(const std::vector<double>& logs)
{
    std::vector<double> errors;
    for (double l : logs)
        errors.push_back(std::abs(std::exp(l) - 1.0));
    std::sort(errors.begin(), errors.end());
    StepErrorStats s;
    s.count = int(errors.size());
    if (errors.empty())
        return s;
    const auto at = [&](double q) {
        const double pos = q * double(errors.size() - 1);
        const size_t lo = size_t(pos);
        const size_t hi = std::min(lo + 1, errors.size() - 1);
        return errors[lo] + (pos - double(lo)) * (errors[hi] - errors[lo]);
    };
    s.median = at(0.5);
    s.p90 = at(0.9);
    return s;
}

}  // namespace

CalibrationValidation validateOneRunCalibration(const std::vector<RealityCase>& cases)
{
    // Rows a whole step was measured on (not one layer, not memory), gated like the band's rows.
    std::vector<const RealityCase*> used;
    for (const auto& c : cases)
        if (c.gated && c.metric != RealityMetric::PeakMemoryGib && c.metric != RealityMetric::LayerMilliseconds)
            used.push_back(&c);
    std::vector<RealityRow> shipped;
    for (const RealityCase* c : used)
        shipped.push_back(evaluateRealityCase(*c));

    CalibrationValidation v;
    std::map<size_t, bool> predictedRows;
    std::vector<StepResidual> residuals;
    for (size_t i = 0; i < used.size(); ++i) {
        // The row's measured step, from its own prediction and residual (a throughput's ratio inverted).
        const Analysis analysis = analyse(used[i]->plan);
        CalibrationInputs inputs;
        inputs.run.stepSeconds = analysis.predicted.stepSeconds * std::exp(shipped[i].logStepResidual);
        inputs.run.source = used[i]->id;
        const CalibrationResult fit = calibrate(used[i]->plan, inputs);
        if (!fit.plan.cluster.efficiency.matmul) {
            ++v.refusals;
            continue;
        }
        ++v.calibrations;
        for (size_t j = 0; j < used.size(); ++j) {
            if (j == i || used[j]->family != used[i]->family || used[j]->accelerator != used[i]->accelerator)
                continue;
            RealityCase calibrated = *used[j];
            calibrated.plan.cluster.efficiency.matmul = fit.plan.cluster.efficiency.matmul;
            calibrated.plan.cluster.calibration = fit.plan.cluster.calibration;
            const RealityRow row = evaluateRealityCase(calibrated);
            v.pairs.push_back({used[i]->id, used[j]->id, used[j]->family, shipped[j].error, row.error, row.logStepResidual,
                sameModelShape(used[i]->plan.model, used[j]->plan.model)});
            predictedRows[j] = true;
            // Each predicted row weighs one, however many rows calibrated it (ConformalWeights::PerFamily by row id).
            residuals.push_back({used[j]->id + " from " + used[i]->id, used[j]->id, row.logStepResidual, 0.0, 0.0});
        }
    }
    // The same predicted rows leave-one-family-out (ModelValidation's held-out residuals, by id).
    const ModelValidation folds = validateModel(cases);
    std::map<std::string, double> heldOut;
    for (const StepResidual& r : folds.heldOutResiduals)
        heldOut[r.id] = r.log;
    std::vector<std::string> familyNames;
    std::map<std::string, std::vector<double>> familyBefore, familyAfter;
    std::vector<double> inSampleLogs, outOfSampleLogs, calibratedLogs, sameModelLogs;
    for (const auto& [j, seen] : predictedRows) {
        inSampleLogs.push_back(shipped[j].logStepResidual);
        if (const auto it = heldOut.find(used[j]->id); it != heldOut.end()) {
            outOfSampleLogs.push_back(it->second);
            familyBefore[used[j]->family].push_back(it->second);
        }
        if (std::find(familyNames.begin(), familyNames.end(), used[j]->family) == familyNames.end())
            familyNames.push_back(used[j]->family);
    }
    for (const auto& p : v.pairs) {
        calibratedLogs.push_back(p.logStepResidual);
        if (p.sameModel)
            sameModelLogs.push_back(p.logStepResidual);
        familyAfter[p.family].push_back(p.logStepResidual);
    }
    v.inSample = statsOfLogs(inSampleLogs);
    v.outOfSample = statsOfLogs(outOfSampleLogs);
    v.calibrated = statsOfLogs(calibratedLogs);
    v.calibratedSameModel = statsOfLogs(sameModelLogs);
    for (const auto& f : familyNames)
        v.families.push_back({f, statsOfLogs(familyBefore[f]), statsOfLogs(familyAfter[f])});
    v.band = conformalBand(residuals, stepErrorBand().coverage, ConformalWeights::PerFamily);
    return v;
}

}  // namespace trainplan
