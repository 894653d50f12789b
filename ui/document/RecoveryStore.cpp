#include "document/RecoveryStore.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "plan/PlanIO.h"

namespace {

constexpr const char* kFormat = "trainplan.recovery";
constexpr qint64 kMaxRecoveryBytes = 16 * 1024 * 1024;

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
    nlohmann::json doc = {{"format", kFormat},
                          {"version", 1},
                          {"original_path", originalPath.toStdString()},
                          {"saved_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()},
                          {"plan", trainplan::planToJson(plan)}};
    const std::string text = doc.dump(2) + "\n";
    QSaveFile file(file_);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()) || !file.commit()) {
        if (error)
            *error = file.errorString();
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
    for (const QString& name : dir.entryList({QStringLiteral("session-*.json")}, QDir::Files)) {
        const QString file = dir.filePath(name);
        if (file == file_)
            continue;
        QLockFile owner(lockPathOf(file));
        owner.setStaleLockTime(0);
        if (!owner.tryLock(0))
            continue;  // its TrainPlan is still running
        owner.unlock();
        QFile in(file);
        if (!in.open(QIODevice::ReadOnly) || in.size() > kMaxRecoveryBytes)
            continue;
        try {
            const auto doc = nlohmann::json::parse(in.readAll().toStdString());
            if (!doc.is_object() || doc.value("format", std::string()) != kFormat || !doc.contains("plan"))
                continue;
            Pending p;
            p.file = file;
            p.originalPath = QString::fromStdString(doc.value("original_path", std::string()));
            p.savedAt = QDateTime::fromString(QString::fromStdString(doc.value("saved_at", std::string())), Qt::ISODate);
            p.plan = trainplan::planFromJson(doc["plan"]);
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
