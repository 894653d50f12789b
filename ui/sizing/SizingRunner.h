// Runs trainplan::sizeCluster on a worker thread (WorkerRunner) so the window stays live while
// every accelerator and GPU count is searched: progressChanged(), then finished() with result(),
// or error() naming the options' problems.
#pragma once

#include <QString>

#include "core/sizing/ClusterSizing.h"
#include "ui/widgets/WorkerRunner.h"

class SizingRunner : public WorkerRunner {
    Q_OBJECT

public:
    using WorkerRunner::WorkerRunner;

    // False (and nothing happens) while a sizing is running.
    bool start(const trainplan::Plan& plan, const trainplan::SizingOptions& options);
    const trainplan::SizingResult& result() const { return result_; }
    // Why the last sizing did not run (its options' problems, by field), or empty.
    QString error() const { return error_; }

private:
    trainplan::SizingResult result_;
    QString error_;
};
