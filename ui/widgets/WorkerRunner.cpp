#include "ui/widgets/WorkerRunner.h"

#include <QMetaObject>

WorkerRunner::WorkerRunner(QObject* parent)
    : QObject(parent)
{
}

WorkerRunner::~WorkerRunner()
{
    // The worker only reads its own copies; stop it and wait so it never outlives us.
    cancel_ = true;
    if (thread_.joinable())
        thread_.join();
}

bool WorkerRunner::run(Work work)
{
    if (running_)
        return false;
    if (thread_.joinable())
        thread_.join();
    cancel_ = false;
    running_ = true;
    const int generation = ++generation_;
    // Queued calls to `this` are dropped by Qt if the runner is gone, and the destructor
    // joins first, so the worker never touches a dead object.
    thread_ = std::thread([this, work = std::move(work), generation] {
        const Progress progress = [this, generation](double fraction) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, fraction] {
                    if (generation == generation_ && running_)
                        emit progressChanged(fraction);
                },
                Qt::QueuedConnection);
        };
        std::function<void()> accept = work(&cancel_, progress);
        QMetaObject::invokeMethod(this, [this, generation, accept = std::move(accept)] { deliver(generation, accept); }, Qt::QueuedConnection);
    });
    return true;
}

void WorkerRunner::cancel()
{
    if (running_)
        cancel_ = true;
}

void WorkerRunner::deliver(int generation, const std::function<void()>& accept)
{
    if (generation != generation_)
        return;
    // The worker posted this as its last act; joining waits only for its stack to unwind.
    if (thread_.joinable())
        thread_.join();
    running_ = false;
    if (accept)
        accept();
    emit finished();
}
