// The left-hand panel: model, cluster, training, layout and reliability inputs, each
// bound to one field of the plan. Each input takes its title, its range and its unit from the
// plan-field table (PlanFields.h, ShownUnits.h), looked up when the panel is built, so a field the
// table does not have cannot be shown (planField throws). Edits go through the document; the
// panel repaints itself from the document after every change.
#pragma once

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <array>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "core/plan/Plan.h"

class PlanDocument;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class StageLayersEdit;
class QVBoxLayout;
class ValueSlider;

class InputPanel : public QWidget {
    Q_OBJECT

public:
    explicit InputPanel(PlanDocument* document, QWidget* parent = nullptr);

    // Brings the control for a JSON path (e.g. "layout.tp") into view and flashes it.
    void highlightField(const QString& path);
    QWidget* widgetForField(const QString& path) const;
    ValueSlider* layoutSlider(trainplan::ParallelDim dimension) const { return layoutSliders_[size_t(dimension)]; }
    ValueSlider* mfuSlider() const { return mfu_; }
    ValueSlider* microBatchSlider() const { return microBatch_; }
    ValueSlider* globalBatchSlider() const { return globalBatch_; }
    QLineEdit* nameEdit() const { return name_; }
    QComboBox* modelPresetCombo() const { return modelPreset_; }
    QComboBox* acceleratorPresetCombo() const { return acceleratorPreset_; }
    StageLayersEdit* stageLayersEdit() const { return stageLayers_; }
    // The line under the model preset: what picking the preset changed besides the shape
    // (the sequence length and with it the tokens per step); empty when nothing did.
    QString modelNotice() const;
    // The plan fields whose inputs the panel built from the field table, in the order shown, and
    // the title beside one of them (its label, check box or slider title).
    const QStringList& shownFields() const { return shownFields_; }
    QString shownTitle(const QString& path) const;

signals:
    void scrollRequest(QWidget* target);

private:
    QGroupBox* buildPlan();
    QGroupBox* buildModel();
    QGroupBox* buildExperts();
    QGroupBox* buildCluster();
    QGroupBox* buildEfficiencies();
    QGroupBox* buildTraining();
    QGroupBox* buildFramework();
    QGroupBox* buildLayout();
    QGroupBox* buildReliability();
    QGroupBox* buildCost();
    void refresh();
    void registerField(const QString& path, QWidget* widget);

    // Field helpers: each adds a form row bound to one plan field (read and write), titled,
    // bounded and given its unit by the field table. Getters and setters work in the Plan's own
    // (SI) values; the helpers convert to what is shown (ShownUnits.h). An edit of a layout field
    // the plan left unknown makes it known (LayoutUnknownFields.h).
    using Getter = std::function<double(const trainplan::Plan&)>;
    using Setter = std::function<void(trainplan::Plan&, double)>;
    // belowMinimum: the text shown for 0 when it stands for "not given" below the table's minimum
    // ("from the preset", "not modelled").
    void addNumber(QFormLayout* form, std::string_view path, int decimals, Getter get, Setter set, const QString& belowMinimum = {});
    void addCheck(QFormLayout* form, std::string_view path, std::function<bool(const trainplan::Plan&)> get,
        std::function<void(trainplan::Plan&, bool)> set);
    template <typename E, size_t N>
    void addChoice(QFormLayout* form, std::string_view path, const std::array<std::pair<E, std::string_view>, N>& names,
        std::function<E(const trainplan::Plan&)> get, std::function<void(trainplan::Plan&, E)> set);
    // A choice the plan may leave unset: the first entry says what unset means for this plan.
    template <typename E, size_t N>
    void addOptionalChoice(QFormLayout* form, std::string_view path, const std::array<std::pair<E, std::string_view>, N>& names,
        std::function<std::optional<E>(const trainplan::Plan&)> get, std::function<void(trainplan::Plan&, std::optional<E>)> set,
        std::function<QString(const trainplan::Plan&)> unsetText);
    // A whole number of few values (the table's range), each with its own words.
    void addIntegerChoice(QFormLayout* form, std::string_view path, std::function<QString(int)> describe,
        std::function<int(const trainplan::Plan&)> get, std::function<void(trainplan::Plan&, int)> set);
    ValueSlider* addSlider(QFormLayout* form, std::string_view path, std::function<void(int)> onValue, std::function<void()> refresh);
    void showField(std::string_view path, QWidget* widget);

    PlanDocument* doc_;
    std::vector<std::function<void()>> refreshers_;
    QHash<QString, QWidget*> fields_;
    QStringList shownFields_;
    std::array<ValueSlider*, trainplan::kParallelDimCount> layoutSliders_{};
    ValueSlider* mfu_ = nullptr;
    ValueSlider* microBatch_ = nullptr;
    ValueSlider* globalBatch_ = nullptr;
    QComboBox* modelPreset_ = nullptr;
    QComboBox* acceleratorPreset_ = nullptr;
    QLineEdit* name_ = nullptr;
    QLabel* nameNote_ = nullptr;
    QLabel* modelNotice_ = nullptr;
    QLabel* layerKinds_ = nullptr;  // the model's layer kinds in words (model.layer_kinds)
    int noticedSequenceLength_ = 0;  // the length the notice announced; it goes once that changes
    StageLayersEdit* stageLayers_ = nullptr;
};
