// Where a step's time goes: the predicted step by component (compute, memory-bound work,
// recompute, exposed TP/CP/ZeRO collectives, PP sends, bubble, exposed DP tail) beside the
// step at the assumed MFU (compute and bubble), on one seconds axis.
#pragma once

#include <QChartView>

class PlanDocument;
class QBarSet;
class QBarCategoryAxis;
class QValueAxis;

class TimeBreakdownChart : public QChartView {
    Q_OBJECT

public:
    explicit TimeBreakdownChart(PlanDocument* document, QWidget* parent = nullptr);
    double value(int set, int row) const;  // seconds

    // Parts of a step, for the predicted row (issue 7's components, grouped) and the row at
    // the assumed MFU (compute and bubble only).
    enum Part { Compute, MemoryBound, Recompute, Collectives, PpSend, Bubble, DpExposed, PartCount };
    enum Row { AssumedRow, PredictedRow };

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();

    PlanDocument* doc_;
    QBarSet* sets_[PartCount];
    QValueAxis* secondsAxis_;
};
