#include "core/base/PlanError.h"

namespace trainplan {

PlanError::PlanError(std::vector<PlanProblem> problems)
    : std::runtime_error(problems.empty() ? "invalid plan" : problems.front().path + ": " + problems.front().message)
    , problems_(std::move(problems))
{
}

}  // namespace trainplan
