// Reality check: the step-time model against measured, published training runs (the Megatron-LM
// papers, :/data/published_runs.json, and the calibration runs, :/data/calibration_runs.json), as
// a table of cases and a predicted-against-measured scatter plot with the y = x line and a ±10 %
// band (log axes for every metric at once, linear for one), under a line giving the median and
// worst error; and, on a second tab, the error in sample and out of sample (each family predicted
// with the calibration fitted without it), overall, per accelerator, per framework and per family,
// so a person sees how far to trust a prediction for a run like none of these.
// The check takes tens of milliseconds, so it runs when the view is first shown (or asked); the
// validation refits the calibration once per family (about a second) on a worker thread.
#pragma once

#include <QWidget>

#include <atomic>
#include <thread>

#include "core/analysis/RealityCheck.h"

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
    static constexpr const char* kCalibrationPath = ":/data/calibration_runs.json";
    static constexpr int kIdRole = Qt::UserRole + 2;  // the case's full id, on the first column

    explicit RealityCheckView(QWidget* parent = nullptr);
    ~RealityCheckView() override;

    // Reads and checks a published_runs.json and, when given, a calibration_runs.json; false (and
    // the reason shown in the view) when either cannot be read or parsed.
    bool load(const QString& path, const QString& calibrationPath = QString());
    // The summary, running the check on the default file first if nothing is loaded yet.
    const trainplan::RealitySummary& summary();
    QString errorText() const { return error_; }

    // Which cases the scatter plot shows: every metric on log axes, or one metric on linear axes.
    enum class PlotMetric { All, TflopsPerGpu, Mfu, IterationSeconds, LayerMilliseconds };
    void setPlotMetric(PlotMetric metric);
    PlotMetric plotMetric() const { return plotMetric_; }

    QTableView* table() const { return table_; }
    // The in-sample and out-of-sample table: empty until the worker has validated the model.
    QTableView* validationTable() const { return validation_; }
    bool validationReady() const { return validated_; }
    const trainplan::ModelValidation& validation() const { return validationResult_; }
    QChartView* chartView() const { return chart_; }
    QLabel* summaryLabel() const { return summaryLabel_; }
    QLabel* validationNote() const { return validationNote_; }

    QSize sizeHint() const override { return {900, 500}; }

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void ensureLoaded();
    void fill();
    void startValidation(std::vector<trainplan::RealityCase> cases);
    void fillValidation();

    trainplan::RealitySummary summary_;
    bool loaded_ = false;
    QString error_;
    PlotMetric plotMetric_ = PlotMetric::All;
    QLabel* summaryLabel_;
    QComboBox* metricBox_;
    QStandardItemModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QStandardItemModel* validationModel_;
    QTableView* validation_;
    QLabel* validationNote_;
    trainplan::ModelValidation validationResult_;
    bool validated_ = false;
    std::thread worker_;  // joined before the view goes (the destructor), so it never outlives it
    std::atomic<bool> cancel_{false};  // set by the destructor: the worker stops at its next grid point
    QChartView* chart_;
    QSplitter* split_;
    bool splitPlaced_ = false;
};
