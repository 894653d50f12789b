// Headless exports for `trainplan-cli export` and the window's File menu: the PDF report,
// slides (PNG at 1920x1080 and 2x, SVG, a 16:9 deck PDF) and the derivation as Markdown.
#pragma once

#include <QPageSize>
#include <QString>

#include "plan/Plan.h"

struct ExportRequest {
    QString pdfPath;
    QPageSize::PageSizeId pageSize = QPageSize::A4;
    QString slidesDirectory;
    QString markdownPath;
};

namespace exporter {

// Returns false with a message naming what failed. Needs a QApplication (widgets render
// the charts); headless runs use the offscreen platform.
bool run(const trainplan::Plan& plan, const QString& sourceName, const ExportRequest& request, QString* error, QStringList* written = nullptr);

}  // namespace exporter
