// A plan/ header reaching up to the estimate: the area check (cmake/LayerRules.cmake) must reject it.
#pragma once

#include "base/Units.h"
#include "estimate/Estimate.h"
