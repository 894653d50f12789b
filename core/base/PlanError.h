// A plan that cannot be used: every problem found, each naming its JSON path.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace trainplan {

struct PlanProblem {
    std::string path;     // e.g. "layout.tp"
    std::string message;  // e.g. "must be a whole number, got 2.5"
};

class PlanError : public std::runtime_error {
public:
    explicit PlanError(std::vector<PlanProblem> problems);
    const std::vector<PlanProblem>& problems() const { return problems_; }

private:
    std::vector<PlanProblem> problems_;
};

}  // namespace trainplan
