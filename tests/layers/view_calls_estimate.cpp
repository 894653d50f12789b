// A view that computes a figure itself instead of reading the analysis: the check of
// cmake/ViewsComputeNothing.cmake must reject it (layer_views_check_rejects_an_estimating_view).
#include "core/estimate/Estimate.h"

double stepSecondsOfItsOwn(const trainplan::Plan& plan)
{
    return trainplan::estimate(plan).time.stepSeconds;
}
