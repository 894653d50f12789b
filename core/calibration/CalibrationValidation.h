// How well one measured run predicts the other layouts of its cluster: the reference runs
// (analysis/RealityCheck.h) taken in pairs of one family (one source: one cluster, one stack) and
// one accelerator. Each gated step-time row in turn is the "measured run": calibrate() fits the
// plan to its measured step, the fitted figures go into every other row of the family, and those
// rows are predicted. Their residuals are the calibrated model's error out of sample, and their
// conformal band (weighing each predicted row alike, however many rows calibrated it) is the band
// a calibrated plan's range uses (steptime/StepTimeRange.cpp kCalibratedStepErrorBand, which
// tst_calibration recomputes from this).
#pragma once

#include <string>
#include <vector>

#include "core/analysis/RealityCheck.h"

namespace trainplan {

struct CalibratedPair {
    std::string calibratedOn;  // the row whose measured step was fitted
    std::string predicted;     // the row predicted with the fitted figures
    std::string family;
    double errorBefore = 0;    // the predicted row's error with the shipped figures
    double errorAfter = 0;     // and with the figures fitted on calibratedOn
    double logStepResidual = 0;  // after: ln(measured step / predicted step)
    bool sameModel = false;      // both rows train one model shape (only the layout or batch differs)
};

// Errors of the step, |measured / predicted - 1|, over a set of rows (median, 90th percentile).
struct StepErrorStats {
    int count = 0;
    double median = 0;
    double p90 = 0;
};

struct FamilyCalibration {
    std::string family;
    StepErrorStats outOfSample;  // the family's rows predicted with figures fitted without it
    StepErrorStats calibrated;   // and calibrated on one other row of the family
};

struct CalibrationValidation {
    std::vector<CalibratedPair> pairs;
    int calibrations = 0;          // rows whose fit succeeded
    int refusals = 0;              // rows calibrate() could not fit (listed in notFitted)
    StepErrorStats inSample;       // the predicted rows with the shipped figures (each row once)
    StepErrorStats outOfSample;    // the same rows leave-one-family-out (a cluster never measured)
    StepErrorStats calibrated;     // over the pairs: a cluster measured once, on another layout
    StepErrorStats calibratedSameModel;  // the pairs whose two rows train one model shape
    std::vector<FamilyCalibration> families;
    StepErrorBand band;            // conformal band of the pairs' residuals at the shipped coverage
};

CalibrationValidation validateOneRunCalibration(const std::vector<RealityCase>& cases);

}  // namespace trainplan
