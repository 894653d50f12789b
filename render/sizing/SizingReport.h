// The sizing answer as a document: its sentences and a table of every configuration (rich text,
// colours by theme role), and the sizing PDF: landscape, the sentences and the chart first, then
// the table flowing over as many pages as it needs. The sizing window and `trainplan-cli size
// --pdf` write the same file.
#pragma once

#include <QPageSize>
#include <QString>

#include "core/sizing/ClusterSizing.h"

namespace sizingreport {

QString sentencesHtml(const trainplan::SizingResult& result);
QString tableHtml(const trainplan::SizingResult& result);

// `title` names the plan sized. False with a message on failure, the previous file kept.
bool writePdf(const trainplan::SizingResult& result, const QString& title, const QString& path, QPageSize::PageSizeId pageSize,
    QString* error, int* pages = nullptr);

}  // namespace sizingreport
