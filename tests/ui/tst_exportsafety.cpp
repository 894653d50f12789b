// Exports and autosave never destroy a user's files (issue 20's reproducers, each as a test):
// a slide export writes and removes only what its manifest says it wrote, follows no link out of
// its folder and keeps (and reports) what a person added; a full disk fails every export and the
// autosave without touching the previous file; a plan name cannot become markup in an SVG; a
// hostile recovery file or a device is never read into a crash or a hang.
#include <QDomDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../RunTool.h"

#include "core/analysis/Analysis.h"
#include "core/base/AtomicFile.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/WorkedExamples.h"
#include "render/report/Exporter.h"
#include "render/report/ReportContext.h"
#include "render/report/SlideExport.h"
#include "render/report/SlideFolder.h"
#include "ui/document/Autosaver.h"
#include "ui/document/PlanDocument.h"
#include "ui/document/RecoveryStore.h"

namespace {

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

void writeText(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

QByteArray readText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

bool isLink(const QString& path)
{
    struct stat st;
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode);
}

// Turns an injected fault off however the test leaves.
struct FaultGuard {
    ~FaultGuard() { trainplan::injectAtomicWriteFault(std::nullopt); }
};

// A small tmpfs at `dir` (needs root and mount permission). False, with the reason, when it
// cannot be made; unmounted when the guard goes.
struct SmallDisk {
    QByteArray at;
    bool mounted = false;
    QString reason;
    SmallDisk(const QString& dir, const char* size)
        : at(QFile::encodeName(dir))
    {
        mounted = ::mount("tmpfs", at.constData(), "tmpfs", 0, (QByteArray("size=") + size).constData()) == 0;
        if (!mounted)
            reason = QString::fromLocal8Bit(std::strerror(errno));
    }
    ~SmallDisk()
    {
        if (mounted)
            ::umount2(at.constData(), MNT_DETACH);
    }
};

// Fills what is left of the disk holding `dir`.
void fill(const QString& dir)
{
    QFile filler(QDir(dir).filePath("filler"));
    QVERIFY(filler.open(QIODevice::WriteOnly));
    const QByteArray block(4096, 'f');
    while (filler.write(block) == block.size() && filler.flush()) { }
}

// An export of small files through the same folder logic as the slides (SlideFolder), so the
// cases below run in milliseconds; slidesNeverFollowALinkBesideTheTarget runs the real slides.
bool exportFiles(
    const QString& folder, const QStringList& names, QStringList* written = nullptr, QStringList* kept = nullptr, QString* error = nullptr)
{
    SlideFolder out(folder);
    for (const QString& name : names)
        if (!out.add(name, "slide " + name.toUtf8() + "\n"))
            break;
    const bool ok = out.ok() && out.commit(written, kept);
    if (error)
        *error = out.error();
    return ok;
}

const QStringList kFirstRun{"01-title.png", "01-title.svg", "02-ask.png", "03-appendix-math-1.png", "deck.pdf"};
const QStringList kSecondRun{"01-title.png", "01-title.svg", "02-ask.png", "deck.pdf"};

}  // namespace

class TestExportSafety : public QObject {
    Q_OBJECT

private slots:
    void slidesNeverFollowALinkBesideTheTarget();
    void slidesThroughALinkKeepTheLinkAndAPersonsFiles();
    void aPersonsFileInTheSlidesFolderIsKeptAndReported();
    void aFileOfOurNameThatWeDidNotWriteIsNeverReplaced();
    void aKilledExportNeverCostsTheOnlyCopy();
    void aKilledExportsStagingIsClearedOfItsOwnFilesOnly();
    void injectedFullDiskFailsEveryExport_data();
    void injectedFullDiskFailsEveryExport();
    void realFullDiskFailsEveryExportAndTheAutosave();
    void aPlanNameStaysTextInSvgAndPdf();
    void aDeeplyNestedRecoveryFileIsSkipped();
    void devicesAndPipesAreNotRead();
    void killedSessionsLeaveNoOrphanLocks();
    void aFailingAutosaveIsSaid();
    void aFailedImageWriteSaysWhy();
    void anEnormousScreenshotIsRefused();

private:
    QTemporaryDir dir_;
    trainplan::Plan plan_ = trainplan::defaultPlan();
};

void TestExportSafety::slidesNeverFollowALinkBesideTheTarget()
{
    // reports/.slides.trainplan-old -> ../data: the export must never look inside it.
    const QString root = dir_.filePath("links");
    QVERIFY(QDir().mkpath(root + "/data") && QDir().mkpath(root + "/reports"));
    writeText(root + "/data/results.csv", "precious\n");
    for (const char* name : {".slides.trainplan-old", ".slides.trainplan-new", ".slides.trainplan-Ab12Cd"})
        QCOMPARE(::symlink("../data", QFile::encodeName(root + "/reports/" + name).constData()), 0);
    const ReportContext context(trainplan::analyse(plan_));
    QString error;
    QVERIFY2(slideexport::writeAll(context, root + "/reports/slides", &error), qPrintable(error));
    QVERIFY(exportFiles(root + "/reports/slides", kSecondRun));
    QCOMPARE(readText(root + "/data/results.csv"), QByteArray("precious\n"));
    QCOMPARE(entries(root + "/data"), QStringList{"results.csv"});
    QVERIFY(isLink(root + "/reports/.slides.trainplan-old") && isLink(root + "/reports/.slides.trainplan-Ab12Cd"));
}

void TestExportSafety::slidesThroughALinkKeepTheLinkAndAPersonsFiles()
{
    // The target is a link to an earlier export in a shared folder, where a person added a file.
    const QString root = dir_.filePath("shared-link");
    QVERIFY(QDir().mkpath(root + "/shared"));
    QString error;
    QVERIFY(exportFiles(root + "/shared/slides", kFirstRun));
    writeText(root + "/shared/slides/review-notes.txt", "a person's notes\n");
    writeText(root + "/shared/other-team.txt", "not ours\n");
    QCOMPARE(::symlink("shared/slides", QFile::encodeName(root + "/slides").constData()), 0);
    QStringList written, kept;
    QVERIFY2(exportFiles(root + "/slides", kSecondRun, &written, &kept, &error), qPrintable(error));
    QVERIFY2(isLink(root + "/slides"), "the link was replaced");
    QCOMPARE(readText(root + "/shared/slides/review-notes.txt"), QByteArray("a person's notes\n"));
    QCOMPARE(readText(root + "/shared/other-team.txt"), QByteArray("not ours\n"));
    QCOMPARE(kept, QStringList{root + "/slides/review-notes.txt"});
    QCOMPARE(written.size(), kSecondRun.size());
    for (const QString& f : written)
        QVERIFY2(QFileInfo(f).isFile(), qPrintable(f));
    QVERIFY(!QFileInfo::exists(root + "/shared/slides/03-appendix-math-1.png"));
    QCOMPARE(entries(root), (QStringList{"shared", "slides"}));
}

void TestExportSafety::aPersonsFileInTheSlidesFolderIsKeptAndReported()
{
    const QString folder = dir_.filePath("notes/slides");
    QVERIFY(exportFiles(folder, kFirstRun));
    writeText(folder + "/speaker-notes.md", "# what to say\n");
    QVERIFY(QDir(folder).mkdir("drafts"));
    writeText(folder + "/drafts/v1.txt", "draft\n");
    // The next export (fewer appendix slides) replaces only its own files.
    QStringList written, kept;
    QString error;
    QVERIFY2(exportFiles(folder, kSecondRun, &written, &kept, &error), qPrintable(error));
    QCOMPARE(readText(folder + "/speaker-notes.md"), QByteArray("# what to say\n"));
    QCOMPARE(readText(folder + "/drafts/v1.txt"), QByteArray("draft\n"));
    kept.sort();
    QCOMPARE(kept, (QStringList{folder + "/drafts", folder + "/speaker-notes.md"}));
    // Nothing of the first run survives that the second did not write.
    QStringList expected = kSecondRun + QStringList{"drafts", "speaker-notes.md", SlideFolder::kManifest};
    expected.sort();
    QCOMPARE(entries(folder), expected);
    QCOMPARE(readText(folder + "/02-ask.png"), QByteArray("slide 02-ask.png\n"));
}

void TestExportSafety::aFileOfOurNameThatWeDidNotWriteIsNeverReplaced()
{
    const QString folder = dir_.filePath("clash/slides");
    QVERIFY(exportFiles(folder, kFirstRun));
    writeText(folder + "/notes.txt", "kept\n");
    // A person replaced one of our files by a link to their own work.
    writeText(dir_.filePath("clash/mine.svg"), "<svg/>");
    QVERIFY(QFile::remove(folder + "/01-title.svg"));
    QCOMPARE(::symlink("../mine.svg", QFile::encodeName(folder + "/01-title.svg").constData()), 0);
    QString error;
    QVERIFY(!exportFiles(folder, kSecondRun, nullptr, nullptr, &error));
    QVERIFY2(error.contains("01-title.svg") && error.contains("did not write"), qPrintable(error));
    QVERIFY(isLink(folder + "/01-title.svg"));
    QCOMPARE(readText(dir_.filePath("clash/mine.svg")), QByteArray("<svg/>"));
    QCOMPARE(readText(folder + "/02-ask.png"), QByteArray("slide 02-ask.png\n"));
    QCOMPARE(entries(dir_.filePath("clash")), (QStringList{"mine.svg", "slides"}));  // no staging folder left
}

void TestExportSafety::aKilledExportNeverCostsTheOnlyCopy()
{
    // What a kill between the old export's two renames left: no target, and the only copy of
    // the previous slides in the hidden "-old" folder, marked as the old version marked it.
    const QString root = dir_.filePath("killed");
    QVERIFY(exportFiles(root + "/slides", kFirstRun));
    QVERIFY(QDir(root).rename("slides", ".slides.trainplan-old"));
    writeText(root + "/.slides.trainplan-old/.trainplan-slides", "TrainPlan slide export\n");
    const QStringList onlyCopy = entries(root + "/.slides.trainplan-old");
    const ReportContext context(trainplan::analyse(plan_));
    QString error;
    {
        FaultGuard guard;
        trainplan::injectAtomicWriteFault(trainplan::AtomicWriteStep::Write, ENOSPC);
        QVERIFY(!slideexport::writeAll(context, root + "/slides", &error));
    }
    QCOMPARE(entries(root + "/.slides.trainplan-old"), onlyCopy);
    QCOMPARE(entries(root), QStringList{".slides.trainplan-old"});
    QVERIFY(exportFiles(root + "/slides", kSecondRun));
    QCOMPARE(entries(root + "/.slides.trainplan-old"), onlyCopy);  // a person decides about it
    // An old-version folder is recognised by its marker: its slides are ours to replace.
    writeText(root + "/.slides.trainplan-old/notes.txt", "mine\n");
    QStringList kept;
    QVERIFY(QDir(root).rename(".slides.trainplan-old", "legacy"));
    QVERIFY(exportFiles(root + "/legacy", kSecondRun, nullptr, &kept));
    QCOMPARE(kept, QStringList{root + "/legacy/notes.txt"});
    QVERIFY(!QFileInfo::exists(root + "/legacy/03-appendix-math-1.png"));
}

void TestExportSafety::aKilledExportsStagingIsClearedOfItsOwnFilesOnly()
{
    const QString root = dir_.filePath("staging");
    QVERIFY(exportFiles(root + "/slides", kFirstRun));
    // A staging folder a killed export left, with its manifest, and one a person made.
    const QString leftover = root + "/.slides.trainplan-Qx7Zp1";
    QVERIFY(QDir().mkpath(leftover));
    writeText(leftover + "/.trainplan-slides", "TrainPlan slide export 2\n01-title.png\n02-ask.png\n");
    writeText(leftover + "/01-title.png", "partial");
    writeText(leftover + "/unlisted.txt", "not listed, not ours\n");
    const QString other = root + "/.slides.trainplan-hand00";
    QVERIFY(QDir().mkpath(other));
    writeText(other + "/mine.txt", "mine\n");
    // A failed export clears nothing of them.
    {
        FaultGuard guard;
        trainplan::injectAtomicWriteFault(trainplan::AtomicWriteStep::Write, ENOSPC);
        QVERIFY(!exportFiles(root + "/slides", kSecondRun));
    }
    QCOMPARE(entries(leftover).size(), 3);
    QVERIFY(exportFiles(root + "/slides", kSecondRun));
    QCOMPARE(entries(leftover), QStringList{"unlisted.txt"});
    QCOMPARE(entries(other), QStringList{"mine.txt"});
    QCOMPARE(entries(root).filter(".trainplan-").size(), 2);  // this export left no staging folder
}

void TestExportSafety::injectedFullDiskFailsEveryExport_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<QString>("what");
    for (const QString what : {"pdf", "markdown", "slides", "png", "svg"}) {
        QTest::addRow("%s, write", qPrintable(what)) << int(trainplan::AtomicWriteStep::Write) << what;
        QTest::addRow("%s, final sync", qPrintable(what)) << int(trainplan::AtomicWriteStep::Fsync) << what;
    }
}

// The system call fails as on a full disk (the write, or the last buffered part at the sync):
// every export fails with the reason and leaves the previous file exactly as it was.
void TestExportSafety::injectedFullDiskFailsEveryExport()
{
    QFETCH(int, step);
    QFETCH(QString, what);
    QTemporaryDir dir;
    const QString target = dir.filePath(what == "slides" ? "slides" : "out." + what);
    const ReportContext context(trainplan::analyse(plan_));
    QString error;
    // A previous, good export.
    if (what == "slides")
        QVERIFY(exportFiles(target, kFirstRun));
    else
        writeText(target, "the previous, good file\n");
    const QStringList before = what == "slides" ? entries(target) : QStringList();
    const QByteArray beforeDeck = readText(target + "/deck.pdf");

    FaultGuard guard;
    trainplan::injectAtomicWriteFault(trainplan::AtomicWriteStep(step), ENOSPC);
    bool ok = false;
    if (what == "png" || what == "svg") {
        ok = slideexport::writeSlide(context, Slide{ReportView::Memory, 0, 0, {}, SlideKind::View, {}}, target, &error);
    } else {
        ExportRequest request;
        (what == "pdf" ? request.pdfPath : what == "markdown" ? request.markdownPath : request.slidesDirectory) = target;
        ok = exporter::run(context.analysis(), "plan", request, &error);
    }
    QVERIFY2(!ok, "the export reported success on a full disk");
    QVERIFY2(error.contains(QString::fromLocal8Bit(std::strerror(ENOSPC))), qPrintable(error));
    if (what == "slides") {
        QCOMPARE(entries(target), before);
        QCOMPARE(readText(target + "/deck.pdf"), beforeDeck);
        QCOMPARE(entries(dir.path()), QStringList{"slides"});
    } else {
        QCOMPARE(readText(target), QByteArray("the previous, good file\n"));
        QCOMPARE(entries(dir.path()), QStringList{QFileInfo(target).fileName()});
    }
}

// A real full disk (a small tmpfs; needs root, skipped without it: the injected faults above
// cover the same paths).
void TestExportSafety::realFullDiskFailsEveryExportAndTheAutosave()
{
    QTemporaryDir dir;
    SmallDisk disk(dir.path(), "512k");
    if (!disk.mounted)
        QSKIP(qPrintable("cannot mount a tmpfs here: " + disk.reason));
    const ReportContext context(trainplan::analyse(plan_));
    QString error;
    // Previous files, then the disk fills up.
    const QString pdf = dir.filePath("plan.pdf"), md = dir.filePath("plan.md"), png = dir.filePath("memory.png");
    for (const QString& f : {pdf, md, png})
        writeText(f, "previous\n");
    RecoveryStore store(dir.filePath("recovery"));
    QVERIFY(store.write(plan_, QString(), &error));
    const QByteArray recovery = readText(store.sessionFile());
    QVERIFY(recovery.size() > 100);
    fill(dir.path());

    ExportRequest request;
    request.pdfPath = pdf;
    QVERIFY(!exporter::run(context.analysis(), "plan", request, &error));
    QVERIFY2(error.contains(pdf), qPrintable(error));
    request = {};
    request.markdownPath = md;
    QVERIFY(!exporter::run(context.analysis(), "plan", request, &error));
    request = {};
    request.slidesDirectory = dir.filePath("slides");
    QVERIFY(!exporter::run(context.analysis(), "plan", request, &error));
    QVERIFY(!slideexport::writeSlide(context, Slide{ReportView::Memory, 0, 0, {}, SlideKind::View, {}}, png, &error));
    trainplan::Plan changed = plan_;
    changed.training.mfu = 0.31;
    QVERIFY(!store.write(changed, QString(), &error));
    QVERIFY2(!error.isEmpty(), "a failed autosave gave no reason");

    for (const QString& f : {pdf, md, png})
        QCOMPARE(readText(f), QByteArray("previous\n"));
    QCOMPARE(readText(store.sessionFile()), recovery);  // the last good recovery copy, not 0 bytes
    QStringList left = entries(dir.path());
    left.removeAll("filler");
    QCOMPARE(left, (QStringList{"memory.png", "plan.md", "plan.pdf", "recovery"}));
}

void TestExportSafety::aPlanNameStaysTextInSvgAndPdf()
{
    const QString hostile = "</title><script>alert(1)</script><title> & \"q\" 'a'";
    trainplan::Plan plan = plan_;
    plan.name = hostile.toStdString();
    plan.nameUserSet = true;
    const ReportContext context(trainplan::analyse(plan));
    QTemporaryDir dir;
    QString error;
    // The title slide (01-title.svg of an export) and a view exported alone.
    const auto slides = slideexport::slides(context);
    QVERIFY2(slideexport::writeSlide(context, slides.front(), dir.filePath("01-title.svg"), &error), qPrintable(error));
    QVERIFY2(
        slideexport::writeSlide(context, Slide{ReportView::Summary, 0, 0, {}, SlideKind::View, {}}, dir.filePath("summary.svg"), &error),
        qPrintable(error));
    for (const QString& name : QStringList{"01-title.svg", "summary.svg"}) {
        const QByteArray svg = readText(dir.filePath(name));
        QVERIFY2(!svg.contains("<script"), qPrintable(name));
        QDomDocument doc;
        QVERIFY2(doc.setContent(svg), qPrintable(name));  // well-formed: every text escaped
        if (name == "01-title.svg")
            QCOMPARE(doc.documentElement().firstChildElement("title").text(), hostile);
    }
    ExportRequest request;
    request.pdfPath = dir.filePath("plan.pdf");
    QVERIFY2(exporter::run(context.analysis(), "plan", request, &error), qPrintable(error));
    QVERIFY(!readText(request.pdfPath).contains("<script"));
    QVERIFY2(runTool("pdfinfo", {request.pdfPath}).contains("alert(1)"), "the title is in the PDF's metadata as text");
}

void TestExportSafety::aDeeplyNestedRecoveryFileIsSkipped()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath("recovery");
    QVERIFY(QDir().mkpath(folder));
    const QByteArray deep = QByteArray(200000, '[') + QByteArray(200000, ']');
    writeText(folder + "/session-deep.json", "{\"format\":\"trainplan.recovery\",\"version\":1,\"plan\":" + deep + "}");
    writeText(folder + "/session-nested.json", deep);
    RecoveryStore store(folder);
    QVERIFY(store.pending().empty());
    // Left for a person to look at, and skipped again at the next start.
    QVERIFY(QFileInfo::exists(folder + "/session-deep.json"));
    QVERIFY(RecoveryStore(folder).pending().empty());
}

void TestExportSafety::devicesAndPipesAreNotRead()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath("plan.json");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    PlanDocument doc;
    QString error;
    QElapsedTimer timer;
    timer.start();
    for (const QString& path : {QString("/dev/zero"), fifo, dir.path()}) {
        QVERIFY2(!doc.load(path, &error), qPrintable(path));
        QVERIFY2(error.contains(path) && (error.contains("not a regular file") || error.contains("folder")), qPrintable(error));
    }
    QVERIFY2(timer.elapsed() < 5000, "reading a device or a pipe took seconds");
    // A recovery folder holding a link to a device or a pipe is not read either.
    const QString folder = dir.filePath("recovery");
    QVERIFY(QDir().mkpath(folder));
    QCOMPARE(::symlink("/dev/zero", QFile::encodeName(folder + "/session-zero.json").constData()), 0);
    QCOMPARE(::symlink(QFile::encodeName(fifo).constData(), QFile::encodeName(folder + "/session-fifo.json").constData()), 0);
    QVERIFY(RecoveryStore(folder).pending().empty());
}

void TestExportSafety::killedSessionsLeaveNoOrphanLocks()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath("recovery");
    QVERIFY(QDir().mkpath(folder));
    // A dead TrainPlan's lock with nothing unsaved (no copy beside it), and the temporary file of
    // a write it never finished.
    const QByteArray deadOwner = "2147483000\nTrainPlan\n" + QSysInfo::machineHostName().toUtf8() + "\n";
    writeText(folder + "/session-dead.lock", deadOwner);
    writeText(folder + "/.session-dead.json.tmp-aB3dE9", QByteArray(4096, 'x'));
    // A dead TrainPlan with unsaved work: its copy stays until restored or discarded.
    writeText(folder + "/session-work.lock", deadOwner);
    RecoveryStore writer(folder);
    QString error;
    QVERIFY(writer.write(plan_, QString(), &error));
    QVERIFY(QFile::rename(writer.sessionFile(), folder + "/session-work.json"));
    RecoveryStore next(folder);
    const auto pending = next.pending();
    QCOMPARE(int(pending.size()), 1);
    QStringList left = entries(folder);
    QVERIFY2(!left.contains("session-dead.lock") && !left.contains(".session-dead.json.tmp-aB3dE9"), qPrintable(left.join(", ")));
    QVERIFY(left.contains("session-work.json"));
}

void TestExportSafety::aFailingAutosaveIsSaid()
{
    QTemporaryDir dir;
    PlanDocument doc;
    Autosaver autosaver(&doc, dir.filePath("recovery"));
    QSignalSpy spy(&autosaver, &Autosaver::statusChanged);
    trainplan::Plan changed = doc.plan();
    changed.training.mfu = 0.33;
    doc.applyPlan(changed, "edit");
    {
        FaultGuard guard;
        trainplan::injectAtomicWriteFault(trainplan::AtomicWriteStep::Write, ENOSPC);
        autosaver.saveNow();
    }
    QCOMPARE(spy.count(), 1);
    QVERIFY2(spy.at(0).at(0).toString().contains(QString::fromLocal8Bit(std::strerror(ENOSPC))), qPrintable(spy.at(0).at(0).toString()));
    QVERIFY(autosaver.failing());
    changed.training.mfu = 0.34;
    doc.applyPlan(changed, "edit");
    autosaver.saveNow();
    QCOMPARE(spy.count(), 2);
    QVERIFY(spy.at(1).at(0).toString().isEmpty());
    QVERIFY(!autosaver.failing());
}

void TestExportSafety::aFailedImageWriteSaysWhy()
{
    const ReportContext context(trainplan::analyse(plan_));
    QString error;
    const QString path = dir_.filePath("no-such-folder/memory.png");
    QVERIFY(!slideexport::writeSlide(context, Slide{ReportView::Memory, 0, 0, {}, SlideKind::View, {}}, path, &error));
    QVERIFY2(error.contains(path) && error.contains(QString::fromLocal8Bit(std::strerror(ENOENT))), qPrintable(error));
    QVERIFY(!error.contains("Unknown error"));
}

void TestExportSafety::anEnormousScreenshotIsRefused()
{
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", dir_.filePath("config"));
    env.insert("XDG_DATA_HOME", dir_.filePath("data"));
    app.setProcessEnvironment(env);
    const QString out = dir_.filePath("huge.png");
    app.start(QStringLiteral(TRAINPLAN_GUI_PATH), {"--screenshot", out, "--size", "40000x40000"});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QCOMPARE(app.exitCode(), 2);
    QVERIFY2(QString::fromUtf8(app.readAllStandardError()).contains("--size"), "the message names the option");
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_MAIN(TestExportSafety)
#include "tst_exportsafety.moc"
