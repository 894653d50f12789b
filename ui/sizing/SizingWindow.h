// Size the cluster (File → Size the Cluster…): a deadline, perhaps a budget, the GPU range and the
// accelerators to weigh with their prices; the sizing runs off the window's thread with progress
// and cancel, then shows the chart of days against cost (deadline and budget as lines, the
// cheapest on time ringed), the answer in sentences, and every configuration in a table. Any
// point opens as the plan (one undoable edit), and the answer exports as the sizing PDF.
#pragma once

#include <QMainWindow>

#include <functional>

#include "core/sizing/ClusterSizing.h"

class PlanDocument;
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class SizingChart;
class SizingRunner;

class SizingWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit SizingWindow(PlanDocument* document, QWidget* parent = nullptr);

    // The options as the form gives them.
    trainplan::SizingOptions options() const;
    void setDeadlineDays(double days);
    // Ticks an accelerator preset with a price per GPU-hour (0: none); false when there is no such row.
    bool setAccelerator(const QString& name, bool weighed, double pricePerGpuHour = 0);
    void setGpuRange(int minGpus, int maxGpus);

    void startSizing();
    void cancelSizing();
    bool isRunning() const;
    const trainplan::SizingResult& result() const;
    // The shown answer when it sized this plan's question (the same model and token budget; the
    // layout, GPU count and part are what sizing chooses), finished and not cancelled: the PDF
    // report's sizing section. Null otherwise.
    const trainplan::SizingResult* resultFor(const trainplan::Plan& plan) const;
    // The point at `index` of the result applied to the plan, as one undoable edit.
    void openPoint(int index);
    bool exportPdf(const QString& path, QString* error);

    QTableWidget* pointsTable() const { return table_; }
    QLabel* answer() const { return answer_; }

    std::function<QString()> askPdfPath;  // tests replace it

signals:
    void sizingFinished();

private:
    QWidget* buildForm();
    void showResult();

    PlanDocument* doc_;
    SizingRunner* runner_;
    trainplan::SizingOptions shownOptions_;  // what the shown result was sized with
    trainplan::Plan sizedPlan_;              // and the plan it sized (points open onto it)
    QDoubleSpinBox* deadline_;
    QCheckBox* budgetOn_;
    QDoubleSpinBox* budget_;
    QSpinBox* minGpus_;
    QSpinBox* maxGpus_;
    QCheckBox* batchOn_;
    QDoubleSpinBox* batchMillions_;
    QDoubleSpinBox* threshold_;
    QTableWidget* accelerators_;
    QPushButton* size_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    SizingChart* chart_;
    QLabel* answer_;
    QTableWidget* table_;
};
