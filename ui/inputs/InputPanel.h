// The left-hand panel: model, cluster, training, layout and reliability inputs, each
// bound to one field of the plan. Edits go through the document; the panel repaints
// itself from the document after every change.
#pragma once

#include <QHash>
#include <QWidget>

#include <array>
#include <functional>
#include <string_view>
#include <vector>

#include "plan/Plan.h"

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

signals:
    void scrollRequest(QWidget* target);

private:
    QGroupBox* buildPlan();
    QGroupBox* buildModel();
    QGroupBox* buildCluster();
    QGroupBox* buildTraining();
    QGroupBox* buildFramework();
    QGroupBox* buildLayout();
    QGroupBox* buildReliability();
    void refresh();
    void registerField(const QString& path, QWidget* widget);

    // Field helpers: each adds a form row bound to one plan field (read and write).
    using Getter = std::function<double(const trainplan::Plan&)>;
    using Setter = std::function<void(trainplan::Plan&, double)>;
    void addNumber(QFormLayout* form, const QString& label, const QString& path, double min, double max, int decimals,
                   const QString& suffix, Getter get, Setter set);
    void addCheck(QFormLayout* form, const QString& label, const QString& path, std::function<bool(const trainplan::Plan&)> get,
                  std::function<void(trainplan::Plan&, bool)> set);
    template <typename E, size_t N>
    void addChoice(QFormLayout* form, const QString& label, const QString& path, const std::array<std::pair<E, std::string_view>, N>& names,
                   std::function<E(const trainplan::Plan&)> get, std::function<void(trainplan::Plan&, E)> set);
    void addSlider(QFormLayout* form, ValueSlider* slider, const QString& path, std::function<void(int)> onValue,
                   std::function<void()> refresh);

    PlanDocument* doc_;
    std::vector<std::function<void()>> refreshers_;
    QHash<QString, QWidget*> fields_;
    std::array<ValueSlider*, trainplan::kParallelDimCount> layoutSliders_{};
    ValueSlider* mfu_ = nullptr;
    ValueSlider* microBatch_ = nullptr;
    ValueSlider* globalBatch_ = nullptr;
    QComboBox* modelPreset_ = nullptr;
    QComboBox* acceleratorPreset_ = nullptr;
    QLineEdit* name_ = nullptr;
    QLabel* nameNote_ = nullptr;
    QLabel* modelNotice_ = nullptr;
    int noticedSequenceLength_ = 0;  // the length the notice announced; it goes once that changes
    StageLayersEdit* stageLayers_ = nullptr;
};
