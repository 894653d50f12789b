#include "render/report/Exporter.h"

#include "core/text/TextReport.h"
#include "render/report/ExportFile.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/SlideExport.h"

namespace exporter {

bool run(const trainplan::Analysis& analysis, const QString& sourceName, const ExportRequest& request, QString* error, QStringList* written,
    QStringList* kept)
{
    ReportContext context(analysis, sourceName);
    if (request.sizing)
        context.setSizing(*request.sizing);
    if (!request.pdfPath.isEmpty()) {
        if (!pdfreport::write(context, request.pdfPath, request.pageSize, error))
            return false;
        if (written)
            *written << request.pdfPath;
    }
    if (!request.slidesDirectory.isEmpty()) {
        QStringList files;
        if (!slideexport::writeAll(context, request.slidesDirectory, error, &files, kept))
            return false;
        if (written)
            *written << files;
    }
    if (!request.markdownPath.isEmpty()) {
        const std::string md = trainplan::estimateToMarkdown(context.analysis(), context.title().toStdString());
        if (!exportfile::write(request.markdownPath, QByteArray::fromStdString(md), error))
            return false;
        if (written)
            *written << request.markdownPath;
    }
    return true;
}

}  // namespace exporter
