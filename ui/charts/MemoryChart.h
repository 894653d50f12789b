// Memory per GPU for every pipeline stage: a stacked bar per stage (weights, gradients,
// optimizer, activations, buffers) with the GPU's capacity drawn as a line; a stage that
// does not fit is marked in its label and highlighted.
#pragma once

#include <QChartView>

#include <vector>

class PlanDocument;
class QBarCategoryAxis;
class QBarSet;
class QLineSeries;
class QStackedBarSeries;
class QValueAxis;

class MemoryChart : public QChartView {
    Q_OBJECT

public:
    explicit MemoryChart(PlanDocument* document, QWidget* parent = nullptr);
    QStringList categories() const;
    double barValue(int set, int stage) const;  // GB
    double capacityLine() const;                // GB

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();

    PlanDocument* doc_;
    QStackedBarSeries* bars_;
    QBarSet* sets_[5];
    QLineSeries* capacity_;
    QBarCategoryAxis* stageAxis_;
    QValueAxis* lineAxisX_;
    QValueAxis* gbAxis_;
    std::vector<double> shownValues_;  // what the bars show now, to skip unchanged refreshes
};
