// The sizing PDF: landscape, the sentences and the chart (SizingChartPainter) on the first page,
// then every configuration's row flowing over as many pages as it needs (PdfPages). The sizing
// window and `trainplan-cli size --pdf` write the same file.
#pragma once

#include <QPageSize>
#include <QString>

#include "core/sizing/ClusterSizing.h"

namespace sizingpdf {

// `title` names the plan sized. False with a message on failure, the previous file kept.
bool write(const trainplan::SizingResult& result, const QString& title, const QString& path, QPageSize::PageSizeId pageSize,
    QString* error, int* pages = nullptr);

}  // namespace sizingpdf
