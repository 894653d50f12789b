// writeFileAtomically: the previous file survives every failure, no temporary file is left
// behind, symbolic links keep pointing where they did, and errors name the path and errno.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/AtomicFile.h"
#include "core/base/Units.h"

using trainplan::AtomicWriteStep;

namespace {

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

// Turns an injected fault off however the test leaves.
struct FaultGuard {
    ~FaultGuard() { trainplan::injectAtomicWriteFault(std::nullopt); }
};

}  // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT

private slots:
    void writesAndReplaces();
    void failureKeepsPreviousFile_data();
    void failureKeepsPreviousFile();
    void fullDiskKeepsPreviousFile();
    void symlinkTargetIsReplaced();
    void missingDirectoryNamesPathAndReason();
    void replacedFileKeepsItsMode();
    void killedWriteLeavesNothing_data();
    void killedWriteLeavesNothing();
};

void TestAtomicFile::writesAndReplaces()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.md").toStdString();
    trainplan::writeFileAtomically(path, "first\n");
    QCOMPARE(readAll(path), std::string("first\n"));
    trainplan::writeFileAtomically(path, "second, longer\n");
    QCOMPARE(readAll(path), std::string("second, longer\n"));
    trainplan::writeFileAtomically(path, "");
    QCOMPARE(readAll(path), std::string());
    QCOMPARE(entries(dir.path()), QStringList{"out.md"});
}

void TestAtomicFile::failureKeepsPreviousFile_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("reason");
    QTest::newRow("create") << int(AtomicWriteStep::Open) << EACCES << QString::fromLocal8Bit(std::strerror(EACCES));
    QTest::newRow("write, disk full") << int(AtomicWriteStep::Write) << ENOSPC << QString::fromLocal8Bit(std::strerror(ENOSPC));
    QTest::newRow("fsync") << int(AtomicWriteStep::Fsync) << EIO << QString::fromLocal8Bit(std::strerror(EIO));
    QTest::newRow("close, quota") << int(AtomicWriteStep::Close) << EDQUOT << QString::fromLocal8Bit(std::strerror(EDQUOT));
    QTest::newRow("rename") << int(AtomicWriteStep::Rename) << EXDEV << QString::fromLocal8Bit(std::strerror(EXDEV));
}

void TestAtomicFile::failureKeepsPreviousFile()
{
    QFETCH(int, step);
    QFETCH(int, error);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const std::string path = dir.filePath("plan.json").toStdString();
    trainplan::writeFileAtomically(path, "the previous plan\n");
    FaultGuard guard;
    trainplan::injectAtomicWriteFault(AtomicWriteStep(step), error);
    try {
        trainplan::writeFileAtomically(path, std::string(100000, 'x'));
        QFAIL("the write succeeded despite the fault");
    } catch (const trainplan::FileWriteError& e) {
        QCOMPARE(e.error(), error);
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains(QString::fromStdString(path)) && what.contains(reason), qPrintable(what));
    }
    QCOMPARE(readAll(path), std::string("the previous plan\n"));
    QCOMPARE(entries(dir.path()), QStringList{"plan.json"});  // no temporary file left, 0-byte or not
}

// A real full disk: a 64 KiB tmpfs (needs root and mount permission; skipped without them).
void TestAtomicFile::fullDiskKeepsPreviousFile()
{
    QTemporaryDir dir;
    const QByteArray mountPoint = QFile::encodeName(dir.path());
    if (::mount("tmpfs", mountPoint.constData(), "tmpfs", 0, "size=64k") != 0)
        QSKIP(qPrintable(QString("cannot mount a tmpfs here (%1); the injected faults above cover the logic").arg(std::strerror(errno))));
    struct Unmount {
        QByteArray at;
        ~Unmount() { ::umount2(at.constData(), MNT_DETACH); }
    } unmount{mountPoint};
    const std::string path = dir.filePath("plan.json").toStdString();
    trainplan::writeFileAtomically(path, "the previous plan\n");
    try {
        trainplan::writeFileAtomically(path, std::string(1 << 20, 'x'));
        QFAIL("a 1 MiB write fitted on a 64 KiB disk");
    } catch (const trainplan::FileWriteError& e) {
        QCOMPARE(e.error(), ENOSPC);
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(path)), e.what());
    }
    QCOMPARE(readAll(path), std::string("the previous plan\n"));
    QCOMPARE(entries(dir.path()), QStringList{"plan.json"});
    // The disk is usable again: the failed write left nothing that fills it.
    trainplan::writeFileAtomically(path, std::string(32 * 1024, 'y'));
    QCOMPARE(readAll(path).size(), size_t(32 * 1024));
}

void TestAtomicFile::symlinkTargetIsReplaced()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("real"));
    const std::string target = dir.filePath("real/plan.json").toStdString();
    const std::string link = dir.filePath("plan.json").toStdString();
    trainplan::writeFileAtomically(target, "old\n");
    QCOMPARE(::symlink("real/plan.json", link.c_str()), 0);
    trainplan::writeFileAtomically(link, "new\n");
    struct stat st;
    QCOMPARE(::lstat(link.c_str(), &st), 0);
    QVERIFY2(S_ISLNK(st.st_mode), "the link was replaced by a file");
    QCOMPARE(readAll(target), std::string("new\n"));
    QCOMPARE(entries(dir.filePath("real")), QStringList{"plan.json"});
    // A dangling link creates the file it names.
    const std::string dangling = dir.filePath("later.json").toStdString();
    QCOMPARE(::symlink("real/later.json", dangling.c_str()), 0);
    trainplan::writeFileAtomically(dangling, "created\n");
    QCOMPARE(readAll(dir.filePath("real/later.json").toStdString()), std::string("created\n"));
}

void TestAtomicFile::missingDirectoryNamesPathAndReason()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("missing/plan.json").toStdString();
    try {
        trainplan::writeFileAtomically(path, "x");
        QFAIL("wrote into a missing directory");
    } catch (const trainplan::FileWriteError& e) {
        QCOMPARE(e.error(), ENOENT);
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(path)) && QString(e.what()).contains(std::strerror(ENOENT)), e.what());
    }
}

void TestAtomicFile::replacedFileKeepsItsMode()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("plan.json").toStdString();
    trainplan::writeFileAtomically(path, "a");
    QCOMPARE(::chmod(path.c_str(), 0640), 0);
    trainplan::writeFileAtomically(path, "b");
    struct stat st;
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0640);
}

void TestAtomicFile::killedWriteLeavesNothing_data()
{
    QTest::addColumn<int>("step");
    QTest::newRow("killed while writing") << int(AtomicWriteStep::Write);
    QTest::newRow("killed after the data reached the disk") << int(AtomicWriteStep::Fsync);
    QTest::newRow("killed before the rename") << int(AtomicWriteStep::Rename);
}

// kill -9 midway through a write (a child process ends itself at the step, as SIGKILL would):
// the previous file is whole and no full-size hidden temporary file is left beside it.
void TestAtomicFile::killedWriteLeavesNothing()
{
    QFETCH(int, step);
    QTemporaryDir dir;
    const std::string path = dir.filePath("plan.json").toStdString();
    trainplan::writeFileAtomically(path, "the previous plan\n");
    static int dieAt;
    dieAt = step;
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        trainplan::setAtomicWriteStepHook([](AtomicWriteStep s) {
            if (int(s) == dieAt)
                ::_exit(9);
        });
        try {
            trainplan::writeFileAtomically(path, std::string(4 << 20, 'x'));
        } catch (...) {
        }
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 9);
    QCOMPARE(readAll(path), std::string("the previous plan\n"));
    // Before the rename the new contents have a name only for an instant; killed anywhere else,
    // nothing is left. A name given just before the rename is what the next write tidies.
    const QStringList left = entries(dir.path());
    if (AtomicWriteStep(step) != AtomicWriteStep::Rename) {
        QCOMPARE(left, QStringList{"plan.json"});
        return;
    }
    QCOMPARE(left.size(), 2);
    // An hour later the next write of the file removes what the killed one left; a fresh one
    // (perhaps another writer's, about to be renamed) stays.
    const QString stale = dir.filePath(left.filter(".tmp-").value(0));
    const time_t hour = time_t(trainplan::units::secondsPerHour);
    const struct timeval hourAgo[2] = {{::time(nullptr) - hour, 0}, {::time(nullptr) - hour, 0}};
    QCOMPARE(::utimes(QFile::encodeName(stale).constData(), hourAgo), 0);
    trainplan::writeFileAtomically(path, "next\n");
    QCOMPARE(entries(dir.path()), QStringList{"plan.json"});
}

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
