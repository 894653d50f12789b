// Headless exports for `trainplan-cli export` and the window's File menu: the PDF report,
// slides (PNG at 1920x1080 and 2x, SVG, a 16:9 deck PDF) and the derivation as Markdown.
#pragma once

#include <QPageSize>
#include <QString>

#include <optional>

#include "core/analysis/Analysis.h"
#include "core/sizing/ClusterSizing.h"

struct ExportRequest {
    QString pdfPath;
    QPageSize::PageSizeId pageSize = QPageSize::A4;
    QString slidesDirectory;
    QString markdownPath;
    // The sizing of this plan's cluster, when one was asked for: the PDF report gets its section.
    std::optional<trainplan::SizingResult> sizing;
};

namespace exporter {

// Returns false with a message naming what failed. Needs a QGuiApplication (fonts, painting);
// headless runs use the offscreen platform. The window passes its document's analysis so the
// exports quote the figures on screen; the CLI analyses the plan it was given.
// `kept` gets what the slide folder held that TrainPlan did not write and left in place.
bool run(const trainplan::Analysis& analysis, const QString& sourceName, const ExportRequest& request, QString* error,
    QStringList* written = nullptr, QStringList* kept = nullptr);

}  // namespace exporter
