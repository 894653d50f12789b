#include "report/Exporter.h"

#include <QFile>

#include "plan/AtomicFile.h"
#include "report/PdfReport.h"
#include "report/ReportContext.h"
#include "report/SlideExport.h"
#include "text/Derivation.h"

namespace exporter {

bool run(const trainplan::Plan& plan, const QString& sourceName, const ExportRequest& request, QString* error, QStringList* written)
{
    return run(trainplan::analyse(plan), sourceName, request, error, written);
}

bool run(const trainplan::Analysis& analysis, const QString& sourceName, const ExportRequest& request, QString* error, QStringList* written)
{
    const ReportContext context(analysis, sourceName);
    if (!request.pdfPath.isEmpty()) {
        if (!pdfreport::write(context, request.pdfPath, request.pageSize, error))
            return false;
        if (written)
            *written << request.pdfPath;
    }
    if (!request.slidesDirectory.isEmpty()) {
        QStringList files;
        if (!slideexport::writeAll(context, request.slidesDirectory, error, &files))
            return false;
        if (written)
            *written << files;
    }
    if (!request.markdownPath.isEmpty()) {
        const std::string md = "# " + context.title().toStdString() + "\n\n" + trainplan::derivationToMarkdown(trainplan::derive(context.analysis()));
        try {
            trainplan::writeFileAtomically(QFile::encodeName(request.markdownPath).toStdString(), md);
        } catch (const trainplan::FileWriteError& e) {
            *error = QObject::tr("Cannot write %1: %2").arg(request.markdownPath, QString::fromLocal8Bit(e.what()));
            return false;
        }
        if (written)
            *written << request.markdownPath;
    }
    return true;
}

}  // namespace exporter
