// The sizing answer as rich text (colours by theme role): its sentences, and a table of its
// configurations (all, one accelerator's, or only the Pareto front). The sizing window, the sizing
// PDF (render/report/SizingPdf.h) and the plan's PDF report's sizing section read the same text.
#pragma once

#include <QString>

#include <string>

#include "core/sizing/ClusterSizing.h"

namespace sizingreport {

QString sentencesHtml(const trainplan::SizingResult& result);
// Every configuration, or one accelerator's (its name as a caption, no accelerator column);
// frontOnly keeps the Pareto front and the cheapest that meets the deadline, in fewer columns
// (no MWh or MFU) to fit a portrait page.
QString tableHtml(const trainplan::SizingResult& result, const std::string& accelerator = {}, bool frontOnly = false);

}  // namespace sizingreport
