// Runs trainplan::searchLayouts on a worker thread (WorkerRunner) so the window stays live during
// a search: progressChanged(), then finished() with result() holding the rows.
#pragma once

#include "core/search/LayoutSearch.h"
#include "ui/widgets/WorkerRunner.h"

class SearchRunner : public WorkerRunner {
    Q_OBJECT

public:
    using WorkerRunner::WorkerRunner;

    // False (and nothing happens) while a search is running.
    bool start(const trainplan::Plan& plan, const trainplan::SearchOptions& options);
    // The last finished search (empty before the first); result().cancelled says if cut short.
    const trainplan::SearchResult& result() const { return result_; }

private:
    trainplan::SearchResult result_;
};
