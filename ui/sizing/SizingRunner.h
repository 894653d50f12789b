// Runs trainplan::sizeCluster on a worker thread so the window stays live while every accelerator
// and GPU count is searched. Progress, the result or the options' problem come back to the
// owner's thread through queued calls; cancel() sets the flag the core polls. One sizing at a
// time; a destroyed runner cancels and joins.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

#include "core/sizing/ClusterSizing.h"

class SizingRunner : public QObject {
    Q_OBJECT

public:
    explicit SizingRunner(QObject* parent = nullptr);
    ~SizingRunner() override;

    // False (and nothing happens) while a sizing is running.
    bool start(const trainplan::Plan& plan, const trainplan::SizingOptions& options);
    void cancel();
    bool isRunning() const { return running_; }
    const trainplan::SizingResult& result() const { return result_; }
    // Why the last sizing did not run (its options' problems, by field), or empty.
    QString error() const { return error_; }

signals:
    void progressChanged(double fraction);
    void finished();

private:
    struct Outcome {
        trainplan::SizingResult result;
        QString error;
    };
    void deliver(int generation, std::shared_ptr<Outcome> outcome);

    std::thread thread_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
    int generation_ = 0;
    trainplan::SizingResult result_;
    QString error_;
};
