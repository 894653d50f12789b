#include "report/Exporter.h"

#include <QSaveFile>

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
        QSaveFile file(request.markdownPath);
        const std::string md = "# " + context.title().toStdString() + "\n\n" +
                               trainplan::derivationToMarkdown(trainplan::derive(context.analysis()));
        if (!file.open(QIODevice::WriteOnly) || file.write(md.data(), qint64(md.size())) != qint64(md.size()) || !file.commit()) {
            *error = QObject::tr("Cannot write %1: %2").arg(request.markdownPath, file.errorString());
            return false;
        }
        if (written)
            *written << request.markdownPath;
    }
    return true;
}

}  // namespace exporter
