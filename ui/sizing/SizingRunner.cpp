#include "ui/sizing/SizingRunner.h"

#include <QMetaObject>
#include <QStringList>

#include "core/base/PlanError.h"

SizingRunner::SizingRunner(QObject* parent)
    : QObject(parent)
{
}

SizingRunner::~SizingRunner()
{
    cancel_ = true;
    if (thread_.joinable())
        thread_.join();
}

bool SizingRunner::start(const trainplan::Plan& plan, const trainplan::SizingOptions& options)
{
    if (running_)
        return false;
    if (thread_.joinable())
        thread_.join();
    cancel_ = false;
    running_ = true;
    const int generation = ++generation_;
    // As SearchRunner: queued calls to a dead runner are dropped, and the destructor joins first.
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
        auto outcome = std::make_shared<Outcome>();
        try {
            outcome->result = trainplan::sizeCluster(plan, options, &cancel_, progress);
        } catch (const trainplan::PlanError& e) {
            QStringList lines;
            for (const auto& p : e.problems())
                lines << QString::fromStdString(p.path.empty() ? p.message : p.path + ": " + p.message);
            outcome->error = lines.join('\n');
        }
        QMetaObject::invokeMethod(this, [this, generation, outcome] { deliver(generation, outcome); }, Qt::QueuedConnection);
    });
    return true;
}

void SizingRunner::cancel()
{
    if (running_)
        cancel_ = true;
}

void SizingRunner::deliver(int generation, std::shared_ptr<Outcome> outcome)
{
    if (generation != generation_)
        return;
    if (thread_.joinable())
        thread_.join();
    running_ = false;
    error_ = outcome->error;
    if (error_.isEmpty())
        result_ = std::move(outcome->result);
    emit finished();
}
