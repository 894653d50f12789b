#include "ui/inputs/InputPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "core/analysis/PlanUnknowns.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/estimate/PipelineModel.h"
#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/ShownUnits.h"
#include "core/planfile/PlanName.h"
#include "core/presets/Presets.h"
#include "core/rankmap/ExpertGrid.h"
#include "core/steptime/EfficiencyFields.h"
#include "core/steptime/StepTimeModel.h"
#include "core/search/LayoutAdjuster.h"
#include "core/text/LayerKindsText.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/inputs/ElidingComboBox.h"
#include "ui/inputs/FieldInputGuard.h"
#include "ui/inputs/StageLayersEdit.h"
#include "ui/inputs/ValueSlider.h"
#include "ui/widgets/CachedFrameGroupBox.h"

using trainplan::Plan;
using trainplan::PlanField;

namespace {

// The MFU slider offers whole per cents over the range assumed MFUs take in practice: below 5 %
// or above 80 % no large training run has reported (MFU 38-55 % in Megatron-LM, PaLM, Llama 3);
// the file accepts the table's wider range, and the slider shows such a plan's value as it is.
constexpr int kMfuSliderLowestPercent = 5;
constexpr int kMfuSliderHighestPercent = 80;

// Merge keys: edits with the same key merge into one undo step until the drag ends.
// Undo merge keys: a slider drag is one undo step. The layout's dimensions take kLayoutMergeKey + dim.
enum MergeKey { kMfu = 101, kMicroBatch, kGlobalBatch, kLayoutMergeKey = 200 };

QString latin1(std::string_view text)
{
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

QString prettyName(std::string_view name)
{
    static const QHash<QString, QString> pretty = {{"swiglu", "SwiGLU (3 matrices)"}, {"gelu", "GeLU (2 matrices)"}, {"rmsnorm", "RMSNorm"},
        {"layernorm", "LayerNorm"}, {"rope", "RoPE"}, {"learned", "Learned"}, {"bf16-fp32-master-adam", "BF16, FP32 master (16 B)"},
        {"bf16-adam-no-master", "BF16, no master (12 B)"}, {"fp32-adam", "FP32 (16 B)"}, {"gpipe", "GPipe"}, {"1f1b", "1F1B"},
        {"interleaved", "Interleaved 1F1B"}, {"zero-bubble", "Zero bubble (ZB-H1)"}, {"none", "None"}, {"selective", "Selective"},
        {"full", "Full"}, {"tp-cp-dp-pp", "TP-CP-DP-PP (Megatron)"}, {"nvls", "NVLS (NVLink SHARP)"}, {"bf16", "BF16"},
        {"fp8", "FP8 (per-tensor scales)"}, {"fp8-blockwise", "FP8 (block scales)"}, {"mxfp8", "MXFP8"},
        {"nvls-and-ib-sharp", "NVLS + InfiniBand SHARP"}, {"tp-cp-pp-dp", "TP-CP-PP-DP"}, {"tp-dp-cp-pp", "TP-DP-CP-PP"},
        {"2", "FlashAttention-2"}, {"3", "FlashAttention-3"}, {"alltoall", "All-to-all (NCCL)"}, {"allgather", "All-gather"},
        {"deepep", "DeepEP"}};
    const QString key = QString::fromUtf8(name.data(), int(name.size()));
    return pretty.value(key, key);
}

QString title(const PlanField& f)
{
    return QString::fromUtf8(f.title.data(), qsizetype(f.title.size()));
}

QString suffix(const PlanField& f)
{
    return QString::fromStdString(trainplan::shownUnit(f).suffix);
}

// Choosing a value for a field the plan left unknown makes it known, even the value assumed.
void markKnown(Plan& p, std::string_view path)
{
    if (const auto* u = trainplan::findLayoutUnknownField(path))
        p.layout.unknownFields &= ~unsigned(u->bit);
}

// A form's explanatory line: wrapped, smaller and faint, under the field it explains.
QLabel* newNoteLabel(QWidget* parent)
{
    auto* note = new QLabel(parent);
    note->setWordWrap(true);
    QFont small = note->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    note->setFont(small);
    QPalette palette = note->palette();
    palette.setColor(QPalette::WindowText, theme::faint());
    note->setPalette(palette);
    return note;
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
    layout->addWidget(buildExperts());
    layout->addWidget(buildCluster());
    layout->addWidget(buildEfficiencies());
    layout->addWidget(buildReliability());
    layout->addWidget(buildCost());
    layout->addStretch(1);
    (new FieldInputGuard(this))->guardChildrenOf(this);
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

QString InputPanel::shownTitle(const QString& path) const
{
    QWidget* w = fields_.value(path);
    if (!w)
        return {};
    if (auto* check = qobject_cast<QCheckBox*>(w))
        return check->text();
    if (auto* slider = qobject_cast<ValueSlider*>(w))
        return slider->title();
    // The form row's label, of the widget or of the row's widget that holds it.
    for (QWidget* field = w; field->parentWidget(); field = field->parentWidget())
        if (auto* form = qobject_cast<QFormLayout*>(field->parentWidget()->layout()))
            if (auto* label = qobject_cast<QLabel*>(form->labelForField(field)))
                return label->text();
    return {};
}

void InputPanel::showField(std::string_view path, QWidget* widget)
{
    const QString key = QString::fromUtf8(path.data(), qsizetype(path.size()));
    shownFields_ << key;
    registerField(key, widget);
}

void InputPanel::addNumber(QFormLayout* form, std::string_view path, int decimals, Getter get, Setter set, const QString& belowMinimum)
{
    // Looked up before anything is made: a field the table lacks throws with nothing half-built.
    const PlanField& f = trainplan::planField(path);
    const QString label = title(f);
    // The table's bounds in the shown unit, rounded inward to what the box can show (a 0.01 GB/s
    // minimum is 0.1 in a box of one decimal); 0 below them when it means "not given".
    const double scale = std::pow(10.0, decimals);
    const double lowest = std::ceil(trainplan::shownValue(f, f.min * f.toSi) * scale - 1e-9) / scale;
    const double highest = std::floor(trainplan::shownValue(f, f.max * f.toSi) * scale + 1e-9) / scale;
    const double min = belowMinimum.isEmpty() ? lowest : 0.0;
    const std::string key(path);
    const auto toSi = [&f](double shown) { return trainplan::siFromShown(f, shown); };
    const auto shown = [&f](double si) { return trainplan::shownValue(f, si); };
    QAbstractSpinBox* box;
    if (decimals == 0) {
        auto* spin = new QSpinBox;
        spin->setRange(int(min), int(highest));
        connect(spin, &QSpinBox::valueChanged, this, [this, label, set, key, toSi](int v) {
            doc_->edit(QString("Set %1").arg(label), [&](Plan& p) {
                set(p, toSi(v));
                markKnown(p, key);
            });
        });
        refreshers_.push_back([this, spin, get, shown] {
            const int value = int(std::lround(shown(get(doc_->plan()))));
            if (spin->value() == value)
                return;  // setValue would set the same text again, with its events
            const QSignalBlocker b(spin);
            spin->setValue(value);
        });
        spin->setSpecialValueText(belowMinimum);
        box = spin;
    } else {
        auto* spin = new QDoubleSpinBox;
        spin->setRange(min, highest);
        spin->setDecimals(decimals);
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, label, set, key, toSi](double v) {
            doc_->edit(QString("Set %1").arg(label), [&](Plan& p) {
                set(p, toSi(v));
                markKnown(p, key);
            });
        });
        refreshers_.push_back([this, spin, get, shown, scale] {
            const double value = shown(get(doc_->plan()));
            if (spin->value() == std::round(value * scale) / scale)
                return;  // what the box shows already (it keeps `decimals` places)
            const QSignalBlocker b(spin);
            spin->setValue(value);
        });
        spin->setSpecialValueText(belowMinimum);
        box = spin;
    }
    if (auto* spin = qobject_cast<QSpinBox*>(box)) {
        spin->setSuffix(suffix(f));
        spin->setKeyboardTracking(false);
        spin->setGroupSeparatorShown(true);
    } else if (auto* spin = qobject_cast<QDoubleSpinBox*>(box)) {
        spin->setSuffix(suffix(f));
        spin->setKeyboardTracking(false);
        spin->setGroupSeparatorShown(true);
    }
    box->setAccelerated(true);
    form->addRow(label, box);
    showField(path, box);
}

void InputPanel::addCheck(
    QFormLayout* form, std::string_view path, std::function<bool(const Plan&)> get, std::function<void(Plan&, bool)> set)
{
    const QString label = title(trainplan::planField(path));
    const std::string key(path);
    auto* check = new QCheckBox(label);
    connect(check, &QCheckBox::toggled, this, [this, label, set, key](bool on) {
        doc_->edit(QString("%1 %2").arg(on ? "Enable" : "Disable", label), [&](Plan& p) {
            set(p, on);
            markKnown(p, key);
        });
    });
    refreshers_.push_back([this, check, get] {
        const QSignalBlocker b(check);
        check->setChecked(get(doc_->plan()));
    });
    form->addRow(QString(), check);
    showField(path, check);
}

template <typename E, size_t N>
void InputPanel::addChoice(QFormLayout* form, std::string_view path, const std::array<std::pair<E, std::string_view>, N>& names,
    std::function<E(const Plan&)> get, std::function<void(Plan&, E)> set)
{
    const QString label = title(trainplan::planField(path));
    const std::string key(path);
    auto* combo = new ElidingComboBox;
    // Long entries must not dictate the panel's width: show about 16 characters.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    for (const auto& [value, name] : names)
        combo->addItem(prettyName(name), int(value));
    connect(combo, &QComboBox::activated, this, [this, combo, label, set, key](int index) {
        const E v = E(combo->itemData(index).toInt());
        doc_->edit(QString("Set %1").arg(label), [&](Plan& p) {
            set(p, v);
            markKnown(p, key);
        });
    });
    refreshers_.push_back([this, combo, get] {
        const QSignalBlocker b(combo);
        combo->setCurrentIndex(combo->findData(int(get(doc_->plan()))));
    });
    form->addRow(label, combo);
    showField(path, combo);
}

template <typename E, size_t N>
void InputPanel::addOptionalChoice(QFormLayout* form, std::string_view path, const std::array<std::pair<E, std::string_view>, N>& names,
    std::function<std::optional<E>(const Plan&)> get, std::function<void(Plan&, std::optional<E>)> set,
    std::function<QString(const Plan&)> unsetText)
{
    const QString label = title(trainplan::planField(path));
    auto* combo = new ElidingComboBox;
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    combo->addItem(QString(), -1);  // unset: its text follows the plan
    for (const auto& [value, name] : names)
        combo->addItem(prettyName(name), int(value));
    connect(combo, &QComboBox::activated, this, [this, combo, label, set](int index) {
        const int data = combo->itemData(index).toInt();
        const std::optional<E> v = data < 0 ? std::nullopt : std::optional<E>(E(data));
        doc_->edit(QString("Set %1").arg(label), [&](Plan& p) { set(p, v); });
    });
    refreshers_.push_back([this, combo, get, unsetText] {
        const QSignalBlocker b(combo);
        const Plan& plan = doc_->plan();
        combo->setItemText(0, unsetText(plan));
        const std::optional<E> v = get(plan);
        combo->setCurrentIndex(combo->findData(v ? int(*v) : -1));
    });
    form->addRow(label, combo);
    showField(path, combo);
}

void InputPanel::addIntegerChoice(QFormLayout* form, std::string_view path, std::function<QString(int)> describe,
    std::function<int(const Plan&)> get, std::function<void(Plan&, int)> set)
{
    const PlanField& f = trainplan::planField(path);
    const QString label = title(f);
    auto* combo = new ElidingComboBox;
    for (int v = int(f.min); v <= int(f.max); ++v)
        combo->addItem(describe(v), v);
    connect(combo, &QComboBox::activated, this, [this, combo, label, set](int index) {
        const int v = combo->itemData(index).toInt();
        doc_->edit(QString("Set %1").arg(label), [&](Plan& p) { set(p, v); });
    });
    refreshers_.push_back([this, combo, get] {
        const QSignalBlocker b(combo);
        combo->setCurrentIndex(combo->findData(get(doc_->plan())));
    });
    form->addRow(label, combo);
    showField(path, combo);
}

ValueSlider* InputPanel::addSlider(
    QFormLayout* form, std::string_view path, std::function<void(int)> onValue, std::function<void()> refresh)
{
    const PlanField& f = trainplan::planField(path);
    auto* slider = new ValueSlider(title(f));
    slider->setSuffix(suffix(f));
    connect(slider, &ValueSlider::valueEdited, this, [onValue](int v) { onValue(v); });
    connect(slider, &ValueSlider::dragFinished, doc_, &PlanDocument::endMerge);
    refreshers_.push_back(std::move(refresh));
    form->addRow(slider);
    showField(path, slider);
    return slider;
}

QGroupBox* InputPanel::buildLayout()
{
    auto* box = new CachedFrameGroupBox(tr("Parallel layout"), this);
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
    follower->setToolTip(
        tr("When you move one dimension, this one changes so that %1 stays equal to the GPU count.").arg(product.join(" × ")));
    connect(follower, &QComboBox::activated, this,
            [this, follower](int i) { doc_->setFollower(trainplan::followerFromKey(follower->itemData(i).toString().toStdString())); });
    refreshers_.push_back([this, follower] {
        const QSignalBlocker b(follower);
        follower->setCurrentIndex(follower->findData(latin1(trainplan::followerKey(doc_->follower()))));
    });
    form->addRow(tr("Keep GPUs"), follower);

    for (trainplan::ParallelDim dim : trainplan::parallelDimsForDisplay()) {
        const auto& info = trainplan::parallelDimInfo(dim);
        // One undo step per drag of one slider: each dimension merges under its own key.
        const int key = kLayoutMergeKey + int(dim);
        ValueSlider* s = addSlider(
            form, "layout." + std::string(info.key), [this, dim, key](int v) { doc_->setLayoutDimension(dim, v, key); },
            [this, dim] {
                ValueSlider* s = layoutSliders_[size_t(dim)];
                const auto& plan = doc_->plan();
                s->setCandidates(trainplan::candidateValues(plan, dim, doc_->follower()), plan.layout.size(dim));
                s->setFollowing(trainplan::follows(doc_->follower(), dim),
                    tr("Follows the other dimensions to keep the GPU count; choose another under “Keep GPUs”."));
            });
        s->slider()->setToolTip(tr(info.summary.data()));
        layoutSliders_[size_t(dim)] = s;
        if (dim == trainplan::ParallelDim::Pp) {
            // Beside PP: how its stages share the layers (layout.stage_layers).
            const PlanField& split = trainplan::planField("layout.stage_layers");
            stageLayers_ = new StageLayersEdit;
            connect(stageLayers_, &StageLayersEdit::splitEdited, this, [this](const std::vector<int>& counts) {
                doc_->edit(counts.empty() ? tr("Split the layers evenly") : tr("Set layers per stage"),
                           [&counts](Plan& p) { p.layout.stageLayers = counts; });
            });
            refreshers_.push_back([this] { stageLayers_->showPlan(doc_->plan()); });
            form->addRow(title(split), stageLayers_);
            showField(split.path, stageLayers_->lineEdit());
        }
    }
    // Expert parallelism and expert TP (MoE models only): the values that divide the experts and
    // the stage's ranks as the other sliders stand (ExpertGrid.h).
    const auto expertSlider = [this, form](std::string_view path, int trainplan::LayoutSpec::*field, int mergeKey,
                                           std::vector<int> (*candidates)(const Plan&), const QString& tip) {
        const QString label = title(trainplan::planField(path));
        ValueSlider* s = nullptr;
        s = addSlider(
            form, path,
            [this, field, mergeKey, label](int v) {
                doc_->edit(tr("Set %1").arg(label), [field, v](Plan& p) { p.layout.*field = v; }, mergeKey);
            },
            [this, form, field, candidates, path] {
                ValueSlider* slider = qobject_cast<ValueSlider*>(widgetForField(QString::fromUtf8(path.data(), int(path.size()))));
                const Plan& plan = doc_->plan();
                slider->setCandidates(candidates(plan), plan.layout.*field);
                form->setRowVisible(slider, plan.model.moe.has_value());
            });
        s->slider()->setToolTip(tip);
    };
    expertSlider("layout.ep", &trainplan::LayoutSpec::ep, kLayoutMergeKey + 16, &trainplan::expertParallelCandidates,
        tr("Expert parallelism: spreads each MoE layer's routed experts over this many ranks, carved out of TP × CP × DP; "
           "tokens reach them by an all-to-all. Keep it inside a node where memory allows."));
    expertSlider("layout.etp", &trainplan::LayoutSpec::etp, kLayoutMergeKey + 17, &trainplan::expertTensorParallelCandidates,
        tr("Expert tensor parallelism: splits each routed expert's matrices over this many ranks."));
    addChoice<trainplan::Schedule, trainplan::kScheduleNames.size()>(
        form, "layout.schedule", trainplan::kScheduleNames, [](const Plan& p) { return p.layout.schedule; },
        [](Plan& p, trainplan::Schedule s) {
            p.layout.schedule = s;
            if (s == trainplan::Schedule::Interleaved && p.layout.virtualStages < 2)
                p.layout.virtualStages = 2;
        });
    addNumber(
        form, "layout.virtual_stages", 0, [](const Plan& p) { return p.layout.virtualStages; },
        [](Plan& p, double v) { p.layout.virtualStages = int(v); });
    addIntegerChoice(
        form, "layout.zero_stage",
        [this](int z) {
            const QString what[] = {tr("replicate"), tr("optimizer"), tr("+ gradients"), tr("+ weights (FSDP)")};
            return z >= 0 && z < int(std::size(what)) ? QString("%1: %2").arg(z).arg(what[z]) : QString::number(z);
        },
        [](const Plan& p) { return p.layout.zeroStage; }, [](Plan& p, int z) { p.layout.zeroStage = z; });
    // Recompute shows what the analysis settled on when the plan leaves it unknown (the lightest
    // setting that fits), not the field's default.
    addChoice<trainplan::Recompute, 3>(
        form, "layout.recompute", trainplan::kRecomputeNames, [this](const Plan&) { return doc_->analysis().plan.layout.recompute; },
        [](Plan& p, trainplan::Recompute r) { p.layout.recompute = r; });
    addNumber(
        form, "layout.recompute_layers", 0, [this](const Plan&) { return doc_->analysis().plan.layout.recomputeLayers; },
        [](Plan& p, double v) {
            p.layout.recomputeLayers = int(v);
            if (v > 0)
                p.layout.recompute = trainplan::Recompute::Full;
        },
        tr("all"));
    fields_.value("layout.recompute_layers")
        ->setToolTip(tr("With full recompute, how many layers of each pipeline stage are recomputed (Megatron's block method); “all” "
                        "recomputes every layer."));
    addCheck(
        form, "layout.sequence_parallel", [](const Plan& p) { return p.layout.sequenceParallel; },
        [](Plan& p, bool on) { p.layout.sequenceParallel = on; });
    // Fields the plan leaves unknown (the table of layout unknowns) say so: "(assumed)" beside
    // them, and a tooltip with what the analysis assumed and that the predicted range covers the
    // other values.
    for (const trainplan::LayoutUnknownField& u : trainplan::layoutUnknownFields()) {
        for (std::string_view path : {u.path, u.companion}) {
            QWidget* field = path.empty() ? nullptr : fields_.value(QString::fromUtf8(path.data(), qsizetype(path.size())));
            if (!field)
                continue;
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
    }
    addChoice<trainplan::RankOrder, 3>(
        form, "layout.rank_order", trainplan::kRankOrderNames, [](const Plan& p) { return p.layout.rankOrder; },
        [](Plan& p, trainplan::RankOrder o) { p.layout.rankOrder = o; });
    return box;
}

QGroupBox* InputPanel::buildTraining()
{
    auto* box = new CachedFrameGroupBox(tr("Training"), this);
    auto* form = newForm(box);
    registerField("training", box);
    addNumber(
        form, "training.tokens", 1, [](const Plan& p) { return p.training.tokens; }, [](Plan& p, double v) { p.training.tokens = v; });

    const PlanField& batchField = trainplan::planField("training.global_batch_sequences");
    globalBatch_ = addSlider(
        form, batchField.path,
        [this](int v) {
            doc_->edit(
                tr("Set global batch"), [v](Plan& p) { p.training.globalBatchSequences = v; }, kGlobalBatch);
        },
        [this, &batchField] {
            const auto& p = doc_->plan();
            std::vector<int> values;
            for (long long v : trainplan::globalBatchCandidates(p))
                if (v <= batchField.max)
                    values.push_back(int(v));
            globalBatch_->setCandidates(values, int(p.training.globalBatchSequences));
        });
    globalBatch_->setToolTip(tr("Global batch in sequences (multiples of DP × micro-batch)."));
    microBatch_ = addSlider(
        form, "training.micro_batch_size",
        [this](int v) {
            doc_->edit(
                tr("Set micro-batch"), [v](Plan& p) { p.training.microBatchSize = v; }, kMicroBatch);
        },
        [this] {
            const auto& p = doc_->plan();
            microBatch_->setCandidates(trainplan::microBatchCandidates(p), p.training.microBatchSize);
        });
    microBatch_->setToolTip(tr("Micro-batch size b in sequences (divisors of B / DP)."));
    // Whole per cents within the table's range, narrowed to the practical one (kMfuSlider*).
    const PlanField& mfuField = trainplan::planField("training.mfu");
    const int mfuLowest = std::max(kMfuSliderLowestPercent, int(std::ceil(trainplan::shownValue(mfuField, mfuField.min))));
    const int mfuHighest = std::min(kMfuSliderHighestPercent, int(std::floor(trainplan::shownValue(mfuField, mfuField.max))));
    mfu_ = addSlider(
        form, mfuField.path,
        [this, &mfuField](int v) {
            doc_->edit(
                tr("Set MFU to %1 %").arg(v), [&](Plan& p) { p.training.mfu = trainplan::siFromShown(mfuField, v); }, kMfu);
        },
        [this, &mfuField, mfuLowest, mfuHighest] {
            std::vector<int> values;
            for (int v = mfuLowest; v <= mfuHighest; ++v)
                values.push_back(v);
            mfu_->setCandidates(values, int(std::lround(trainplan::shownValue(mfuField, doc_->plan().training.mfu))));
        });
    mfu_->setToolTip(tr("Assumed model FLOPs utilisation: useful FLOP/s over peak."));
    // Time and cost from the assumed MFU or from the predicted step time.
    auto* basis = new ElidingComboBox;
    basis->addItem(tr("Assumed MFU"), int(PlanDocument::TimeBasis::AssumedMfu));
    basis->addItem(tr("Predicted step time"), int(PlanDocument::TimeBasis::Predicted));
    basis->setToolTip(
        tr("Whether days, GPU-hours and step time use the MFU above or the step-time model's prediction; the other is shown beside it."));
    connect(basis, &QComboBox::activated, this,
            [this, basis](int i) { doc_->setTimeBasis(PlanDocument::TimeBasis(basis->itemData(i).toInt())); });
    refreshers_.push_back([this, basis] {
        const QSignalBlocker b(basis);
        basis->setCurrentIndex(basis->findData(int(doc_->timeBasis())));
    });
    form->addRow(tr("Time from"), basis);
    registerField("time_basis", basis);
    addChoice<trainplan::MatmulPrecision, 5>(
        form, "training.matmul_precision", trainplan::kMatmulPrecisionNames, [](const Plan& p) { return p.training.matmulPrecision; },
        [](Plan& p, trainplan::MatmulPrecision m) { p.training.matmulPrecision = m; });
    if (QWidget* matmuls = fields_.value("training.matmul_precision"))
        matmuls->setToolTip(tr("Precision of the layers' matrix multiplies: FP8 runs them at the accelerator's FP8 peak (attention and the "
                               "output layer stay BF16); MFU is still counted against the BF16 peak."));
    addChoice<trainplan::PrecisionScheme, 3>(
        form, "training.precision", trainplan::kPrecisionNames, [](const Plan& p) { return p.training.precision; },
        [](Plan& p, trainplan::PrecisionScheme s) { p.training.precision = s; });
    addNumber(
        form, "training.buffer_gb", 1, [](const Plan& p) { return p.training.bufferBytes; },
        [](Plan& p, double v) { p.training.bufferBytes = v; });
    addNumber(
        form, "training.fragmentation_fraction", 0, [](const Plan& p) { return p.training.fragmentationFraction; },
        [](Plan& p, double v) { p.training.fragmentationFraction = v; });
    return box;
}

// The training stack (the plan's framework section): a named profile and the FlashAttention
// kernel; the switches neither the plan nor the profile sets are listed, since they widen the
// predicted range.
QGroupBox* InputPanel::buildFramework()
{
    const PlanField& profileField = trainplan::planField("framework.profile");
    auto* box = new CachedFrameGroupBox(tr("Framework"), this);
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
    form->addRow(title(profileField), profile);
    showField(profileField.path, profile);
    addOptionalChoice<trainplan::FlashAttentionVersion, 3>(
        form, "framework.flash_attention", trainplan::kFlashAttentionVersionNames, [](const Plan& p) { return p.framework.flashAttention; },
        [](Plan& p, std::optional<trainplan::FlashAttentionVersion> v) { p.framework.flashAttention = v; },
        [](const Plan& p) {
            const trainplan::FrameworkSpec* stack = trainplan::findFrameworkProfile(p.framework.profile);
            if (stack && stack->flashAttention)
                return tr("From the profile: %1")
                    .arg(prettyName(trainplan::nameOf(trainplan::kFlashAttentionVersionNames, *stack->flashAttention)));
            return tr("Not given (range covers it)");
        });
    fields_.value("framework.flash_attention")
        ->setToolTip(tr("The attention kernel: FlashAttention-2 or -3, or none (unfused attention, which stores the s × s scores)."));
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
    auto* box = new CachedFrameGroupBox(tr("Model"), this);
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
    addNumber(
        form, "model.layers", 0, [](const Plan& p) { return p.model.layers; },
        [](Plan& p, double v) {
            // With layer kinds the last run takes the change (it keeps at least one layer), so the
            // runs still add up to the model's depth.
            auto& kinds = p.model.layerKinds;
            if (!kinds.empty()) {
                const int others = p.model.layers - kinds.back().layers;
                kinds.back().layers = std::max(1, int(v) - others);
                v = others + kinds.back().layers;
            }
            p.model.layers = int(v);
            p.layout.stageLayers.clear();
        });
    addNumber(
        form, "model.hidden_size", 0, [](const Plan& p) { return p.model.hiddenSize; },
        [](Plan& p, double v) { p.model.hiddenSize = int(v); });
    addNumber(
        form, "model.ffn_hidden_size", 0, [](const Plan& p) { return p.model.ffnHiddenSize; },
        [](Plan& p, double v) { p.model.ffnHiddenSize = int(v); });
    addChoice<trainplan::FfnKind, 2>(
        form, "model.ffn_kind", trainplan::kFfnKindNames, [](const Plan& p) { return p.model.ffnKind; },
        [](Plan& p, trainplan::FfnKind k) { p.model.ffnKind = k; });
    // Layers of several kinds (model.layer_kinds): each kind has its own feed-forward, so the two
    // fields above would edit nothing the analysis reads; they are disabled and the kinds listed.
    {
        const PlanField& kindsField = trainplan::planField("model.layer_kinds");
        layerKinds_ = new QLabel;
        layerKinds_->setObjectName("layerKinds");
        layerKinds_->setWordWrap(true);
        layerKinds_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        form->addRow(title(kindsField), layerKinds_);
        showField(kindsField.path, layerKinds_);
        refreshers_.push_back([this] {
            const auto& m = doc_->plan().model;
            const bool kinds = !m.layerKinds.empty();
            layerKinds_->setText(kinds ? QString::fromStdString(trainplan::layerKindsText(m)) : tr("one kind: every layer as above"));
            layerKinds_->setToolTip(tr("Runs of layers with their own feed-forward, set in the plan file (model.layer_kinds)."));
            for (const char* path : {"model.ffn_hidden_size", "model.ffn_kind"}) {
                if (QWidget* w = widgetForField(QString::fromLatin1(path))) {
                    w->setEnabled(!kinds);
                    w->setToolTip(kinds ? tr("Each layer kind has its own; see Layer kinds below.") : QString());
                }
            }
        });
    }
    addNumber(
        form, "model.attention_heads", 0, [](const Plan& p) { return p.model.attentionHeads; },
        [](Plan& p, double v) { p.model.attentionHeads = int(v); });
    addNumber(
        form, "model.kv_heads", 0, [](const Plan& p) { return p.model.kvHeads; }, [](Plan& p, double v) { p.model.kvHeads = int(v); });
    addNumber(
        form, "model.head_dim", 0, [](const Plan& p) { return p.model.headDim; }, [](Plan& p, double v) { p.model.headDim = int(v); });
    addNumber(
        form, "model.vocab_size", 0, [](const Plan& p) { return p.model.vocabSize; },
        [](Plan& p, double v) { p.model.vocabSize = int(v); });
    addCheck(
        form, "model.tied_embeddings", [](const Plan& p) { return p.model.tiedEmbeddings; },
        [](Plan& p, bool on) { p.model.tiedEmbeddings = on; });
    addNumber(
        form, "model.sequence_length", 0, [](const Plan& p) { return p.model.sequenceLength; },
        [](Plan& p, double v) { p.model.sequenceLength = int(v); });
    return box;
}

// Mixture of experts, multi-head latent attention and multi-token prediction (issue 24): each
// section switched on by its check box, its fields enabled while it is on.
QGroupBox* InputPanel::buildExperts()
{
    auto* box = new CachedFrameGroupBox(tr("Experts and attention"), this);
    auto* form = newForm(box);
    registerField("model.moe", box);
    const auto moeOnly = [](auto get) { return [get](const Plan& p) { return p.model.moe ? double(get(*p.model.moe)) : 0.0; }; };
    auto* moeOn = new QCheckBox(tr("Mixture of experts"));
    moeOn->setObjectName("moeOn");
    moeOn->setToolTip(tr("Routed experts in the feed-forward (model.moe): each token goes to the top-k of them."));
    connect(moeOn, &QCheckBox::toggled, this, [this](bool on) {
        doc_->edit(on ? tr("Give the model experts") : tr("Make the model dense"), [on](Plan& p) {
            if (on && !p.model.moe) {
                // Mixtral's routing as a start: 8 experts of the dense width, 2 per token.
                trainplan::MoeSpec moe;
                moe.experts = 8;
                moe.topK = 2;
                moe.expertFfnHiddenSize = p.model.ffnHiddenSize;
                p.model.moe = moe;
            } else if (!on) {
                p.model.moe.reset();
                p.layout.ep = p.layout.etp = 1;
                for (auto& kind : p.model.layerKinds)
                    kind.moe = false;
            }
        });
    });
    form->addRow(QString(), moeOn);
    QStringList moeFields;
    const auto moeNumber = [&](std::string_view path, int decimals, Getter get, std::function<void(trainplan::MoeSpec&, double)> set,
                               const QString& below = {}) {
        addNumber(
            form, path, decimals, get,
            [set](Plan& p, double v) {
                if (p.model.moe)
                    set(*p.model.moe, v);
            },
            below);
        moeFields << QString::fromUtf8(path.data(), int(path.size()));
    };
    moeNumber("model.moe.experts", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.experts; }),
        [](trainplan::MoeSpec& e, double v) { e.experts = int(v); e.topK = std::min(e.topK, e.experts); });
    moeNumber("model.moe.top_k", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.topK; }),
        [](trainplan::MoeSpec& e, double v) { e.topK = std::min(int(v), e.experts); });
    moeNumber("model.moe.expert_ffn_hidden_size", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.expertFfnHiddenSize; }),
        [](trainplan::MoeSpec& e, double v) { e.expertFfnHiddenSize = int(v); });
    moeNumber("model.moe.shared_experts", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.sharedExperts; }),
        [](trainplan::MoeSpec& e, double v) { e.sharedExperts = int(v); });
    moeNumber("model.moe.shared_expert_ffn_hidden_size", 0,
        moeOnly([](const trainplan::MoeSpec& e) { return e.sharedExpertFfnHiddenSize; }),
        [](trainplan::MoeSpec& e, double v) { e.sharedExpertFfnHiddenSize = int(v); }, tr("= expert width"));
    addNumber(
        form, "model.moe.dense_layers", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.denseLayers; }),
        [](Plan& p, double v) {
            if (p.model.moe)
                p.model.moe->denseLayers = std::max(0, std::min(int(v), p.model.layers - p.model.moe->step()));
            p.layout.stageLayers.clear();
        });
    moeFields << "model.moe.dense_layers";
    addNumber(
        form, "model.moe.layer_step", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.step(); }),
        [](Plan& p, double v) {
            // At least one MoE layer must follow the dense ones (the reader's rule).
            if (p.model.moe)
                p.model.moe->layerStep = std::clamp(int(v), 1, std::max(1, p.model.layers - p.model.moe->denseLayers));
            p.layout.stageLayers.clear();
        });
    moeFields << "model.moe.layer_step";
    moeNumber("model.moe.load_imbalance", 2,
        [](const Plan& p) { return p.model.moe && p.model.moe->loadImbalance ? *p.model.moe->loadImbalance : 0.0; },
        [](trainplan::MoeSpec& e, double v) {
            if (v < 1.0)
                e.loadImbalance.reset();
            else
                e.loadImbalance = v;
        },
        tr("unknown"));
    moeNumber("model.moe.capacity_factor", 2,
        [](const Plan& p) { return p.model.moe && p.model.moe->capacityFactor ? *p.model.moe->capacityFactor : 0.0; },
        [](trainplan::MoeSpec& e, double v) {
            if (v < 1.0)
                e.capacityFactor.reset();
            else
                e.capacityFactor = v;
        },
        tr("dropless"));
    moeNumber("model.moe.max_nodes_per_token", 0, moeOnly([](const trainplan::MoeSpec& e) { return e.maxNodesPerToken; }),
        [](trainplan::MoeSpec& e, double v) { e.maxNodesPerToken = int(v); }, tr("no limit"));
    addCheck(
        form, "model.moe.router_bias", [](const Plan& p) { return p.model.moe && p.model.moe->routerBias; },
        [](Plan& p, bool on) {
            if (p.model.moe)
                p.model.moe->routerBias = on;
        });
    moeFields << "model.moe.router_bias";
    addOptionalChoice<trainplan::MoeDispatcher, 3>(
        form, "framework.moe_dispatcher", trainplan::kMoeDispatcherNames, [](const Plan& p) { return p.framework.moeDispatcher; },
        [](Plan& p, std::optional<trainplan::MoeDispatcher> v) { p.framework.moeDispatcher = v; },
        [](const Plan& p) {
            const trainplan::FrameworkSpec* stack = trainplan::findFrameworkProfile(p.framework.profile);
            if (stack && stack->moeDispatcher)
                return tr("From the profile: %1").arg(prettyName(trainplan::nameOf(trainplan::kMoeDispatcherNames, *stack->moeDispatcher)));
            return tr("Not given (range covers it)");
        });
    moeFields << "framework.moe_dispatcher";

    auto* mlaOn = new QCheckBox(tr("Multi-head latent attention"));
    mlaOn->setObjectName("mlaOn");
    mlaOn->setToolTip(tr("Queries, keys and values through low-rank latents (model.mla), as DeepSeek-V2 and V3."));
    connect(mlaOn, &QCheckBox::toggled, this, [this](bool on) {
        doc_->edit(on ? tr("Use latent attention") : tr("Use grouped-query attention"), [on](Plan& p) {
            if (on && !p.model.mla)
                p.model.mla = trainplan::MlaSpec{1536, 512, 128, 64, 128};  // DeepSeek-V3's ranks and head sizes
            else if (!on)
                p.model.mla.reset();
        });
    });
    form->addRow(QString(), mlaOn);
    QStringList mlaFields;
    const auto mlaNumber = [&](std::string_view path, int trainplan::MlaSpec::*field) {
        addNumber(
            form, path, 0, [field](const Plan& p) { return p.model.mla ? double((*p.model.mla).*field) : 0.0; },
            [field](Plan& p, double v) {
                if (p.model.mla)
                    (*p.model.mla).*field = int(v);
            });
        mlaFields << QString::fromUtf8(path.data(), int(path.size()));
    };
    mlaNumber("model.mla.q_lora_rank", &trainplan::MlaSpec::qLoraRank);
    mlaNumber("model.mla.kv_lora_rank", &trainplan::MlaSpec::kvLoraRank);
    mlaNumber("model.mla.qk_nope_head_dim", &trainplan::MlaSpec::qkNopeHeadDim);
    mlaNumber("model.mla.qk_rope_head_dim", &trainplan::MlaSpec::qkRopeHeadDim);
    mlaNumber("model.mla.v_head_dim", &trainplan::MlaSpec::vHeadDim);
    addNumber(
        form, "model.mtp_layers", 0, [](const Plan& p) { return p.model.mtpLayers; }, [](Plan& p, double v) { p.model.mtpLayers = int(v); });

    refreshers_.push_back([this, moeOn, mlaOn, moeFields, mlaFields] {
        const Plan& p = doc_->plan();
        const QSignalBlocker b1(moeOn), b2(mlaOn);
        moeOn->setChecked(p.model.moe.has_value());
        mlaOn->setChecked(p.model.mla.has_value());
        for (const QString& path : moeFields)
            if (QWidget* w = widgetForField(path))
                w->setEnabled(p.model.moe.has_value());
        for (const QString& path : mlaFields)
            if (QWidget* w = widgetForField(path))
                w->setEnabled(p.model.mla.has_value());
    });
    return box;
}

QGroupBox* InputPanel::buildCluster()
{
    const PlanField& acceleratorField = trainplan::planField("cluster.accelerator");
    auto* box = new CachedFrameGroupBox(tr("Cluster"), this);
    auto* form = newForm(box);
    registerField("cluster", box);
    acceleratorPreset_ = new ElidingComboBox;
    acceleratorPreset_->addItem(tr("Custom"));
    for (const auto& a : trainplan::acceleratorPresets()) {
        acceleratorPreset_->addItem(QString::fromStdString(a.name));
        // Where the preset's figures come from, on hover (as `trainplan-cli presets` lists them).
        acceleratorPreset_->setItemData(acceleratorPreset_->count() - 1,
            QStringLiteral("<p><b>%1</b></p><p>%2</p><p>%3</p><p><i>Step-time figures:</i> %4</p>")
                .arg(QString::fromStdString(a.name).toHtmlEscaped(), QString::fromStdString(a.source).toHtmlEscaped(),
                    QString::fromStdString(a.notes).toHtmlEscaped(), QString::fromStdString(a.efficiencySource).toHtmlEscaped()),
            Qt::ToolTipRole);
    }
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
    form->addRow(title(acceleratorField), acceleratorPreset_);
    showField(acceleratorField.path, acceleratorPreset_);
    addNumber(
        form, "cluster.gpus", 0, [](const Plan& p) { return p.cluster.gpus; },
        [this](Plan& p, double v) {
            p.cluster.gpus = int(v);
            // Keep the layout consistent by letting the follower absorb the new count.
            using trainplan::ParallelDim;
            const auto f = doc_->follower().gpuCount ? trainplan::Follower::of(ParallelDim::Dp) : doc_->follower();
            // Re-set any dimension that does not follow to its own value: the follower absorbs the new count.
            const auto d = f.dim == ParallelDim::Dp ? ParallelDim::Tp : ParallelDim::Dp;
            p = trainplan::withLayoutValue(p, d, p.layout.size(d), f);
        });
    addNumber(
        form, "cluster.gpus_per_node", 0, [](const Plan& p) { return p.cluster.gpusPerNode; },
        [](Plan& p, double v) { p.cluster.gpusPerNode = int(v); });
    // 0 shows "one node": the domain is the node's GPUs (cluster.nvlink_domain absent).
    addNumber(
        form, "cluster.nvlink_domain", 0, [](const Plan& p) { return p.cluster.nvlinkDomain; },
        [](Plan& p, double v) { p.cluster.nvlinkDomain = int(v); }, tr("one node"));
    fields_.value("cluster.nvlink_domain")
        ->setToolTip(tr("GPUs that share the scale-up link: 72 for a GB200 or GB300 NVL72 rack (trays of 4 GPUs), 2 for an "
                        "NVLink-bridged H100 NVL pair. Collectives inside it run on NVLink; those that leave it, on the network."));
    addNumber(
        form, "cluster.memory_gb", 1, [](const Plan& p) { return p.cluster.memoryBytesPerGpu; },
        [](Plan& p, double v) { p.cluster.memoryBytesPerGpu = v; });
    // Preset names give memory in binary units ("80GB" is 79.2 GiB as CUDA reports it): say both.
    refreshers_.push_back([this] {
        if (QWidget* memory = fields_.value("cluster.memory_gb"))
            memory->setToolTip(tr("Memory per GPU as the runtime reports it: %1 GB = %2 GiB. Preset names give the vendor's "
                                  "nominal size, in GiB.")
                                   .arg(doc_->plan().cluster.memoryBytesPerGpu / trainplan::units::GB, 0, 'f', 2)
                                   .arg(doc_->plan().cluster.memoryBytesPerGpu / trainplan::units::GiB, 0, 'f', 1));
    });
    addNumber(
        form, "cluster.peak_bf16_tflops", 0, [](const Plan& p) { return p.cluster.peakFlopsPerGpu; },
        [](Plan& p, double v) { p.cluster.peakFlopsPerGpu = v; });
    // 0 shows "from the preset": the accelerator preset's FP8 peak (none on a part without FP8).
    addNumber(
        form, "cluster.peak_fp8_tflops", 0, [](const Plan& p) { return p.cluster.peakFp8FlopsPerGpu; },
        [](Plan& p, double v) { p.cluster.peakFp8FlopsPerGpu = v; }, tr("from the preset"));
    fields_.value("cluster.peak_fp8_tflops")
        ->setToolTip(
            tr("Dense FP8 peak per GPU, for FP8 matmuls; “from the preset” uses the accelerator preset's (none on a part without FP8)."));
    addNumber(
        form, "cluster.peak_fp4_tflops", 0, [](const Plan& p) { return p.cluster.peakFp4FlopsPerGpu; },
        [](Plan& p, double v) { p.cluster.peakFp4FlopsPerGpu = v; }, tr("from the preset"));
    fields_.value("cluster.peak_fp4_tflops")
        ->setToolTip(tr("Dense FP4 peak per GPU, for NVFP4 matmuls; “from the preset” uses the accelerator preset's (none on a part "
                        "without FP4)."));
    addNumber(
        form, "cluster.intra_node_bandwidth_gb_per_s", 1, [](const Plan& p) { return p.cluster.intraNodeBytesPerSecond; },
        [](Plan& p, double v) { p.cluster.intraNodeBytesPerSecond = v; });
    // The scale-up link's own name (NVLink on NVIDIA parts, Infinity Fabric on AMD's) in the
    // tooltip: in the label, "Scale-up link (NVLink 4)" widened the inputs panel and elided the
    // headline cards at 1280 px.
    refreshers_.push_back([this, form] {
        if (QWidget* link = fields_.value("cluster.intra_node_bandwidth_gb_per_s"))
            if (auto* label = qobject_cast<QLabel*>(form->labelForField(link))) {
                const auto* preset = trainplan::acceleratorPresetOf(doc_->plan().cluster);
                const QString title = ::title(trainplan::planField("cluster.intra_node_bandwidth_gb_per_s"));
                label->setText(title);
                label->setToolTip(preset ? tr("%1: the %2 between GPUs of one scale-up domain").arg(title, QString::fromStdString(preset->scaleUpLink))
                                         : title);
            }
    });
    addNumber(
        form, "cluster.inter_node_bandwidth_gb_per_s", 1, [](const Plan& p) { return p.cluster.interNodeBytesPerSecond; },
        [](Plan& p, double v) { p.cluster.interNodeBytesPerSecond = v; });
    addChoice<trainplan::InNetworkReduction, 3>(
        form, "cluster.in_network_reduction", trainplan::kInNetworkReductionNames,
        [](const Plan& p) { return p.cluster.inNetworkReduction; },
        [](Plan& p, trainplan::InNetworkReduction r) { p.cluster.inNetworkReduction = r; });
    if (QWidget* reduction = fields_.value("cluster.in_network_reduction"))
        reduction->setToolTip(
            tr("All-reduces the switches reduce: NVLink SHARP (NVLS) inside an NVSwitch node, and InfiniBand SHARP across nodes."));
    // 0 means "not modelled", shown as such, and raises the no-failure-allowance red flag. A plan
    // that gives MTBF per GPU shows it per node here (a node fails when any of its GPUs does).
    addNumber(
        form, "cluster.mtbf_hours_per_node", 0,
        [](const Plan& p) {
            return p.cluster.mtbfSeconds
                ? *p.cluster.mtbfSeconds / (p.cluster.mtbfBasis == trainplan::MtbfBasis::PerNode ? 1 : p.cluster.gpusPerNode)
                : 0.0;
        },
        [](Plan& p, double v) {
            p.cluster.mtbfBasis = trainplan::MtbfBasis::PerNode;
            if (v > 0)
                p.cluster.mtbfSeconds = v;
            else
                p.cluster.mtbfSeconds.reset();
        },
        tr("not modelled"));
    return box;
}

// The step time's hardware figures (cluster.efficiency): each box shows the figure the prediction
// uses, the preset's until the user types one of their own, which the plan then keeps; "Use the
// preset's" forgets them all. A part that is no preset borrows the nearest preset's figures, and
// the predicted range covers them until every one is given (analysis/PlanUnknowns.h).
QGroupBox* InputPanel::buildEfficiencies()
{
    using trainplan::EfficiencySpec;
    auto* box = new CachedFrameGroupBox(tr("Accelerator efficiencies"), this);
    auto* form = newForm(box);
    registerField("cluster.efficiency", box);
    // Parented at once: a field row missing from the table throws below, and the box's children
    // go with the panel (tst_inputpanel deletes rows under LeakSanitizer).
    QLabel* note = newNoteLabel(box);
    auto* usePreset = new QPushButton(tr("Use the preset's figures"), box);
    usePreset->setObjectName("usePresetEfficiencies");
    connect(usePreset, &QPushButton::clicked, this,
        [this] {
            // The calibration's record goes with the figures it described.
            doc_->edit(tr("Use the preset's efficiencies"), [](Plan& p) {
                p.cluster.efficiency = EfficiencySpec{};
                p.cluster.calibration.reset();
            });
        });
    refreshers_.push_back([this, note, usePreset] {
        const auto& cluster = doc_->plan().cluster;
        bool borrowed = false;
        const auto* preset = trainplan::efficiencyPresetFor(cluster, &borrowed);
        const QString name = preset ? QString::fromStdString(preset->name) : tr("no preset");
        const int given = cluster.efficiency.given();
        QString text = given == 0 ? tr("The %1's measured figures (hover for the sources).").arg(name)
            : given == EfficiencySpec::kFields ? tr("All %1 figures are yours.").arg(given)
                                               : tr("%1 of %2 figures are yours, the rest the %3's.").arg(given).arg(EfficiencySpec::kFields).arg(name);
        if (borrowed && given < EfficiencySpec::kFields)
            text += tr(" This part is no preset: the predicted range covers the borrowed ones.");
        QString tip = preset ? QString::fromStdString(preset->efficiencySource) : QString();
        if (const auto& c = cluster.calibration) {
            text += tr(" Calibrated from %1%2%3.")
                        .arg(QString::fromStdString(c->source), c->date.empty() ? QString() : tr(" (%1)").arg(QString::fromStdString(c->date)),
                            cluster.calibrationApplies() ? QString() : tr(", measured on %1, not this part").arg(QString::fromStdString(c->accelerator)));
            tip = tr("Fitted %1 to a step of %2 measured with %3%4.")
                      .arg(QString::fromStdString(c->fitted), QString::fromStdString(trainplan::formatSeconds(c->measuredStepSeconds)),
                          QString::fromStdString(c->measuredLayout),
                          c->framework.empty() ? QString() : tr(" on %1").arg(QString::fromStdString(c->framework)))
                + (tip.isEmpty() ? QString() : "\n\n" + tip);
        }
        note->setText(text);
        usePreset->setEnabled(given > 0 || cluster.calibration.has_value());
        note->setToolTip(tip);
    });
    form->addRow(note);

    // One box per figure (EfficiencyFields.h): shows what the prediction uses, sets the plan's own.
    for (const trainplan::EfficiencyField& f : trainplan::kEfficiencyFields) {
        const trainplan::PlanField& field = trainplan::planField(f.path);
        // Fractions show in per cent with one decimal, microseconds with one, counts and GB/s whole.
        const int decimals = field.type == trainplan::PlanFieldType::Integer || field.unit == "GB/s" ? 0 : 1;
        addNumber(
            form, f.path, decimals, [&f](const Plan& p) { return f.figure(trainplan::efficiencyFor(p.cluster)); },
            [&f](Plan& p, double v) { f.set(p.cluster.efficiency, v); });
        QWidget* box = fields_.value(QString::fromUtf8(f.path.data(), int(f.path.size())));
        auto* label = box ? qobject_cast<QLabel*>(form->labelForField(box)) : nullptr;
        // A figure of the user's own reads in the normal colour, the preset's faint.
        refreshers_.push_back([this, label, &f] {
            if (!label)
                return;
            QPalette palette = label->palette();
            const QColor colour = f.given(doc_->plan().cluster.efficiency) ? palette.color(QPalette::Text) : theme::faint();
            if (palette.color(QPalette::WindowText) == colour)
                return;  // setPalette repolishes and repaints even when nothing changes, every tick
            palette.setColor(QPalette::WindowText, colour);
            label->setPalette(palette);
        });
    }
    form->addRow(usePreset);
    return box;
}

QGroupBox* InputPanel::buildReliability()
{
    auto* box = new CachedFrameGroupBox(tr("Reliability"), this);
    auto* form = newForm(box);
    registerField("reliability", box);
    // The stall the estimate uses: the plan's, or checkpoint bytes over a given write bandwidth.
    addNumber(
        form, "reliability.checkpoint_write_seconds", 1,
        [this](const Plan& p) {
            const double stall = doc_->estimate().reliability.checkpointWriteSeconds;
            return stall > 0
                ? stall
                : p.reliability.checkpointWriteSeconds.value_or(trainplan::ReliabilitySpec{}.checkpointWriteSeconds.value_or(0));
        },
        [](Plan& p, double v) {
            p.reliability.checkpointWriteSeconds = v;
            p.reliability.checkpointWriteBytesPerSecondPerGpu.reset();
        });
    addNumber(
        form, "reliability.restart_seconds", 0, [](const Plan& p) { return p.reliability.restartSeconds; },
        [](Plan& p, double v) { p.reliability.restartSeconds = v; });
    addNumber(
        form, "reliability.other_overhead_fraction", 0, [](const Plan& p) { return p.reliability.otherOverheadFraction; },
        [](Plan& p, double v) { p.reliability.otherOverheadFraction = v; });
    return box;
}

// Money, energy and carbon (estimate/CostEnergyModel.h). An absent price or grid intensity shows
// as such (0 clears it); the GPU power box shows the power the estimate uses, the preset's board
// power until one is typed (0 goes back to the preset's).
QGroupBox* InputPanel::buildCost()
{
    auto* box = new CachedFrameGroupBox(tr("Cost and energy"), this);
    auto* form = newForm(box);
    registerField("cost", box);
    const auto optionalSetter = [](std::optional<double> trainplan::CostSpec::*field) {
        return [field](Plan& p, double v) {
            if (v > 0)
                p.cost.*field = v;
            else
                (p.cost.*field).reset();
        };
    };
    addNumber(
        form, "cost.price_per_gpu_hour_usd", 2, [](const Plan& p) { return p.cost.pricePerGpuHourUsd.value_or(0); },
        optionalSetter(&trainplan::CostSpec::pricePerGpuHourUsd), tr("no price"));
    addNumber(
        form, "cost.gpu_power_watts", 0,
        [this](const Plan& p) { return p.cost.gpuPowerWatts.value_or(doc_->analysis().cost.gpuPowerWatts); },
        optionalSetter(&trainplan::CostSpec::gpuPowerWatts), tr("unknown"));
    addNumber(
        form, "cost.server_overhead_fraction", 2, [](const Plan& p) { return p.cost.serverOverheadFraction; },
        [](Plan& p, double v) { p.cost.serverOverheadFraction = v; });
    addNumber(
        form, "cost.pue", 2, [](const Plan& p) { return p.cost.pue; }, [](Plan& p, double v) { p.cost.pue = v; });
    addNumber(
        form, "cost.grid_kg_co2e_per_kwh", 3, [](const Plan& p) { return p.cost.gridKgCo2ePerKwh.value_or(0); },
        optionalSetter(&trainplan::CostSpec::gridKgCo2ePerKwh), tr("not given"));
    return box;
}

QGroupBox* InputPanel::buildPlan()
{
    const PlanField& nameField = trainplan::planField("name");
    auto* box = new CachedFrameGroupBox(tr("Plan"), this);
    auto* form = newForm(box);
    name_ = new QLineEdit;
    name_->setMaxLength(int(nameField.max));  // what the reader accepts, so a saved plan reopens
    name_->setObjectName("planName");
    name_->setToolTip(tr("The name the file, the window title, the PDF report and the slides use. Until you type one it follows "
                         "the model, GPU count and token budget; clear it to follow them again."));
    connect(name_, &QLineEdit::editingFinished, this, [this] {
        name_->setModified(false);
        doc_->setName(name_->text());
    });
    nameNote_ = newNoteLabel(box);
    refreshers_.push_back([this] {
        const auto& plan = doc_->plan();
        // A name being typed stays until it is committed (Enter or leaving the field).
        const QString name = QString::fromStdString(plan.name);
        if (!(name_->hasFocus() && name_->isModified()) && name_->text() != name) {
            name_->setText(name);
            // setText leaves the cursor at the end: a name wider than the field would show its tail.
            if (!name_->hasFocus())
                name_->setCursorPosition(0);
        }
        name_->setPlaceholderText(QString::fromStdString(trainplan::generatedPlanName(plan)));
        nameNote_->setText(plan.nameUserSet ? tr("Typed; clear it to follow the model, GPUs and tokens again.")
                                            : tr("Follows the model, GPUs and tokens; type to name it."));
    });
    form->addRow(title(nameField), name_);
    form->addRow(nameNote_);
    showField(nameField.path, name_);
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
