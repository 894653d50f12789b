#include "ui/search/SearchRunner.h"

#include <QMetaObject>

SearchRunner::SearchRunner(QObject* parent)
    : QObject(parent)
{
}

SearchRunner::~SearchRunner()
{
    // The worker only reads its own copies; stop it and wait so it never outlives us.
    cancel_ = true;
    if (thread_.joinable())
        thread_.join();
}

bool SearchRunner::start(const trainplan::Plan& plan, const trainplan::SearchOptions& options)
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
    thread_ = std::thread([this, plan, options, generation] {
        auto progress = [this, generation](double fraction) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, fraction] {
                    if (generation == generation_ && running_)
                        emit progressChanged(fraction);
                },
                Qt::QueuedConnection);
        };
        auto result = std::make_shared<trainplan::SearchResult>(trainplan::searchLayouts(plan, options, &cancel_, progress));
        QMetaObject::invokeMethod(this, [this, generation, result] { deliver(generation, result); }, Qt::QueuedConnection);
    });
    return true;
}

void SearchRunner::cancel()
{
    if (running_)
        cancel_ = true;
}

void SearchRunner::deliver(int generation, std::shared_ptr<trainplan::SearchResult> result)
{
    if (generation != generation_)
        return;
    // The worker posted this as its last act; joining waits only for its stack to unwind.
    if (thread_.joinable())
        thread_.join();
    running_ = false;
    result_ = std::move(*result);
    emit finished();
}
