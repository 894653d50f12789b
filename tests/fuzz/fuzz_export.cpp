// libFuzzer target: the exports (render/report/Exporter.h) of a plan read from the input: the PDF
// report (US Letter when the input's "fuzz" object says {"letter": true}), the slides and the
// derivation as Markdown, into a fresh temporary folder that is removed after each input. Needs a
// QGuiApplication (offscreen unless QT_QPA_PLATFORM says otherwise). Slow per input (every slide
// is painted three times), which is fine.
//
// Rejection (PlanError) is fine. Abort on: an exception or a sanitizer report; a failed export of
// an accepted plan (saying whether it gave a reason); a file in the folder the exporter did not
// report writing (other than its own slide-folder marker); a reported file missing, empty or not
// what its name says (a PDF, a PNG, well-formed SVG without script, UTF-8 Markdown).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include "FuzzChecks.h"
#include "core/analysis/Analysis.h"
#include "render/report/Exporter.h"

namespace {

using fuzzchecks::fail;

// Plans on more GPUs make the rationale's layout search (ReportContext) slower than the per-input
// timeout under the sanitizers; left out and kept out of the corpus.
constexpr int kMaxGpus = 4096;

// Files the exporter keeps for itself without listing them: the marker that tells a later export
// the slide folder is its own (SlideExport.cpp), relative to the slide folder.
const QStringList kSlideFolderBookkeeping = {QStringLiteral(".trainplan-slides")};

std::string str(const QString& s)
{
    return s.toStdString();
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        fail("cannot read back " + str(path) + ": " + str(f.errorString()));
    return f.readAll();
}

void checkWrittenFile(const QString& path)
{
    const QByteArray bytes = readAll(path);
    if (bytes.isEmpty())
        fail(str(path) + " is empty");
    if (path.endsWith(".pdf")) {
        if (!bytes.startsWith("%PDF-") || !bytes.right(32).contains("%%EOF"))
            fail(str(path) + " is not a whole PDF");
    } else if (path.endsWith(".png")) {
        if (!bytes.startsWith("\x89PNG\r\n\x1a\n") || !bytes.endsWith(QByteArray("IEND\xae\x42\x60\x82", 8)))
            fail(str(path) + " is not a whole PNG");
    } else if (path.endsWith(".svg")) {
        // Every text reaching SVG is escaped (issue 20): the file parses and holds no script.
        QXmlStreamReader xml(bytes);
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name().compare(QLatin1String("script"), Qt::CaseInsensitive) == 0)
                fail(str(path) + " holds a script element");
        }
        if (xml.hasError())
            fail(str(path) + " is not well-formed SVG: " + str(xml.errorString()) + " at line " + std::to_string(xml.lineNumber()));
    } else if (path.endsWith(".md")) {
        fuzzchecks::requireText(bytes.toStdString(), str(path));
    } else {
        fail("the exporter reported " + str(path) + ", a kind of file this target does not know");
    }
}

}  // namespace

// As tests/sanitizers/lsan.supp for the asan preset: fontconfig's caches, held for the process's
// life through pointers LeakSanitizer cannot follow (every frame inside the system library).
extern "C" const char* __lsan_default_suppressions()
{
    return "leak:libfontconfig.so\n";
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // libFuzzer's flags are not Qt's: the application sees only a program name.
    static int argc = 1;
    static char name[] = "fuzz_export";
    static char* argv[] = {name, nullptr};
    new QGuiApplication(argc, argv);  // lives as long as the process
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    trainplan::Plan plan;
    nlohmann::json options;
    if (!fuzzchecks::readPlanInput(data, size, plan, options))
        return 0;
    if (plan.cluster.gpus > kMaxGpus)
        return -1;

    QTemporaryDir tmp(QDir::tempPath() + "/fuzz_export-XXXXXX");
    if (!tmp.isValid())
        fail("cannot make a temporary folder: " + str(tmp.errorString()));
    const QDir dir(QFileInfo(tmp.path()).canonicalFilePath());
    ExportRequest request;
    request.pdfPath = dir.filePath("report.pdf");
    request.pageSize = fuzzchecks::optionBool(options, "letter", false) ? QPageSize::Letter : QPageSize::A4;
    request.slidesDirectory = dir.filePath("slides");
    request.markdownPath = dir.filePath("derivation.md");
    const QString sourceName = QString::fromStdString(fuzzchecks::optionText(options, "source_name", "fuzz-plan"));

    QString error;
    QStringList written;
    if (!exporter::run(trainplan::analyse(plan), sourceName, request, &error, &written))
        fail(error.isEmpty() ? std::string("the export of an accepted plan failed without a reason")
                             : "the export of an accepted plan failed: " + str(error));

    QSet<QString> reported, folders;  // folders: those holding a reported file
    for (const QString& path : written) {
        const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
        if (!clean.startsWith(dir.path() + "/"))
            fail("the exporter reported writing " + str(path) + ", outside the folder it was given");
        reported.insert(clean);
        checkWrittenFile(clean);
        for (QString up = QFileInfo(clean).absolutePath(); up.startsWith(dir.path() + "/"); up = QFileInfo(up).absolutePath())
            folders.insert(up);
    }
    for (const QString& expected : {request.pdfPath, request.markdownPath})
        if (!reported.contains(expected))
            fail("the exporter did not report " + str(expected));
    QDirIterator it(dir.path(), QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = QDir::cleanPath(it.next());
        const QFileInfo info = it.fileInfo();
        if (info.isDir() && !info.isSymLink() ? folders.contains(path) : reported.contains(path))
            continue;
        if (info.absolutePath() == QDir::cleanPath(request.slidesDirectory) && kSlideFolderBookkeeping.contains(info.fileName()))
            continue;
        fail("the export left " + str(path) + ", which it did not report writing");
    }
    if (!tmp.remove())
        fail("cannot remove the temporary folder " + str(dir.path()));
    return 0;
}
