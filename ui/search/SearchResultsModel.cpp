#include "ui/search/SearchResultsModel.h"

#include <QColor>
#include <QFont>
#include <QLocale>

#include "core/analysis/Thresholds.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/text/MfuBasis.h"
#include "render/style/Theme.h"

namespace {

constexpr int kParallelDimColumns = int(trainplan::kParallelDimCount);

QString recomputeName(trainplan::Recompute r)
{
    switch (r) {
    case trainplan::Recompute::None: return QObject::tr("none");
    case trainplan::Recompute::Selective: return QObject::tr("selective");
    case trainplan::Recompute::Full: return QObject::tr("full");
    }
    return {};
}

QString money(double dollars)
{
    if (dollars >= trainplan::units::mega)
        return QStringLiteral("$%1 M").arg(dollars / trainplan::units::mega, 0, 'f', 2);
    if (dollars >= trainplan::units::kilo)
        return QStringLiteral("$%1 k").arg(dollars / trainplan::units::kilo, 0, 'f', 1);
    return QStringLiteral("$%1").arg(dollars, 0, 'f', 0);
}

}  // namespace

SearchResultsModel::SearchResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void SearchResultsModel::setResult(const trainplan::SearchResult& result)
{
    beginResetModel();
    result_ = result;
    stale_ = false;
    currentRow_ = -1;
    if (current_)
        for (size_t i = 0; i < result_.rows.size(); ++i)
            if (result_.rows[i].layout == *current_)
                currentRow_ = int(i);
    endResetModel();
}

void SearchResultsModel::setCurrentLayout(const std::optional<trainplan::SearchLayout>& layout)
{
    current_ = layout;
    int found = -1;
    if (current_)
        for (size_t i = 0; i < result_.rows.size(); ++i)
            if (result_.rows[i].layout == *current_)
                found = int(i);
    if (found == currentRow_)
        return;
    const int old = currentRow_;
    currentRow_ = found;
    for (int r : {old, found})
        if (r >= 0)
            emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

void SearchResultsModel::setStale(bool stale)
{
    if (stale == stale_)
        return;
    stale_ = stale;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(result_.rows.size());
}

int SearchResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString SearchResultsModel::flagsText(const trainplan::SearchRow& row)
{
    QStringList flags;
    if (row.pareto)
        flags << tr("Pareto");
    if (row.simplest)
        flags << tr("simplest");
    // The memory verdict's words (MemoryFit.h) when not "fits", then the red flags by code.
    if (row.memoryFit != trainplan::MemoryFit::Fits)
        flags << QString::fromLatin1(trainplan::memoryFitName(row.memoryFit));
    for (int code = 0; code < trainplan::kWarningCodeCount; ++code)
        if (row.redFlags & trainplan::warningBit(trainplan::WarningCode(code)))
            flags << QString::fromLatin1(trainplan::codeName(trainplan::WarningCode(code)));
    return flags.join(QStringLiteral(", "));
}

int SearchResultsModel::columnOf(trainplan::ParallelDim dim)
{
    return FirstDimension + trainplan::parallelDimInfo(dim).displayOrder;
}

std::optional<trainplan::ParallelDim> SearchResultsModel::dimensionAt(int column)
{
    if (column < FirstDimension || column >= Ep)
        return std::nullopt;
    return trainplan::parallelDimsForDisplay()[size_t(column - FirstDimension)];
}

QVariant SearchResultsModel::display(const trainplan::SearchRow& row, int rank, int column) const
{
    const auto& l = row.layout;
    const QLocale locale = QLocale::c();
    if (const auto dim = dimensionAt(column))
        return l.size(*dim);
    switch (column) {
    case Rank: return rank + 1;
    case Ep: return l.ep;
    case Etp: return l.etp;
    case Virtual: return l.virtualStages;
    case MicroBatch: return l.microBatch;
    case GlobalBatch: return QString::fromStdString(trainplan::formatInteger(double(l.globalBatch)));
    case Zero: return l.zeroStage;
    case Recompute: return recomputeName(l.recompute);
    case Sp: return l.sequenceParallel ? tr("yes") : tr("no");
    case StepSeconds: return QString::fromStdString(trainplan::formatNumber(row.stepSeconds, 3));
    case Mfu: return QStringLiteral("%1 %").arg(row.mfu * 100, 0, 'f', 1);
    case MemoryGb: return locale.toString(row.memoryBytes / trainplan::units::GB, 'f', 1);
    case GpuHours: return QString::fromStdString(trainplan::formatInteger(row.gpuHours));
    case Cost: return row.cost > 0 ? money(row.cost) : QStringLiteral("–");
    case Flags: return flagsText(row);
    }
    return {};
}

QVariant SearchResultsModel::sortKey(const trainplan::SearchRow& row, int rank, int column) const
{
    const auto& l = row.layout;
    if (const auto dim = dimensionAt(column))
        return l.size(*dim);
    switch (column) {
    case Rank: return rank;
    case Ep: return l.ep;
    case Etp: return l.etp;
    case Virtual: return l.virtualStages;
    case MicroBatch: return l.microBatch;
    case GlobalBatch: return l.globalBatch;
    case Zero: return l.zeroStage;
    case Recompute: return int(l.recompute);
    case Sp: return int(l.sequenceParallel);
    case StepSeconds: return row.stepSeconds;
    case Mfu: return row.mfu;
    case MemoryGb: return row.memoryBytes;
    case GpuHours: return row.gpuHours;
    case Cost: return row.cost;
    case Flags: return flagsText(row);
    }
    return {};
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto& r = result_.rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole: return display(r, index.row(), index.column());
    case SortRole: return sortKey(r, index.row(), index.column());
    case Qt::TextAlignmentRole:
        return int((index.column() == Flags || index.column() == Recompute ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        if (index.row() == currentRow_)
            return theme::highlight();
        return {};
    case Qt::ForegroundRole:
        if (stale_)
            return theme::quiet();
        // The verdict's colour (analysis/Thresholds.h) on the memory and flags; red flags amber.
        if ((index.column() == Flags || index.column() == MemoryGb) && r.memoryFit != trainplan::MemoryFit::Fits)
            return theme::verdict(trainplan::memoryVerdict(r.memoryFit), QColor());
        if (index.column() == Flags && r.redFlags != 0)
            return theme::severity(trainplan::Severity::Warning);
        return {};
    case Qt::FontRole:
        if (index.row() == currentRow_) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.row() == currentRow_)
            return tr("The plan's current layout");
        if (index.column() == Flags && (r.redFlags != 0 || r.memoryFit != trainplan::MemoryFit::Fits)) {
            QStringList lines;
            if (r.memoryFit == trainplan::MemoryFit::MayNotFit)
                lines << tr("May not fit: the memory range straddles capacity less the margin; apply it to see the range and what "
                            "would settle it");
            if (r.tpAcrossNodes)
                lines << tr("Tensor parallelism spans nodes: its collectives cross the slower network");
            if (r.redFlags != 0)
                lines << tr("Red flags rank after every layout without them unless the filter says otherwise");
            return lines.join(QStringLiteral("\n"));
        }
        return {};
    }
    return {};
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (const auto dim = dimensionAt(section)) {
        const auto& info = trainplan::parallelDimInfo(*dim);
        if (role == Qt::DisplayRole)
            return QString::fromUtf8(info.label.data(), qsizetype(info.label.size()));
        if (role == Qt::ToolTipRole)
            return QString::fromUtf8(info.summary.data(), qsizetype(info.summary.size()));
        return {};
    }
    // The other columns, the dimensions' left out: the rank, then Virtual onwards.
    static const char* names[ColumnCount - kParallelDimColumns] = {"#", "EP", "ETP", "v", "Micro", "Batch", "ZeRO", "Recompute", "SP",
                                                                   "Step s", "MFU", "Memory GB", "GPU-hours", "Cost", "Flags"};
    static const char* tips[ColumnCount - kParallelDimColumns] = {"Rank by the objective",
        "Expert parallelism: ranks each MoE layer's routed experts are split over (carved out of TP x CP x DP)",
        "Expert tensor parallelism: ranks one routed expert's matrices are split over", "Virtual stages per GPU (interleaving)",
        "Micro-batch, sequences", "Global batch, sequences", "ZeRO stage", "Activation recomputation", "Sequence parallelism",
        "Predicted step time, seconds", trainplan::kPredictedMfuColumnTip, "Memory of the fullest GPU, GB (10^9 bytes)",
        "Predicted GPU-hours of the run (no failures)", "GPU-hours x $ per GPU-hour",
        "Pareto: nothing else is both smaller and faster. Simplest: the lightest sharding that fits."};
    if (section < 0 || section >= ColumnCount)
        return {};
    const int at = section < FirstDimension ? section : section - kParallelDimColumns;
    if (role == Qt::DisplayRole)
        return tr(names[at]);
    if (role == Qt::ToolTipRole)
        return tr(tips[at]);
    return {};
}
