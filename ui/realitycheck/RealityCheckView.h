// Reality check : the step-time model against measured, published training runs
// (Megatron-LM papers, shipped as :/data/published_runs.json), as a table of cases and a
// predicted-against-measured scatter plot with the y = x line and a ±10 % band (log axes for
// every metric at once, linear for one), under a line giving the median and worst error, so a
// person sees how far to trust the predictions.
// The check takes tens of milliseconds, so it runs when the view is first shown (or asked).
#pragma once

#include <QWidget>

#include "analysis/RealityCheck.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QStandardItemModel;
class QTableView;
class QChartView;

class RealityCheckView : public QWidget {
    Q_OBJECT

public:
    static constexpr const char* kDefaultPath = ":/data/published_runs.json";
    static constexpr int kIdRole = Qt::UserRole + 2;  // the case's full id, on the first column

    explicit RealityCheckView(QWidget* parent = nullptr);

    // Reads and checks a published_runs.json; false (and the reason shown in the view) when
    // it cannot be read or parsed.
    bool load(const QString& path);
    // The summary, running the check on the default file first if nothing is loaded yet.
    const trainplan::RealitySummary& summary();
    QString errorText() const { return error_; }

    // Which cases the scatter plot shows: every metric on log axes, or one metric on linear axes.
    enum class PlotMetric { All, TflopsPerGpu, Mfu, IterationSeconds, LayerMilliseconds };
    void setPlotMetric(PlotMetric metric);
    PlotMetric plotMetric() const { return plotMetric_; }

    QTableView* table() const { return table_; }
    QChartView* chartView() const { return chart_; }
    QLabel* summaryLabel() const { return summaryLabel_; }

    QSize sizeHint() const override { return {900, 500}; }

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void ensureLoaded();
    void fill();

    trainplan::RealitySummary summary_;
    bool loaded_ = false;
    QString error_;
    PlotMetric plotMetric_ = PlotMetric::All;
    QLabel* summaryLabel_;
    QComboBox* metricBox_;
    QStandardItemModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QChartView* chart_;
    QSplitter* split_;
    bool splitPlaced_ = false;
};
