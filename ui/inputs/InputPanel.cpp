#include "inputs/InputPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

#include "analysis/PlanUnknowns.h"
#include "base/Format.h"
#include "base/Units.h"
#include "document/PlanDocument.h"
#include "estimate/PipelineModel.h"
#include "inputs/ElidingComboBox.h"
#include "inputs/StageLayersEdit.h"
#include "inputs/ValueSlider.h"
#include "plan/EnumNames.h"
#include "plan/PlanFields.h"
#include "planfile/PlanName.h"
#include "presets/Presets.h"
#include "search/LayoutAdjuster.h"
#include "style/Theme.h"

using trainplan::Plan;

namespace {

// Merge keys: edits with the same key merge into one undo step until the drag ends.
// Undo merge keys: a slider drag is one undo step. The layout's dimensions take kLayoutMergeKey + dim.
enum MergeKey { kMfu = 101, kMicroBatch, kGlobalBatch, kLayoutMergeKey = 200 };

QString latin1(std::string_view text)
{
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

QString prettyName(std::string_view name)
{
    static const QHash<QString, QString> pretty = {
        {"swiglu", "SwiGLU (3 matrices)"}, {"gelu", "GeLU (2 matrices)"}, {"rmsnorm", "RMSNorm"}, {"layernorm", "LayerNorm"},
        {"rope", "RoPE"}, {"learned", "Learned"}, {"bf16-fp32-master-adam", "BF16 + FP32 master + Adam (16 B)"},
        {"bf16-adam-no-master", "BF16 + Adam, no master (12 B)"}, {"fp32-adam", "FP32 + Adam (16 B)"}, {"gpipe", "GPipe"},
        {"1f1b", "1F1B"}, {"interleaved", "Interleaved 1F1B"}, {"zero-bubble", "Zero bubble (ZB-H1)"}, {"none", "None"}, {"selective", "Selective"}, {"full", "Full"},
        {"tp-cp-dp-pp", "TP-CP-DP-PP (Megatron)"}, {"nvls", "NVLS (NVLink SHARP)"}, {"bf16", "BF16"}, {"fp8", "FP8 (per-tensor scales)"}, {"fp8-blockwise", "FP8 (block scales)"}, {"mxfp8", "MXFP8"}, {"nvls-and-ib-sharp", "NVLS + InfiniBand SHARP"}, {"tp-cp-pp-dp", "TP-CP-PP-DP"}, {"tp-dp-cp-pp", "TP-DP-CP-PP"}};
    const QString key = QString::fromUtf8(name.data(), int(name.size()));
    return pretty.value(key, key);
}

QFormLayout* newForm(QGroupBox* box)
{
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignLeft);
    form->setHorizontalSpacing(10);
    form->setVerticalSpacing(5);
    return form;
}

}  // namespace

InputPanel::InputPanel(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(8);
    layout->addWidget(buildPlan());
    layout->addWidget(buildLayout());
    layout->addWidget(buildTraining());
    layout->addWidget(buildFramework());
    layout->addWidget(buildModel());
    layout->addWidget(buildCluster());
    layout->addWidget(buildReliability());
    layout->addStretch(1);
    connect(doc_, &PlanDocument::planChanged, this, &InputPanel::refresh);
    connect(doc_, &PlanDocument::followerChanged, this, &InputPanel::refresh);
    refresh();
}

void InputPanel::registerField(const QString& path, QWidget* widget)
{
    fields_.insert(path, widget);
}

QWidget* InputPanel::widgetForField(const QString& path) const
{
    // "cluster.mtbf_hours_per_node" -> exact; "layout" -> the group; fall back to prefixes.
    QString p = path;
    while (!p.isEmpty()) {
        if (auto* w = fields_.value(p))
            return w;
        const int dot = p.lastIndexOf('.');
        p = dot < 0 ? QString() : p.left(dot);
    }
    return nullptr;
}

void InputPanel::highlightField(const QString& path)
{
    QWidget* w = widgetForField(path);
    if (!w)
        return;
    emit scrollRequest(w);
    w->setFocus(Qt::OtherFocusReason);
    w->setAutoFillBackground(true);
    QPalette flash = w->palette();
    flash.setColor(QPalette::Window, theme::highlight());
    flash.setColor(QPalette::Base, theme::highlight());
    const QPalette original = w->palette();
    w->setPalette(flash);
    w->setProperty("highlighted", true);
    QTimer::singleShot(1800, w, [w, original] {
        w->setPalette(original);
        w->setProperty("highlighted", false);
    });
}

void InputPanel::addNumber(QFormLayout* form, const QString& label, const QString& path, double min, double max, int decimals,
                           const QString& suffix, Getter get, Setter set)
{
    QAbstractSpinBox* box;
    if (decimals == 0) {
        auto* spin = new QSpinBox;
        spin->setRange(int(min), int(max));
        spin->setSuffix(suffix);
        spin->setKeyboardTracking(false);
        spin->setGroupSeparatorShown(true);
        connect(spin, &QSpinBox::valueChanged, this, [this, label, set](int v) {
            doc_->edit(QString("Set %1").arg(label), [&](Plan& p) { set(p, v); });
        });
        refreshers_.push_back([this, spin, get] {
            const QSignalBlocker b(spin);
            spin->setValue(int(std::lround(get(doc_->plan()))));
        });
        box = spin;
    } else {
        auto* spin = new QDoubleSpinBox;
        spin->setRange(min, max);
        spin->setDecimals(decimals);
        spin->setSuffix(suffix);
        spin->setKeyboardTracking(false);
        spin->setGroupSeparatorShown(true);
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, label, set](double v) {
            doc_->edit(QString("Set %1").arg(label), [&](Plan& p) { set(p, v); });
        });
        refreshers_.push_back([this, spin, get] {
            const QSignalBlocker b(spin);
            spin->setValue(get(doc_->plan()));
        });
        box = spin;
    }
    box->setAccelerated(true);
    form->addRow(label, box);
    registerField(path, box);
}

void InputPanel::addCheck(QFormLayout* form, const QString& label, const QString& path, std::function<bool(const Plan&)> get,
                          std::function<void(Plan&, bool)> set)
{
    auto* check = new QCheckBox(label);
    connect(check, &QCheckBox::toggled, this, [this, label, set](bool on) {
        doc_->edit(QString("%1 %2").arg(on ? "Enable" : "Disable", label), [&](Plan& p) { set(p, on); });
    });
    refreshers_.push_back([this, check, get] {
        const QSignalBlocker b(check);
        check->setChecked(get(doc_->plan()));
    });
    form->addRow(QString(), check);
    registerField(path, check);
}

template <typename E, size_t N>
void InputPanel::addChoice(QFormLayout* form, const QString& label, const QString& path, const std::array<std::pair<E, std::string_view>, N>& names,
                           std::function<E(const Plan&)> get, std::function<void(Plan&, E)> set)
{
    auto* combo = new ElidingComboBox;
    // Long entries must not dictate the panel's width: show about 16 characters.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    for (const auto& [value, name] : names)
        combo->addItem(prettyName(name), int(value));
    connect(combo, &QComboBox::activated, this, [this, combo, label, set](int index) {
        const E v = E(combo->itemData(index).toInt());
        doc_->edit(QString("Set %1").arg(label), [&](Plan& p) { set(p, v); });
    });
    refreshers_.push_back([this, combo, get] {
        const QSignalBlocker b(combo);
        combo->setCurrentIndex(combo->findData(int(get(doc_->plan()))));
    });
    form->addRow(label, combo);
    registerField(path, combo);
}

void InputPanel::addSlider(QFormLayout* form, ValueSlider* slider, const QString& path, std::function<void(int)> onValue,
                           std::function<void()> refresh)
{
    connect(slider, &ValueSlider::valueEdited, this, [onValue](int v) { onValue(v); });
    connect(slider, &ValueSlider::dragFinished, doc_, &PlanDocument::endMerge);
    refreshers_.push_back(std::move(refresh));
    form->addRow(slider);
    registerField(path, slider);
}

QGroupBox* InputPanel::buildLayout()
{
    auto* box = new QGroupBox(tr("Parallel layout"));
    auto* form = newForm(box);
    registerField("layout", box);

    auto* follower = new ElidingComboBox;
    QStringList product;
    for (trainplan::ParallelDim d : trainplan::parallelDimsForDisplay()) {
        const QString label = latin1(trainplan::parallelDimLabel(d));
        follower->addItem(tr("%1 follows").arg(label), latin1(trainplan::followerKey(trainplan::Follower::of(d))));
        product << label;
    }
    follower->addItem(tr("GPU count follows"), latin1(trainplan::followerKey(trainplan::Follower::gpus())));
    follower->setToolTip(tr("When you move one dimension, this one changes so that %1 stays equal to the GPU count.").arg(product.join(" × ")));
    connect(follower, &QComboBox::activated, this,
            [this, follower](int i) { doc_->setFollower(trainplan::followerFromKey(follower->itemData(i).toString().toStdString())); });
    refreshers_.push_back([this, follower] {
        const QSignalBlocker b(follower);
        follower->setCurrentIndex(follower->findData(latin1(trainplan::followerKey(doc_->follower()))));
    });
    form->addRow(tr("Keep GPUs"), follower);

    for (trainplan::ParallelDim dim : trainplan::parallelDimsForDisplay()) {
        const auto& info = trainplan::parallelDimInfo(dim);
        auto* s = new ValueSlider(latin1(info.label));
        s->slider()->setToolTip(tr(info.summary.data()));
        layoutSliders_[size_t(dim)] = s;
        // One undo step per drag of one slider: each dimension merges under its own key.
        const int key = kLayoutMergeKey + int(dim);
        addSlider(form, s, "layout." + latin1(info.key), [this, dim, key](int v) { doc_->setLayoutDimension(dim, v, key); },
                  [this, s, dim] {
                      const auto& plan = doc_->plan();
                      s->setCandidates(trainplan::candidateValues(plan, dim, doc_->follower()), plan.layout.size(dim));
                      s->setFollowing(trainplan::follows(doc_->follower(), dim), tr("Follows the other dimensions to keep the GPU count; choose another under “Keep GPUs”."));
                  });
        if (dim == trainplan::ParallelDim::Pp) {
            // Beside PP: how its stages share the layers (layout.stage_layers).
            stageLayers_ = new StageLayersEdit;
            connect(stageLayers_, &StageLayersEdit::splitEdited, this, [this](const std::vector<int>& counts) {
                doc_->edit(counts.empty() ? tr("Split the layers evenly") : tr("Set layers per stage"),
                           [&counts](Plan& p) { p.layout.stageLayers = counts; });
            });
            refreshers_.push_back([this] { stageLayers_->showPlan(doc_->plan()); });
            form->addRow(tr("Layers per stage"), stageLayers_);
            registerField("layout.stage_layers", stageLayers_->lineEdit());
        }
    }
    // Choosing a value for a field the plan left unknown makes it known, even the value assumed.
    const auto known = [](Plan& p, unsigned bit) { p.layout.unknownFields &= ~bit; };
    addChoice<trainplan::Schedule, 4>(form, tr("Schedule"), "layout.schedule", trainplan::kScheduleNames,
                                      [](const Plan& p) { return p.layout.schedule; }, [known](Plan& p, trainplan::Schedule s) {
                                          p.layout.schedule = s;
                                          if (s == trainplan::Schedule::Interleaved && p.layout.virtualStages < 2)
                                              p.layout.virtualStages = 2;
                                          known(p, trainplan::kUnknownSchedule);
                                      });
    addNumber(form, tr("Virtual stages"), "layout.virtual_stages", 1, 64, 0, QString(), [](const Plan& p) { return p.layout.virtualStages; },
              [known](Plan& p, double v) {
                  p.layout.virtualStages = int(v);
                  known(p, trainplan::kUnknownSchedule);
              });
    addChoice<int, 4>(form, tr("ZeRO stage"), "layout.zero_stage",
                      std::array<std::pair<int, std::string_view>, 4>{{{0, "0: replicate"}, {1, "1: optimizer"}, {2, "2: + gradients"}, {3, "3: + weights (FSDP)"}}},
                      [](const Plan& p) { return p.layout.zeroStage; }, [](Plan& p, int z) { p.layout.zeroStage = z; });
    // Recompute shows what the analysis settled on when the plan leaves it unknown (the lightest
    // setting that fits), not the field's default.
    addChoice<trainplan::Recompute, 3>(form, tr("Recompute"), "layout.recompute", trainplan::kRecomputeNames,
                                       [this](const Plan&) { return doc_->analysis().plan.layout.recompute; },
                                       [known](Plan& p, trainplan::Recompute r) {
                                           p.layout.recompute = r;
                                           known(p, trainplan::kUnknownRecompute);
                                       });
    addNumber(form, tr("Recomputed layers"), "layout.recompute_layers", 0, 10000, 0, QString(),
              [this](const Plan&) { return doc_->analysis().plan.layout.recomputeLayers; }, [known](Plan& p, double v) {
                  p.layout.recomputeLayers = int(v);
                  if (v > 0)
                      p.layout.recompute = trainplan::Recompute::Full;
                  known(p, trainplan::kUnknownRecompute);
              });
    if (auto* layers = qobject_cast<QSpinBox*>(fields_.value("layout.recompute_layers"))) {
        layers->setSpecialValueText(tr("all"));
        layers->setToolTip(tr("With full recompute, how many layers of each pipeline stage are recomputed (Megatron's block method); “all” recomputes every layer."));
    }
    addCheck(form, tr("Sequence parallelism"), "layout.sequence_parallel", [](const Plan& p) { return p.layout.sequenceParallel; },
             [known](Plan& p, bool on) {
                 p.layout.sequenceParallel = on;
                 known(p, trainplan::kUnknownSequenceParallel);
             });
    addCheck(form, tr("Flash attention"), "layout.flash_attention", [](const Plan& p) { return p.layout.flashAttention; },
             [known](Plan& p, bool on) {
                 p.layout.flashAttention = on;
                 known(p, trainplan::kUnknownFlashAttention);
             });
    // Fields the plan leaves unknown say so: "(assumed)" beside them, and a tooltip with what the
    // analysis assumed and that the predicted range covers the other values.
    const struct {
        const char* path;
        unsigned bit;
    } unknowable[] = {{"layout.schedule", trainplan::kUnknownSchedule},
                      {"layout.virtual_stages", trainplan::kUnknownSchedule},
                      {"layout.recompute", trainplan::kUnknownRecompute},
                      {"layout.recompute_layers", trainplan::kUnknownRecompute},
                      {"layout.sequence_parallel", trainplan::kUnknownSequenceParallel},
                      {"layout.flash_attention", trainplan::kUnknownFlashAttention}};
    for (const auto& u : unknowable) {
        QWidget* field = fields_.value(QString::fromLatin1(u.path));
        auto* check = qobject_cast<QCheckBox*>(field);
        auto* label = qobject_cast<QLabel*>(form->labelForField(field));
        const QString text = check ? check->text() : label ? label->text() : QString();
        const QString tip = field->toolTip();
        const unsigned bit = u.bit;
        refreshers_.push_back([this, field, check, label, text, tip, bit] {
            const bool unknown = doc_->plan().layout.unknownFields & bit;
            const QString shown = unknown ? tr("%1 (assumed)").arg(text) : text;
            if (check)
                check->setText(shown);
            else if (label)
                label->setText(shown);
            field->setToolTip(unknown ? tr("The plan does not give this: the analysis assumes the value shown, and the predicted range "
                                           "covers the others. Choose a value to set it.")
                                      : tip);
        });
    }
    addChoice<trainplan::RankOrder, 3>(form, tr("Rank order"), "layout.rank_order", trainplan::kRankOrderNames,
                                       [](const Plan& p) { return p.layout.rankOrder; }, [](Plan& p, trainplan::RankOrder o) { p.layout.rankOrder = o; });
    return box;
}

QGroupBox* InputPanel::buildTraining()
{
    auto* box = new QGroupBox(tr("Training"));
    auto* form = newForm(box);
    registerField("training", box);
    addNumber(form, tr("Tokens"), "training.tokens", 0.001, 1e6, 1, tr(" B"), [](const Plan& p) { return p.training.tokens / 1e9; },
              [](Plan& p, double v) { p.training.tokens = v * 1e9; });

    globalBatch_ = new ValueSlider(tr("Batch"));
    globalBatch_->setToolTip(tr("Global batch in sequences (multiples of DP × micro-batch)."));
    addSlider(form, globalBatch_, "training.global_batch_sequences",
              [this](int v) { doc_->edit(tr("Set global batch"), [v](Plan& p) { p.training.globalBatchSequences = v; }, kGlobalBatch); },
              [this] {
                  const auto& p = doc_->plan();
                  std::vector<int> values;
                  for (long long v : trainplan::globalBatchCandidates(p))
                      if (v <= 1'000'000'000)
                          values.push_back(int(v));
                  globalBatch_->setCandidates(values, int(p.training.globalBatchSequences));
                  globalBatch_->setSuffix(tr(" seq"));
              });
    microBatch_ = new ValueSlider(tr("Micro"));
    microBatch_->setToolTip(tr("Micro-batch size b in sequences (divisors of B / DP)."));
    addSlider(form, microBatch_, "training.micro_batch_size",
              [this](int v) { doc_->edit(tr("Set micro-batch"), [v](Plan& p) { p.training.microBatchSize = v; }, kMicroBatch); },
              [this] {
                  const auto& p = doc_->plan();
                  microBatch_->setCandidates(trainplan::microBatchCandidates(p), p.training.microBatchSize);
              });
    mfu_ = new ValueSlider(tr("MFU"));
    mfu_->setSuffix(tr(" %"));
    mfu_->setToolTip(tr("Assumed model FLOPs utilisation: useful FLOP/s over peak."));
    addSlider(form, mfu_, "training.mfu",
              [this](int v) { doc_->edit(tr("Set MFU"), [v](Plan& p) { p.training.mfu = v / 100.0; }, kMfu); },
              [this] {
                  std::vector<int> values;
                  for (int v = 5; v <= 80; ++v)
                      values.push_back(v);
                  mfu_->setCandidates(values, int(std::lround(doc_->plan().training.mfu * 100)));
              });
    // Time and cost from the assumed MFU or from the predicted step time.
    auto* basis = new ElidingComboBox;
    basis->addItem(tr("Assumed MFU"), int(PlanDocument::TimeBasis::AssumedMfu));
    basis->addItem(tr("Predicted step time"), int(PlanDocument::TimeBasis::Predicted));
    basis->setToolTip(tr("Whether days, GPU-hours and step time use the MFU above or the step-time model's prediction; the other is shown beside it."));
    connect(basis, &QComboBox::activated, this,
            [this, basis](int i) { doc_->setTimeBasis(PlanDocument::TimeBasis(basis->itemData(i).toInt())); });
    refreshers_.push_back([this, basis] {
        const QSignalBlocker b(basis);
        basis->setCurrentIndex(basis->findData(int(doc_->timeBasis())));
    });
    form->addRow(tr("Time from"), basis);
    registerField("time_basis", basis);
    addChoice<trainplan::MatmulPrecision, 4>(form, tr("Matmuls"), "training.matmul_precision", trainplan::kMatmulPrecisionNames,
                                             [](const Plan& p) { return p.training.matmulPrecision; },
                                             [](Plan& p, trainplan::MatmulPrecision m) { p.training.matmulPrecision = m; });
    if (QWidget* matmuls = fields_.value("training.matmul_precision"))
        matmuls->setToolTip(tr("Precision of the layers' matrix multiplies: FP8 runs them at the accelerator's FP8 peak (attention and the "
                               "output layer stay BF16); MFU is still counted against the BF16 peak."));
    addChoice<trainplan::PrecisionScheme, 3>(form, tr("Precision"), "training.precision", trainplan::kPrecisionNames,
                                             [](const Plan& p) { return p.training.precision; },
                                             [](Plan& p, trainplan::PrecisionScheme s) { p.training.precision = s; });
    addNumber(form, tr("Buffers"), "training.buffer_gb", 0, 1000, 1, tr(" GB"), [](const Plan& p) { return p.training.bufferBytes / 1e9; },
              [](Plan& p, double v) { p.training.bufferBytes = v * 1e9; });
    addNumber(form, tr("Fragmentation"), "training.fragmentation_fraction", 0, 90, 0, tr(" %"),
              [](const Plan& p) { return p.training.fragmentationFraction * 100; }, [](Plan& p, double v) { p.training.fragmentationFraction = v / 100; });
    return box;
}

// The training stack (the plan's framework section): a named profile; the switches neither the
// plan nor the profile sets are listed, since they widen the predicted range.
QGroupBox* InputPanel::buildFramework()
{
    auto* box = new QGroupBox(tr("Training stack"));
    auto* form = newForm(box);
    registerField("framework", box);
    auto* profile = new ElidingComboBox;
    profile->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    profile->setMinimumContentsLength(16);
    profile->addItem(tr("Not given (range covers it)"), QString());
    const QHash<QString, QString> pretty = {{"megatron-core-2024", tr("Megatron-Core 2024+ (TE, overlaps on)")},
                                            {"megatron-lm-2021", tr("Megatron-LM 2021–22 (papers)")},
                                            {"megatron-deepspeed-2022", tr("Megatron-DeepSpeed 2022")},
                                            {"pytorch-fsdp2", tr("PyTorch FSDP2 (torchtitan)")}};
    for (std::string_view name : trainplan::frameworkProfileNames()) {
        const QString key = QString::fromUtf8(name.data(), int(name.size()));
        profile->addItem(pretty.value(key, key), key);
    }
    profile->setToolTip(tr("What the training software overlaps and fuses. Each profile sets the switches its stack runs by default; "
                           "switches it leaves open stay unknown and widen the predicted range."));
    connect(profile, &QComboBox::activated, this, [this, profile](int index) {
        const std::string name = profile->itemData(index).toString().toStdString();
        doc_->edit(tr("Set the training stack"), [&name](Plan& p) { p.framework.profile = name; });
    });
    form->addRow(tr("Profile"), profile);
    registerField("framework.profile", profile);
    auto* unknown = new QLabel;
    unknown->setWordWrap(true);
    unknown->setTextFormat(Qt::PlainText);
    QPalette muted = unknown->palette();
    muted.setColor(QPalette::WindowText, theme::muted());
    unknown->setPalette(muted);
    form->addRow(unknown);
    refreshers_.push_back([this, profile, unknown] {
        const QSignalBlocker b(profile);
        const Plan& plan = doc_->plan();
        const int index = profile->findData(QString::fromStdString(plan.framework.profile));
        profile->setCurrentIndex(index >= 0 ? index : 0);
        QStringList names;
        for (const auto& input : trainplan::unknownInputs(doc_->analysis().plan))
            if (input.field.rfind("framework.", 0) == 0)
                names << QString::fromStdString(input.label);
        unknown->setText(names.isEmpty() ? tr("Every switch is known.")
                                         : tr("Unknown, in the range: %1.").arg(names.join(QStringLiteral(", "))));
    });
    return box;
}

QGroupBox* InputPanel::buildModel()
{
    auto* box = new QGroupBox(tr("Model"));
    auto* form = newForm(box);
    registerField("model", box);
    modelPreset_ = new ElidingComboBox;
    modelPreset_->addItem(tr("Custom"));
    for (const auto& preset : trainplan::modelPresets())
        modelPreset_->addItem(QString::fromStdString(preset.model.name));
    connect(modelPreset_, &QComboBox::activated, this, [this](int index) {
        if (index == 0)
            return;
        const auto* preset = trainplan::findModelPreset(modelPreset_->itemText(index).toStdString());
        if (!preset)
            return;
        const Plan before = doc_->plan();
        doc_->edit(tr("Use model %1").arg(modelPreset_->itemText(index)), [preset](Plan& p) {
            p.model = preset->model;
            p.layout.stageLayers.clear();
        });
        // The preset brings its own sequence length; the global batch stays in sequences, so
        // the tokens per step change with it. Said beside the preset, without stopping anyone.
        const int from = before.model.sequenceLength;
        const int to = doc_->plan().model.sequenceLength;
        if (from != to && doc_->plan().model == preset->model) {
            const double sequences = double(doc_->plan().training.globalBatchSequences);
            const auto count = [](double v) { return QString::fromStdString(trainplan::formatInteger(v)); };
            modelNotice_->setText(tr("Sequence length changed from %1 to %2 tokens (%3's); tokens per step changed with it, from %4 to %5 "
                                     "(%6 sequences per step).")
                                      .arg(count(from), count(to), QString::fromStdString(preset->model.name), count(sequences * from),
                                           count(sequences * to), count(sequences)));
            noticedSequenceLength_ = to;
            modelNotice_->show();
        } else {
            noticedSequenceLength_ = 0;
            modelNotice_->hide();
        }
    });
    refreshers_.push_back([this] {
        const QSignalBlocker b(modelPreset_);
        // Matched by the model's numbers, not its name: the default plan's model is Llama 3.1
        // 70B's shape under another name, and an edited preset is no longer that preset.
        const auto* preset = trainplan::modelPresetOf(doc_->plan().model);
        modelPreset_->setCurrentIndex(preset ? modelPreset_->findText(QString::fromStdString(preset->model.name)) : 0);
        if (noticedSequenceLength_ != 0 && doc_->plan().model.sequenceLength != noticedSequenceLength_) {
            noticedSequenceLength_ = 0;  // undone or changed again: the notice no longer holds
            modelNotice_->hide();
        }
    });
    form->addRow(tr("Preset"), modelPreset_);
    registerField("model.name", modelPreset_);
    modelNotice_ = new QLabel;
    modelNotice_->setObjectName("modelNotice");
    modelNotice_->setWordWrap(true);
    {
        QPalette palette = modelNotice_->palette();
        palette.setColor(QPalette::WindowText, theme::inkSoft());
        palette.setColor(QPalette::Window, theme::highlight());
        modelNotice_->setPalette(palette);
        modelNotice_->setAutoFillBackground(true);
        modelNotice_->setMargin(4);
    }
    modelNotice_->hide();
    form->addRow(modelNotice_);
    addNumber(form, tr("Layers"), "model.layers", 1, 100000, 0, {}, [](const Plan& p) { return p.model.layers; },
              [](Plan& p, double v) { p.model.layers = int(v); p.layout.stageLayers.clear(); });
    addNumber(form, tr("Hidden size"), "model.hidden_size", 1, 1000000, 0, {}, [](const Plan& p) { return p.model.hiddenSize; },
              [](Plan& p, double v) { p.model.hiddenSize = int(v); });
    addNumber(form, tr("FFN size"), "model.ffn_hidden_size", 1, 10000000, 0, {}, [](const Plan& p) { return p.model.ffnHiddenSize; },
              [](Plan& p, double v) { p.model.ffnHiddenSize = int(v); });
    addChoice<trainplan::FfnKind, 2>(form, tr("FFN kind"), "model.ffn_kind", trainplan::kFfnKindNames, [](const Plan& p) { return p.model.ffnKind; },
                                     [](Plan& p, trainplan::FfnKind k) { p.model.ffnKind = k; });
    addNumber(form, tr("Heads"), "model.attention_heads", 1, 100000, 0, {}, [](const Plan& p) { return p.model.attentionHeads; },
              [](Plan& p, double v) { p.model.attentionHeads = int(v); });
    addNumber(form, tr("KV heads"), "model.kv_heads", 1, 100000, 0, {}, [](const Plan& p) { return p.model.kvHeads; },
              [](Plan& p, double v) { p.model.kvHeads = int(v); });
    addNumber(form, tr("Head size"), "model.head_dim", 1, 100000, 0, {}, [](const Plan& p) { return p.model.headDim; },
              [](Plan& p, double v) { p.model.headDim = int(v); });
    addNumber(form, tr("Vocabulary"), "model.vocab_size", 1, 100000000, 0, {}, [](const Plan& p) { return p.model.vocabSize; },
              [](Plan& p, double v) { p.model.vocabSize = int(v); });
    addCheck(form, tr("Tied embeddings"), "model.tied_embeddings", [](const Plan& p) { return p.model.tiedEmbeddings; },
             [](Plan& p, bool on) { p.model.tiedEmbeddings = on; });
    addNumber(form, tr("Sequence"), "model.sequence_length", 1, 100000000, 0, tr(" tokens"), [](const Plan& p) { return p.model.sequenceLength; },
              [](Plan& p, double v) { p.model.sequenceLength = int(v); });
    return box;
}

QGroupBox* InputPanel::buildCluster()
{
    auto* box = new QGroupBox(tr("Cluster"));
    auto* form = newForm(box);
    registerField("cluster", box);
    acceleratorPreset_ = new ElidingComboBox;
    acceleratorPreset_->addItem(tr("Custom"));
    for (const auto& a : trainplan::acceleratorPresets())
        acceleratorPreset_->addItem(QString::fromStdString(a.name));
    connect(acceleratorPreset_, &QComboBox::activated, this, [this](int index) {
        const auto* a = trainplan::findAcceleratorPreset(acceleratorPreset_->itemText(index).toStdString());
        if (a)
            doc_->edit(tr("Use %1").arg(acceleratorPreset_->itemText(index)), [a](Plan& p) { trainplan::applyAccelerator(*a, p.cluster); });
    });
    refreshers_.push_back([this] {
        const QSignalBlocker b(acceleratorPreset_);
        // By the hardware figures, like the model's preset: "Custom" only when no preset has them.
        const auto* a = trainplan::acceleratorPresetOf(doc_->plan().cluster);
        const int i = a ? acceleratorPreset_->findText(QString::fromStdString(a->name)) : -1;
        acceleratorPreset_->setCurrentIndex(i < 0 ? 0 : i);
    });
    form->addRow(tr("Accelerator"), acceleratorPreset_);
    registerField("cluster.accelerator", acceleratorPreset_);
    addNumber(form, tr("GPUs"), "cluster.gpus", 1, 10000000, 0, {}, [](const Plan& p) { return p.cluster.gpus; },
              [this](Plan& p, double v) {
                  p.cluster.gpus = int(v);
                  // Keep the layout consistent by letting the follower absorb the new count.
                  using trainplan::ParallelDim;
                  const auto f = doc_->follower().gpuCount ? trainplan::Follower::of(ParallelDim::Dp) : doc_->follower();
                  // Re-set any dimension that does not follow to its own value: the follower absorbs the new count.
                  const auto d = f.dim == ParallelDim::Dp ? ParallelDim::Tp : ParallelDim::Dp;
                  p = trainplan::withLayoutValue(p, d, p.layout.size(d), f);
              });
    addNumber(form, tr("GPUs per node"), "cluster.gpus_per_node", 1, 4096, 0, {}, [](const Plan& p) { return p.cluster.gpusPerNode; },
              [](Plan& p, double v) { p.cluster.gpusPerNode = int(v); });
    addNumber(form, tr("Memory"), "cluster.memory_gb", 1, 100000, 1, tr(" GB"), [](const Plan& p) { return p.cluster.memoryBytesPerGpu / 1e9; },
              [](Plan& p, double v) { p.cluster.memoryBytesPerGpu = v * 1e9; });
    addNumber(form, tr("Peak BF16"), "cluster.peak_bf16_tflops", 1, 1000000, 0, tr(" TFLOP/s"), [](const Plan& p) { return p.cluster.peakFlopsPerGpu / 1e12; },
              [](Plan& p, double v) { p.cluster.peakFlopsPerGpu = v * 1e12; });
    // 0 shows "from the preset": the accelerator preset's FP8 peak (none on a part without FP8).
    addNumber(form, tr("Peak FP8"), "cluster.peak_fp8_tflops", 0, 1000000, 0, tr(" TFLOP/s"),
              [](const Plan& p) { return p.cluster.peakFp8FlopsPerGpu / 1e12; }, [](Plan& p, double v) { p.cluster.peakFp8FlopsPerGpu = v * 1e12; });
    if (auto* fp8 = qobject_cast<QSpinBox*>(fields_.value("cluster.peak_fp8_tflops"))) {
        fp8->setSpecialValueText(tr("from the preset"));
        fp8->setToolTip(tr("Dense FP8 peak per GPU, for FP8 matmuls; “from the preset” uses the accelerator preset's (none on a part without FP8)."));
    }
    addNumber(form, tr("NVLink"), "cluster.intra_node_bandwidth_gb_per_s", 0.1, 1000000, 1, tr(" GB/s"),
              [](const Plan& p) { return p.cluster.intraNodeBytesPerSecond / 1e9; }, [](Plan& p, double v) { p.cluster.intraNodeBytesPerSecond = v * 1e9; });
    addNumber(form, tr("Network"), "cluster.inter_node_bandwidth_gb_per_s", 0.1, 1000000, 1, tr(" GB/s"),
              [](const Plan& p) { return p.cluster.interNodeBytesPerSecond / 1e9; }, [](Plan& p, double v) { p.cluster.interNodeBytesPerSecond = v * 1e9; });
    // 0 means "not modelled", shown as such, and raises the no-failure-allowance red flag.
    addChoice<trainplan::InNetworkReduction, 3>(form, tr("Switch reduction"), "cluster.in_network_reduction", trainplan::kInNetworkReductionNames,
                                                [](const Plan& p) { return p.cluster.inNetworkReduction; },
                                                [](Plan& p, trainplan::InNetworkReduction r) { p.cluster.inNetworkReduction = r; });
    if (QWidget* reduction = fields_.value("cluster.in_network_reduction"))
        reduction->setToolTip(tr("All-reduces the switches reduce: NVLink SHARP (NVLS) inside an NVSwitch node, and InfiniBand SHARP across nodes."));
    addNumber(form, tr("Node MTBF"), "cluster.mtbf_hours_per_node", 0, 1e9, 0, tr(" h"),
              [](const Plan& p) { return p.cluster.mtbfSeconds ? *p.cluster.mtbfSeconds / 3600 / (p.cluster.mtbfBasis == trainplan::MtbfBasis::PerNode ? 1 : p.cluster.gpusPerNode) : 0.0; },
              [](Plan& p, double v) {
                  p.cluster.mtbfBasis = trainplan::MtbfBasis::PerNode;
                  if (v > 0)
                      p.cluster.mtbfSeconds = v * 3600;
                  else
                      p.cluster.mtbfSeconds.reset();
              });
    if (auto* mtbf = qobject_cast<QSpinBox*>(fields_.value("cluster.mtbf_hours_per_node")))
        mtbf->setSpecialValueText(tr("not modelled"));
    return box;
}

QGroupBox* InputPanel::buildReliability()
{
    auto* box = new QGroupBox(tr("Reliability"));
    auto* form = newForm(box);
    registerField("reliability", box);
    addNumber(form, tr("Checkpoint stall"), "reliability.checkpoint_write_seconds", 0.1, 1e6, 1, tr(" s"),
              [this](const Plan& p) { return doc_->estimate().reliability.checkpointWriteSeconds > 0 ? doc_->estimate().reliability.checkpointWriteSeconds : p.reliability.checkpointWriteSeconds.value_or(60); },
              [](Plan& p, double v) {
                  p.reliability.checkpointWriteSeconds = v;
                  p.reliability.checkpointWriteBytesPerSecondPerGpu.reset();
              });
    addNumber(form, tr("Restart"), "reliability.restart_seconds", 0, 1e7, 0, tr(" s"), [](const Plan& p) { return p.reliability.restartSeconds; },
              [](Plan& p, double v) { p.reliability.restartSeconds = v; });
    addNumber(form, tr("Other overhead"), "reliability.other_overhead_fraction", 0, 1000, 0, tr(" %"),
              [](const Plan& p) { return p.reliability.otherOverheadFraction * 100; }, [](Plan& p, double v) { p.reliability.otherOverheadFraction = v / 100; });
    return box;
}

QGroupBox* InputPanel::buildPlan()
{
    auto* box = new QGroupBox(tr("Plan"));
    auto* form = newForm(box);
    name_ = new QLineEdit;
    name_->setMaxLength(trainplan::kMaxNameChars);  // what the reader accepts, so a saved plan reopens
    name_->setObjectName("planName");
    name_->setToolTip(tr("The name the file, the window title, the PDF report and the slides use. Until you type one it follows "
                         "the model, GPU count and token budget; clear it to follow them again."));
    connect(name_, &QLineEdit::editingFinished, this, [this] {
        name_->setModified(false);
        doc_->setName(name_->text());
    });
    nameNote_ = new QLabel;
    nameNote_->setWordWrap(true);
    {
        QFont small = nameNote_->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        nameNote_->setFont(small);
        QPalette palette = nameNote_->palette();
        palette.setColor(QPalette::WindowText, theme::faint());
        nameNote_->setPalette(palette);
    }
    refreshers_.push_back([this] {
        const auto& plan = doc_->plan();
        // A name being typed stays until it is committed (Enter or leaving the field).
        if (!(name_->hasFocus() && name_->isModified()))
            name_->setText(QString::fromStdString(plan.name));
        name_->setPlaceholderText(QString::fromStdString(trainplan::generatedPlanName(plan)));
        nameNote_->setText(plan.nameUserSet ? tr("Typed; clear it to follow the model, GPUs and tokens again.")
                                            : tr("Follows the model, GPUs and tokens; type to name it."));
    });
    form->addRow(tr("Name"), name_);
    form->addRow(nameNote_);
    registerField("name", name_);
    return box;
}

QString InputPanel::modelNotice() const
{
    return modelNotice_->isHidden() ? QString() : modelNotice_->text();
}

void InputPanel::refresh()
{
    for (const auto& r : refreshers_)
        r();
}
