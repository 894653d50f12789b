#include "ui/document/RecoveryStore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

#include "core/base/AtomicFile.h"
#include "core/base/BoundedFile.h"
#include "core/planfile/RecoveryDocument.h"

namespace {

QString lockPathOf(const QString& file)
{
    QString lock = file;
    lock.chop(int(QStringLiteral(".json").size()));
    return lock + QStringLiteral(".lock");
}

}  // namespace

RecoveryStore::RecoveryStore(QString directory)
    : directory_(std::move(directory))
{
    QDir().mkpath(directory_);
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    file_ = QDir(directory_).filePath(QStringLiteral("session-%1.json").arg(id));
    lock_ = std::make_unique<QLockFile>(lockPathOf(file_));
    lock_->setStaleLockTime(0);  // only a dead owner makes a lock stale, never its age
    lock_->tryLock(0);
}

RecoveryStore::~RecoveryStore() = default;  // the lock is released; the file stays unless cleared

QString RecoveryStore::defaultDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("recovery"));
}

bool RecoveryStore::write(const trainplan::Plan& plan, const QString& originalPath, QString* error)
{
    // The core's one atomic writer: every write and the sync are checked before the previous
    // copy is replaced, so a full disk keeps the last good recovery copy instead of 0 bytes.
    try {
        trainplan::writeFileAtomically(QFile::encodeName(file_).toStdString(),
            trainplan::recoveryDocumentToText(
                plan, originalPath.toStdString(), QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()));
    } catch (const trainplan::FileWriteError& e) {
        if (error)
            *error = QString::fromLocal8Bit(e.what());
        return false;
    } catch (const trainplan::PlanError& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

void RecoveryStore::clear()
{
    QFile::remove(file_);
}

std::vector<RecoveryStore::Pending> RecoveryStore::pending() const
{
    std::vector<Pending> out;
    const QDir dir(directory_);
    const auto ownerIsGone = [&](const QString& file) {
        QLockFile owner(lockPathOf(file));
        owner.setStaleLockTime(0);
        if (!owner.tryLock(0))
            return false;  // its TrainPlan is still running
        owner.unlock();
        return true;
    };
    // What a killed TrainPlan leaves besides its copy: a lock with no copy (it had nothing
    // unsaved), a temporary file of a write it never finished. The folder is TrainPlan's own.
    for (const QString& name : dir.entryList({QStringLiteral("session-*.lock")}, QDir::Files | QDir::Hidden)) {
        QString json = dir.filePath(name);
        json.chop(int(QStringLiteral(".lock").size()));
        json += QStringLiteral(".json");
        if (json != file_ && !QFileInfo::exists(json) && ownerIsGone(json))
            QFile::remove(dir.filePath(name));
    }
    for (const QString& name : dir.entryList({QStringLiteral(".session-*.json.tmp-*")}, QDir::Files | QDir::Hidden)) {
        const QString json = dir.filePath(name.mid(1, name.indexOf(QStringLiteral(".tmp-")) - 1));
        if (json != file_ && ownerIsGone(json))
            QFile::remove(dir.filePath(name));
    }
    for (const QString& name : dir.entryList({QStringLiteral("session-*.json")}, QDir::Files)) {
        const QString file = dir.filePath(name);
        if (file == file_ || !ownerIsGone(file))
            continue;
        try {
            // Bounded in size and depth, regular files only: a hostile or damaged copy is
            // skipped, never a crash at every start.
            auto doc = trainplan::parseRecoveryDocument(trainplan::readRegularFile(QFile::encodeName(file).toStdString()));
            Pending p;
            p.file = file;
            p.originalPath = QString::fromStdString(doc.originalPath);
            p.savedAt = QDateTime::fromString(QString::fromStdString(doc.savedAt), Qt::ISODate);
            p.plan = std::move(doc.plan);
            out.push_back(std::move(p));
        } catch (const std::exception&) {
            continue;  // not ours to judge: leave the file for a person to look at
        }
    }
    std::sort(out.begin(), out.end(), [](const Pending& a, const Pending& b) { return a.savedAt > b.savedAt; });
    return out;
}

void RecoveryStore::discard(const Pending& pending)
{
    QFile::remove(pending.file);
    QFile::remove(lockPathOf(pending.file));
}
