// One piece of work at a time on a worker thread, so a window stays live while it runs (the
// layout search, the cluster sizing). Progress and the outcome come back to the owner's thread
// through queued calls; cancel() sets the flag the work polls; a destroyed runner cancels and
// joins, so the worker never outlives it. SearchRunner and SizingRunner run theirs here.
#pragma once

#include <QObject>

#include <atomic>
#include <functional>
#include <thread>

class WorkerRunner : public QObject {
    Q_OBJECT

public:
    using Progress = std::function<void(double fraction)>;
    // Runs on the worker with its own copies of what it reads: does the work (polling `cancel`,
    // calling `progress`) and returns what to do with its outcome on the owner's thread, just
    // before finished() (keep the result, the error).
    using Work = std::function<std::function<void()>(std::atomic<bool>* cancel, const Progress& progress)>;

    explicit WorkerRunner(QObject* parent = nullptr);
    ~WorkerRunner() override;

    bool isRunning() const { return running_; }
    void cancel();

signals:
    void progressChanged(double fraction);
    void finished();

protected:
    // False (and nothing happens) while work is running.
    bool run(Work work);

private:
    void deliver(int generation, const std::function<void()>& accept);

    std::thread thread_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
    int generation_ = 0;  // drops late progress calls of earlier work
};
