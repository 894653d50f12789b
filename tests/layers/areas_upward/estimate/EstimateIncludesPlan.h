// An estimate/ header including plan/, below it: allowed.
#pragma once

#include "core/plan/Plan.h"
