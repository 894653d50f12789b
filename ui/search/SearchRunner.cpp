#include "ui/search/SearchRunner.h"

#include <memory>

bool SearchRunner::start(const trainplan::Plan& plan, const trainplan::SearchOptions& options)
{
    return run([this, plan, options](std::atomic<bool>* cancel, const Progress& progress) -> std::function<void()> {
        auto result = std::make_shared<trainplan::SearchResult>(trainplan::searchLayouts(plan, options, cancel, progress));
        return [this, result] { result_ = std::move(*result); };
    });
}
