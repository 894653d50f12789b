// A plan/ header reaching up to the estimate: the area check (cmake/LayerRules.cmake) must reject it.
#pragma once

#include "core/base/Units.h"
#include "core/estimate/Estimate.h"
