#include "ui/sizing/SizingRunner.h"

#include <QStringList>

#include <memory>

#include "core/base/PlanError.h"

bool SizingRunner::start(const trainplan::Plan& plan, const trainplan::SizingOptions& options)
{
    return run([this, plan, options](std::atomic<bool>* cancel, const Progress& progress) -> std::function<void()> {
        struct Outcome {
            trainplan::SizingResult result;
            QString error;
        };
        auto outcome = std::make_shared<Outcome>();
        try {
            outcome->result = trainplan::sizeCluster(plan, options, cancel, progress);
        } catch (const trainplan::PlanError& e) {
            QStringList lines;
            for (const auto& p : e.problems())
                lines << QString::fromStdString(p.path.empty() ? p.message : p.path + ": " + p.message);
            outcome->error = lines.join('\n');
        }
        return [this, outcome] {
            error_ = outcome->error;
            if (error_.isEmpty())
                result_ = std::move(outcome->result);
        };
    });
}
