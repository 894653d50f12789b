#include "ui/document/PlanDocument.h"

#include <QFile>
#include <QFileInfo>

#include "core/base/AtomicFile.h"
#include "core/base/BoundedFile.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/PlanName.h"
#include "core/planfile/WorkedExamples.h"
#include "ui/document/PlanEditCommand.h"

PlanDocument::PlanDocument(QObject* parent)
    : QObject(parent)
    , plan_(trainplan::defaultPlan())
{
    // A slider tick onto a deep pipeline simulates about twenty range variants: the second core
    // takes half of them (the window's other work runs on this thread).
    analyser_.shareRangeWithHelperThread(true);
    recompute();
    connect(&undo_, &QUndoStack::cleanChanged, this, &PlanDocument::fileStateChanged);
}

PlanDocument::~PlanDocument()
{
    undo_.disconnect(this);
    blockSignals(true);
}

void PlanDocument::recompute()
{
    analyser_.analyse(plan_, analysis_);
}

void PlanDocument::setTimeBasis(TimeBasis basis)
{
    if (basis == timeBasis_)
        return;
    timeBasis_ = basis;
    emit timeBasisChanged();
    emit planChanged();  // every time figure on screen changes with the basis
}

void PlanDocument::setPlanFromCommand(const trainplan::Plan& plan)
{
    plan_ = plan;
    recompute();
    emit planChanged();
}

void PlanDocument::edit(const QString& description, const std::function<void(trainplan::Plan&)>& change, int mergeKey)
{
    trainplan::Plan next = plan_;
    change(next);
    applyPlan(next, description, mergeKey);
}

void PlanDocument::applyPlan(const trainplan::Plan& plan, const QString& description, int mergeKey)
{
    // A generated name follows every edit here, in the same undo step as the edit.
    trainplan::Plan next = plan;
    trainplan::refreshPlanName(next);
    // A layout field the plan left unknown becomes known once an edit sets it.
    trainplan::markEditedLayoutFieldsKnown(plan_, next);
    if (next == plan_)
        return;
    continuingEdit_ = mergeKey != 0;
    undo_.push(new PlanEditCommand(this, plan_, next, description, mergeKey, mergeSerial_));
    continuingEdit_ = false;
}

void PlanDocument::setName(const QString& typed)
{
    if (typed == QString::fromStdString(plan_.name))
        return;  // leaving the field unchanged must not turn a generated name into a typed one
    const QString description = typed.trimmed().isEmpty() ? tr("Name the plan after what it plans") : tr("Rename the plan");
    edit(description, [&](trainplan::Plan& p) { trainplan::setPlanName(p, typed.toStdString()); });
}

void PlanDocument::setLayoutDimension(trainplan::ParallelDim d, int value, int mergeKey)
{
    const auto label = trainplan::parallelDimLabel(d);
    applyPlan(trainplan::withLayoutValue(plan_, d, value, follower_),
              QString("Set %1 to %2").arg(QLatin1String(label.data(), qsizetype(label.size()))).arg(value), mergeKey);
}

void PlanDocument::setFollower(trainplan::Follower f)
{
    if (f == follower_)
        return;
    follower_ = f;
    emit followerChanged();
}

void PlanDocument::resetTo(const trainplan::Plan& plan, const QString& path)
{
    plan_ = plan;
    trainplan::refreshPlanName(plan_);
    path_ = path;
    undo_.clear();
    undo_.setClean();
    recompute();
    emit planChanged();
    emit fileStateChanged();
}

bool PlanDocument::load(const QString& path, QString* error)
{
    std::string text;
    try {
        // The bounded reader: regular files only (never /dev/zero or a named pipe), 16 MiB at most.
        text = trainplan::readRegularFile(QFile::encodeName(path).toStdString());
    } catch (const trainplan::PlanError& e) {
        QString message = QString::fromStdString(e.problems().empty() ? std::string(e.what()) : e.problems().front().message);
        if (!message.isEmpty())
            message[0] = message[0].toUpper();
        *error = message;
        return false;
    }
    try {
        resetTo(trainplan::planFromText(text), QFileInfo(path).absoluteFilePath());
        return true;
    } catch (const trainplan::PlanError& e) {
        QStringList lines;
        for (const auto& p : e.problems())
            lines << (p.path.empty() ? QString() : QString::fromStdString(p.path) + ": ") + QString::fromStdString(p.message);
        *error = QString("%1 is not a valid plan:\n%2").arg(QFileInfo(path).fileName(), lines.join('\n'));
        return false;
    }
}

bool PlanDocument::save(const QString& path, QString* error)
{
    // The core's one writer: a temporary file beside the target, every write and the rename
    // checked, the previous file untouched on any failure (a full disk included), a symlink's
    // target replaced rather than the link.
    try {
        trainplan::writeFileAtomically(QFile::encodeName(path).toStdString(), trainplan::planToText(plan_));
    } catch (const trainplan::FileWriteError& e) {
        if (error)
            *error = QString("Saving %1 failed: %2. The file on disk is unchanged.").arg(path, QString::fromLocal8Bit(e.what()));
        return false;
    }
    path_ = QFileInfo(path).absoluteFilePath();
    undo_.setClean();
    emit fileStateChanged();
    return true;
}

void PlanDocument::restoreRecovered(const trainplan::Plan& plan, const QString& originalPath)
{
    QString ignored;
    if (originalPath.isEmpty() || !load(originalPath, &ignored))
        resetTo(trainplan::defaultPlan());
    if (plan == plan_)
        undo_.resetClean();  // the same figures as the file, but a recovery is never "saved"
    else
        applyPlan(plan, tr("Restore unsaved changes"));
}

QString PlanDocument::displayName() const
{
    return path_.isEmpty() ? QStringLiteral("Untitled plan") : QFileInfo(path_).fileName();
}
