// An estimate/ header including plan/, below it: allowed.
#pragma once

#include "plan/Plan.h"
