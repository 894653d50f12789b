#include "ui/calibration/CalibrationDialog.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTimeZone>
#include <QVBoxLayout>

#include "core/base/BoundedFile.h"
#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/base/Units.h"
#include "core/calibration/TrainingLog.h"

namespace {

// An optional figure: 0 shows "not measured" (QAbstractSpinBox::specialValueText).
QDoubleSpinBox* optionalBox(const QString& suffix, double max, int decimals, QWidget* parent)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(0, max);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    box->setSpecialValueText(QObject::tr("not measured"));
    box->setValue(0);
    return box;
}

std::optional<double> given(const QDoubleSpinBox* box, double toSi = 1.0)
{
    return box->value() > 0 ? std::optional<double>(box->value() * toSi) : std::nullopt;
}

}  // namespace

CalibrationDialog::CalibrationDialog(const trainplan::Plan& plan, QWidget* parent)
    : QDialog(parent)
    , plan_(plan)
{
    setWindowTitle(tr("Calibrate from a Measured Run"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("What one run measured on this cluster, with this plan's layout:<br><b>%1</b>.<br>The step fits the GEMM "
                                "efficiency; an exposed communication time fits the link that carries it; a peak memory fits the "
                                "allocator's slack. Every other layout of the plan is then predicted with the fitted figures.")
                                 .arg(QString::fromStdString(trainplan::measuredLayoutText(plan)).toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* measured = new QGroupBox(tr("Measured"), this);
    auto* form = new QFormLayout(measured);
    fromFigures_ = new QRadioButton(tr("Figures I measured"), measured);
    fromLog_ = new QRadioButton(tr("A training log (Megatron-LM or torchtitan)"), measured);
    fromFigures_->setChecked(true);
    form->addRow(fromFigures_);
    auto* throughputRow = new QHBoxLayout;
    throughputKind_ = new QComboBox(measured);
    throughputKind_->addItems({tr("Step time"), tr("Tokens per second per GPU")});
    throughput_ = new QDoubleSpinBox(measured);
    throughput_->setRange(0, 1e9);
    throughput_->setDecimals(3);
    throughput_->setSuffix(tr(" s"));
    throughput_->setSpecialValueText(tr("enter the measured figure"));
    throughputRow->addWidget(throughputKind_);
    throughputRow->addWidget(throughput_, 1);
    form->addRow(throughputRow);
    form->addRow(fromLog_);
    auto* logRow = new QHBoxLayout;
    logPath_ = new QLineEdit(measured);
    logPath_->setReadOnly(true);
    logPath_->setPlaceholderText(tr("no log chosen"));
    auto* browse = new QPushButton(tr("Choose Log…"), measured);
    logRow->addWidget(logPath_, 1);
    logRow->addWidget(browse);
    form->addRow(logRow);
    logSummary_ = new QLabel(measured);
    logSummary_->setWordWrap(true);
    form->addRow(logSummary_);
    exposed_ = optionalBox(tr(" s"), 1e6, 3, measured);
    exposed_->setToolTip(tr("Communication the step waited for, not hidden under compute (a profile's NCCL time outside kernels)"));
    form->addRow(tr("Exposed communication per step:"), exposed_);
    peak_ = optionalBox(tr(" GB"), 1e5, 2, measured);
    peak_->setToolTip(tr("The fullest GPU's peak as the device shows it (nvidia-smi), GB = 10^9 bytes; a log's max reserved is used "
                         "when this is not measured"));
    form->addRow(tr("Peak memory (fullest GPU):"), peak_);
    framework_ = new QLineEdit(measured);
    framework_->setPlaceholderText(tr("e.g. Megatron-LM core_r0.12"));
    framework_->setMaxLength(200);
    form->addRow(tr("Training stack and release:"), framework_);
    date_ = new QDateEdit(QDateTime::currentDateTimeUtc().date(), measured);
    date_->setDisplayFormat("yyyy-MM-dd");
    date_->setCalendarPopup(true);
    form->addRow(tr("Measured on:"), date_);
    layout->addWidget(measured);

    report_ = new QPlainTextEdit(this);
    report_->setReadOnly(true);
    report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    report_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    report_->setMinimumHeight(160);
    layout->addWidget(report_, 1);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton* apply = buttons_->addButton(tr("Apply to Plan"), QDialogButtonBox::AcceptRole);
    apply->setEnabled(false);
    layout->addWidget(buttons_);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    pause_.setSingleShot(true);
    pause_.setInterval(200);
    connect(&pause_, &QTimer::timeout, this, &CalibrationDialog::recompute);
    connect(browse, &QPushButton::clicked, this, &CalibrationDialog::browseLog);
    connect(throughputKind_, &QComboBox::currentIndexChanged, this, [this](int kind) {
        throughput_->setSuffix(kind == 0 ? tr(" s") : tr(" tokens/s"));
        throughput_->setDecimals(kind == 0 ? 3 : 1);
        scheduleRecompute();
    });
    for (QDoubleSpinBox* box : {throughput_, exposed_, peak_})
        connect(box, &QDoubleSpinBox::valueChanged, this, &CalibrationDialog::scheduleRecompute);
    connect(framework_, &QLineEdit::textChanged, this, &CalibrationDialog::scheduleRecompute);
    connect(date_, &QDateEdit::dateChanged, this, &CalibrationDialog::scheduleRecompute);
    for (QRadioButton* r : {fromFigures_, fromLog_})
        connect(r, &QRadioButton::toggled, this, [this] {
            updateSourceWidgets();
            scheduleRecompute();
        });
    updateSourceWidgets();
    recompute();
    resize(680, 640);
}

void CalibrationDialog::updateSourceWidgets()
{
    const bool figures = fromFigures_->isChecked();
    throughputKind_->setEnabled(figures);
    throughput_->setEnabled(figures);
    logPath_->setEnabled(!figures);
    logSummary_->setEnabled(!figures);
}

void CalibrationDialog::scheduleRecompute()
{
    pause_.start();
}

void CalibrationDialog::browseLog()
{
    const QString dir = QSettings().value("lastDirectory", QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a training log"), dir, tr("Logs (*.log *.txt *.out);;All files (*)"));
    if (!path.isEmpty())
        loadLog(path);
}

bool CalibrationDialog::loadLog(const QString& path)
{
    fromLog_->setChecked(true);
    logPath_->setText(path);
    logRun_.reset();
    try {
        logRun_ = trainplan::measuredRunFromLog(trainplan::readRegularFile(path.toStdString()), QFileInfo(path).fileName().toStdString());
    } catch (const trainplan::PlanError& e) {
        logSummary_->setText(QString::fromStdString(e.problems().front().path + ": " + e.problems().front().message));
    } catch (const std::exception& e) {
        logSummary_->setText(QString::fromStdString(e.what()));
    }
    if (logRun_) {
        QString read = QString::fromStdString(logRun_->source);
        if (logRun_->stepSeconds)
            read += tr("; step %1").arg(QString::fromStdString(trainplan::formatSeconds(*logRun_->stepSeconds)));
        if (logRun_->tokensPerSecondPerGpu)
            read += tr("; %1 tokens/s per GPU").arg(QString::fromStdString(trainplan::formatNumber(*logRun_->tokensPerSecondPerGpu)));
        if (logRun_->peakMemoryBytes)
            read += tr("; peak %1 reserved").arg(QString::fromStdString(trainplan::formatBytes(*logRun_->peakMemoryBytes)));
        logSummary_->setText(read);
    }
    recompute();
    return logRun_.has_value();
}

void CalibrationDialog::recompute()
{
    pause_.stop();
    result_.reset();
    trainplan::CalibrationInputs inputs;
    QString missing;
    if (fromLog_->isChecked()) {
        if (logRun_)
            inputs.run = *logRun_;
        else
            missing = tr("Choose a training log, or enter the measured figures.");
    } else if (throughput_->value() > 0) {
        const bool step = throughputKind_->currentIndex() == 0;
        inputs.run = trainplan::enteredMeasuredRun(step ? std::optional(throughput_->value()) : std::nullopt,
            step ? std::nullopt : std::optional(throughput_->value()));
    } else {
        missing = tr("Enter the measured step time (or tokens per second per GPU), or choose a training log.");
    }
    inputs.run.exposedCommunicationSeconds = given(exposed_);
    if (const auto peak = given(peak_, trainplan::units::GB)) {
        inputs.run.peakMemoryBytes = peak;
        inputs.run.peakIsAllocatorReserved = false;
    }
    inputs.framework = framework_->text().toStdString();
    inputs.date = date_->date().toString("yyyy-MM-dd").toStdString();
    QString text;
    if (!missing.isEmpty()) {
        text = missing;
    } else {
        try {
            result_ = trainplan::calibrate(plan_, inputs);
            text = QString::fromStdString(trainplan::calibrationToText(*result_));
        } catch (const trainplan::PlanError& e) {
            for (const auto& p : e.problems())
                text += QString::fromStdString((p.path.empty() ? "" : p.path + ": ") + p.message) + "\n";
        }
    }
    report_->setPlainText(text);
    for (QAbstractButton* b : buttons_->buttons())
        if (buttons_->buttonRole(b) == QDialogButtonBox::AcceptRole)
            b->setEnabled(calibratedPlan().has_value());
}

std::optional<trainplan::Plan> CalibrationDialog::calibratedPlan() const
{
    if (!result_ || result_->fitted.empty())
        return std::nullopt;
    return result_->plan;
}
