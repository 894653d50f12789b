// Runs trainplan::searchLayouts on a worker thread so the window stays live during a search.
// Progress and the result come back to the owner's thread through queued calls; cancel() sets
// the atomic flag the core polls. One search at a time; a destroyed runner cancels and joins.
#pragma once

#include <QObject>

#include <atomic>
#include <memory>
#include <thread>

#include "core/search/LayoutSearch.h"

class SearchRunner : public QObject {
    Q_OBJECT

public:
    explicit SearchRunner(QObject* parent = nullptr);
    ~SearchRunner() override;

    // False (and nothing happens) while a search is running.
    bool start(const trainplan::Plan& plan, const trainplan::SearchOptions& options);
    void cancel();
    bool isRunning() const { return running_; }
    // The last finished search (empty before the first).
    const trainplan::SearchResult& result() const { return result_; }

signals:
    void progressChanged(double fraction);
    void finished();  // result() holds the rows; result().cancelled says if cut short

private:
    void deliver(int generation, std::shared_ptr<trainplan::SearchResult> result);

    std::thread thread_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
    int generation_ = 0;  // drops late progress calls of an earlier search
    trainplan::SearchResult result_;
};
