// Unsaved work survives a crash: a real TrainPlan window with an unsaved edit is killed with
// SIGKILL; the next window offers the work back, restores it as an unsaved edit on top of the
// untouched file, and a clean exit leaves nothing to recover.
#include <QCryptographicHash>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/document/Autosaver.h"
#include "ui/document/PlanDocument.h"
#include "ui/document/RecoveryStore.h"
#include "ui/window/MainWindow.h"

namespace {

QByteArray sha(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256) : QByteArray();
}

}  // namespace

class TestRecovery : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void killedWindowIsRestored();
    void autosaveFollowsTheDocument();

private:
    QTemporaryDir home_;
};

void TestRecovery::initTestCase()
{
    // The child window and this process must agree on the recovery folder: same user data
    // folder, same organisation and application names.
    qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
    qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
    QCoreApplication::setOrganizationName("TrainPlan");
    QCoreApplication::setApplicationName("TrainPlan");
    QVERIFY(RecoveryStore::defaultDirectory().startsWith(home_.path()));
}

void TestRecovery::killedWindowIsRestored()
{
    const QString plan = home_.filePath("plan.json");
    QVERIFY(QFile::copy(QStringLiteral(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json"), plan));
    const QByteArray before = sha(plan);

    QProcess window;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_DATA_HOME", home_.filePath("data"));
    env.insert("XDG_CONFIG_HOME", home_.filePath("config"));
    window.setProcessEnvironment(env);
    window.start(
        QStringLiteral(TRAINPLAN_GUI_PATH), {plan, "--set", "training.mfu=0.47", "--set", "layout.tp=4", "--set", "layout.dp=128"});
    QVERIFY(window.waitForStarted(10000));
    // The edit is written after a short pause; wait for it, then kill without warning.
    RecoveryStore probe;
    QTRY_VERIFY_WITH_TIMEOUT(QDir(RecoveryStore::defaultDirectory()).entryList({"session-*.json"}, QDir::Files).size() >= 1, 20000);
    QVERIFY(probe.pending().empty());  // the window still runs: its session is not offered
    window.kill();
    QVERIFY(window.waitForFinished(10000));
    QCOMPARE(window.exitStatus(), QProcess::CrashExit);

    MainWindow next;
    int asked = 0;
    next.askToRestore = [&](const RecoveryStore::Pending& pending) {
        ++asked;
        return pending.plan.training.mfu == 0.47;
    };
    QVERIFY(next.offerRecovery());
    QCOMPARE(asked, 1);
    const auto& restored = next.document()->plan();
    QCOMPARE(restored.training.mfu, 0.47);
    QCOMPARE(restored.layout.tp, 4);
    QVERIFY(next.document()->isModified());
    QCOMPARE(QFileInfo(next.document()->filePath()).canonicalFilePath(), QFileInfo(plan).canonicalFilePath());
    QCOMPARE(sha(plan), before);  // the file is untouched until the person saves
    // Undo goes back to the file's plan.
    next.document()->undoStack()->undo();
    QCOMPARE(next.document()->plan().training.mfu, 0.40);
    next.document()->undoStack()->redo();
    QVERIFY(!next.offerRecovery());  // offered once

    // A clean exit (here: discarding the changes) leaves nothing to recover.
    next.askToSaveChanges = [] { return QMessageBox::Discard; };
    QVERIFY(next.close());
    QVERIFY(RecoveryStore().pending().empty());
}

void TestRecovery::autosaveFollowsTheDocument()
{
    QTemporaryDir dir;
    PlanDocument doc;
    Autosaver autosaver(&doc, dir.path());
    const QString file = autosaver.store().sessionFile();
    doc.edit("MFU", [](trainplan::Plan& p) { p.training.mfu = 0.33; });
    QVERIFY(!QFile::exists(file));  // not on every tick: after a pause
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(file), Autosaver::kPauseMilliseconds * 4);
    // Saved: nothing left to recover.
    QVERIFY(doc.save(dir.filePath("saved.json"), nullptr));
    QVERIFY(!QFile::exists(file));
    // Unsaved again, then back to the saved state by undo: clean, so no copy.
    doc.edit("MFU", [](trainplan::Plan& p) { p.training.mfu = 0.36; });
    autosaver.saveNow();
    QVERIFY(QFile::exists(file));
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QVERIFY(!QFile::exists(file));
}

QTEST_MAIN(TestRecovery)
#include "tst_recovery.moc"
