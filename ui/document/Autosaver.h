// Writes a document's unsaved work to its recovery session: a short pause after each change
// (so a slider drag is one write, not hundreds), and at least every few seconds while changes
// keep coming. A clean document has no recovery copy.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include "ui/document/RecoveryStore.h"

class PlanDocument;

class Autosaver : public QObject {
    Q_OBJECT

public:
    static constexpr int kPauseMilliseconds = 1500;
    static constexpr int kMaxDelayMilliseconds = 10000;

    Autosaver(PlanDocument* document, QString directory = RecoveryStore::defaultDirectory(), QObject* parent = nullptr);

    RecoveryStore& store() { return store_; }
    // Writes now if there is unsaved work (also what the timers call).
    void saveNow();
    // Nothing to recover any more: a save, a clean exit, or unsaved work deliberately discarded.
    void clear();
    // Whether the last write of the recovery copy failed (and why): the unsaved work is then
    // protected only by the previous copy, if any.
    bool failing() const { return !lastError_.isEmpty(); }

signals:
    // Emitted when a write fails (with the reason) and when writing works again (empty reason).
    void statusChanged(const QString& error);

private:
    void onChanged();

    PlanDocument* doc_;
    RecoveryStore store_;
    QTimer pause_;
    QElapsedTimer sinceWrite_;
    bool pendingWrite_ = false;
    QString lastError_;
};
