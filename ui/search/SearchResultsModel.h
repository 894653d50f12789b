// The layout search's rows as a table: one row per layout, in the search's rank order.
// Qt::DisplayRole is formatted text; SortRole is the number (or text) a column sorts by, so a
// QSortFilterProxyModel sorts "10" after "9" and "0.95 s" before "1.2 s".
#pragma once

#include <QAbstractTableModel>

#include <optional>

#include "core/search/LayoutSearch.h"

class SearchResultsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    // After the rank, one column per parallel dimension in display order (columnOf, dimensionAt),
    // then the expert grid (shown for MoE models only).
    enum Column {
        Rank,
        FirstDimension,
        Ep = FirstDimension + int(trainplan::kParallelDimCount),
        Etp,
        Virtual,
        MicroBatch,
        GlobalBatch,
        Zero,
        Recompute,
        Sp,
        StepSeconds,
        Mfu,
        MemoryGb,
        GpuHours,
        Cost,
        Flags,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit SearchResultsModel(QObject* parent = nullptr);

    void setResult(const trainplan::SearchResult& result);
    const trainplan::SearchResult& result() const { return result_; }
    const trainplan::SearchRow& row(int r) const { return result_.rows[size_t(r)]; }
    // The row equal to the document's layout, if the search kept it: drawn highlighted.
    void setCurrentLayout(const std::optional<trainplan::SearchLayout>& layout);
    int currentRow() const { return currentRow_; }
    // Stale results (the plan changed since the search) are drawn greyed.
    void setStale(bool stale);
    bool isStale() const { return stale_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    static QString flagsText(const trainplan::SearchRow& row);
    static int columnOf(trainplan::ParallelDim dim);
    // The dimension a column shows, or nullopt for the other columns.
    static std::optional<trainplan::ParallelDim> dimensionAt(int column);

private:
    QVariant display(const trainplan::SearchRow& row, int rank, int column) const;
    QVariant sortKey(const trainplan::SearchRow& row, int rank, int column) const;

    trainplan::SearchResult result_;
    std::optional<trainplan::SearchLayout> current_;
    int currentRow_ = -1;
    bool stale_ = false;
};
