// Calibrate from a measured run (calibration/Calibration.h): the figures a person measured on
// their cluster with the plan's layout, or a Megatron-LM / torchtitan log, fitted live into the
// plan's efficiency figures; the dialog shows the prediction before and after, what was fitted and
// what one run cannot settle, and hands the calibrated plan back for an undoable edit.
#pragma once

#include <QDialog>
#include <QTimer>

#include <optional>

#include "core/calibration/Calibration.h"
#include "core/calibration/MeasuredRun.h"

class QComboBox;
class QDateEdit;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;

class CalibrationDialog : public QDialog {
    Q_OBJECT

public:
    explicit CalibrationDialog(const trainplan::Plan& plan, QWidget* parent = nullptr);

    // The plan with the fitted figures and the record; only when something was fitted.
    std::optional<trainplan::Plan> calibratedPlan() const;
    // Reads a training log into the dialog; false (and the reason shown) when it has no iterations.
    bool loadLog(const QString& path);

    // For tests and keyboard users: the entry widgets.
    QDoubleSpinBox* throughputBox() const { return throughput_; }
    QComboBox* throughputKind() const { return throughputKind_; }
    QDoubleSpinBox* exposedCommunicationBox() const { return exposed_; }
    QDoubleSpinBox* peakMemoryBox() const { return peak_; }
    QPlainTextEdit* reportView() const { return report_; }
    // Runs the fit now instead of after the typing pause.
    void recompute();

private:
    void scheduleRecompute();
    void browseLog();
    void updateSourceWidgets();

    trainplan::Plan plan_;
    std::optional<trainplan::MeasuredRun> logRun_;
    std::optional<trainplan::CalibrationResult> result_;
    QRadioButton* fromFigures_ = nullptr;
    QRadioButton* fromLog_ = nullptr;
    QComboBox* throughputKind_ = nullptr;
    QDoubleSpinBox* throughput_ = nullptr;
    QLineEdit* logPath_ = nullptr;
    QLabel* logSummary_ = nullptr;
    QDoubleSpinBox* exposed_ = nullptr;
    QDoubleSpinBox* peak_ = nullptr;
    QLineEdit* framework_ = nullptr;
    QDateEdit* date_ = nullptr;
    QPlainTextEdit* report_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QTimer pause_;
};
