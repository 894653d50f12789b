// Where a step's time goes: compute and pipeline bubble at the assumed MFU, and the
// communication each axis needs per step (TP, PP, DP hidden under backward, DP exposed).
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

    enum Part { Compute, Bubble, TpComm, PpComm, DpHidden, DpExposed, PartCount };

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();

    PlanDocument* doc_;
    QBarSet* sets_[PartCount];
    QValueAxis* secondsAxis_;
};
