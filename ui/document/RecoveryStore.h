// Unsaved work that survives a crash. Each running window owns a session in the recovery folder:
// a lock (held while it runs) and the latest unsaved plan beside it. A session whose lock is
// free belongs to a TrainPlan that died: its plan is offered back on the next start. A clean
// exit, a save or a discard removes the session's file.
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QString>

#include <memory>
#include <vector>

#include "core/plan/Plan.h"

class RecoveryStore {
public:
    // The default folder is the per-user application data folder's "recovery".
    explicit RecoveryStore(QString directory = defaultDirectory());
    ~RecoveryStore();
    static QString defaultDirectory();

    // Writes this session's plan atomically; the previous recovery copy stays on failure.
    bool write(const trainplan::Plan& plan, const QString& originalPath, QString* error);
    // This session has nothing unsaved any more.
    void clear();
    QString sessionFile() const { return file_; }

    struct Pending {
        QString file;          // the recovery copy
        QString originalPath;  // the plan file it was edited from; empty for a new plan
        QDateTime savedAt;
        trainplan::Plan plan;
    };
    // Sessions of TrainPlans that are no longer running, newest first. Unreadable copies are
    // skipped (and left alone).
    std::vector<Pending> pending() const;
    static void discard(const Pending& pending);

private:
    QString directory_;
    QString file_;
    std::unique_ptr<QLockFile> lock_;
};
