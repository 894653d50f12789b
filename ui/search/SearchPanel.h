// Layout search in the window : options, a background search with progress and
// cancel, the kept layouts as a sortable table and a memory-against-time scatter plot kept in
// step (select a row, its point rings; click a point, its row is selected), and "Apply", which
// puts the chosen layout on the document as one undo step. When the plan changes the results
// are marked stale rather than silently recomputed: a search can take a noticeable moment and
// the person may want to compare before and after.
#pragma once

#include <QWidget>

#include <optional>

#include "core/search/LayoutSearch.h"

class PlanDocument;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTableView;
class SearchResultsModel;
class SearchRunner;
class SearchScatter;

class SearchPanel : public QWidget {
    Q_OBJECT

public:
    explicit SearchPanel(PlanDocument* document, QWidget* parent = nullptr);
    ~SearchPanel() override;

    trainplan::SearchOptions options() const;
    QComboBox* redFlagFilter() const { return redFlags_; }
    void setOptions(const trainplan::SearchOptions& options);

    bool isRunning() const;
    // The plan changed (model, cluster, training or anything the search holds fixed) since the
    // results were computed.
    bool isStale() const { return stale_; }
    const trainplan::SearchResult& result() const;

    // Rows are the search's, in its rank order (source rows); the table may show them sorted.
    int selectedRow() const;  // -1: none
    void selectRow(int row);

    QTableView* table() const { return table_; }
    QSortFilterProxyModel* sortedModel() const { return proxy_; }
    SearchResultsModel* resultsModel() const { return model_; }
    SearchScatter* scatter() const { return scatter_; }
    QLabel* statusLabel() const { return status_; }
    QString statusText() const { return statusText_; }  // unelided

    // The keyboard focus to the first option (what Ctrl+F does), which it returns; Return in
    // the options then runs the search.
    QWidget* focusFirstField();

public slots:
    void startSearch();
    void cancelSearch();
    bool applySelected();  // false when nothing is selected or the results are stale

protected:
    void showEvent(QShowEvent* event) override;

signals:
    void searchStarted();
    void searchFinished();  // result() is the new result (possibly cancelled, partial)
    void layoutApplied();

protected:
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* buildOptions();
    QWidget* options_ = nullptr;
    void fitColumns();
    void placeSplit();
    void setStatus(const QString& text);
    void onFinished();
    void onPlanChanged();
    void updateCurrentLayout();
    void updateButtons();
    void updateBatchWidgets();

    PlanDocument* doc_;
    SearchRunner* runner_;
    SearchResultsModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    SearchScatter* scatter_;
    QSplitter* split_;
    QComboBox* objective_;
    QDoubleSpinBox* dollars_;
    QComboBox* batchMode_;
    QComboBox* redFlags_;  // where red-flagged layouts go (SearchOptions::redFlags)
    QSpinBox* batchMin_;
    QSpinBox* batchMax_;
    QLabel* dash_;
    QSpinBox* top_;
    QPushButton* search_;
    QPushButton* cancel_;
    QPushButton* apply_;
    QProgressBar* progress_;
    QLabel* status_;
    QString statusText_;
    QString resultStatus_;  // the last search's counts, shown again when the results are fresh again
    std::optional<trainplan::Plan> searchedKey_;  // the plan the results belong to (searchKey())
    bool searchedRange_ = false;
    bool stale_ = false;
    bool currentLayoutStale_ = false;  // the plan moved while the panel was hidden
    bool splitPlaced_ = false;
};
