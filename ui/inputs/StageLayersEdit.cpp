#include "ui/inputs/StageLayersEdit.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/estimate/PipelineModel.h"
#include "render/style/Theme.h"

namespace {

QString joined(const std::vector<int>& counts)
{
    QStringList parts;
    for (int n : counts)
        parts << QString::number(n);
    return parts.join(QStringLiteral(", "));
}

QString stages(long long n)
{
    return n == 1 ? QStringLiteral("1 stage") : QStringLiteral("%1 stages").arg(n);
}

QString layersText(long long n)
{
    return n == 1 ? QStringLiteral("1 layer") : QStringLiteral("%1 layers").arg(n);
}

}  // namespace

StageLayersEdit::StageLayersEdit(QWidget* parent)
    : QWidget(parent)
    , edit_(new QLineEdit)
    , even_(new QToolButton)
    , note_(new QLabel)
{
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(edit_, 1);
    row->addWidget(even_);
    column->addLayout(row);
    column->addWidget(note_);

    edit_->setToolTip(tr("Layers on each pipeline stage, first to last, separated by commas: one entry per PP stage, "
                         "summing to the model's layers. The first stage also holds the embedding and the last the LM head, "
                         "so they often take fewer layers (worked example A: 19, 21, 21, 19)."));
    even_->setText(tr("Even"));
    even_->setToolTip(tr("Back to an even split of the layers over the stages."));
    note_->setWordWrap(true);
    QFont small = note_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    note_->setFont(small);

    connect(edit_, &QLineEdit::editingFinished, this, &StageLayersEdit::commit);
    connect(even_, &QToolButton::clicked, this, [this] {
        draftRejected_ = false;
        emit splitEdited({});
    });
}

QString StageLayersEdit::check(const QString& text, int pp, int layers, std::vector<int>* counts)
{
    counts->clear();
    const QStringList parts = text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return tr("Give %1 layer counts, one per stage, separated by commas.").arg(pp);
    long long sum = 0;
    for (int i = 0; i < parts.size(); ++i) {
        bool ok = false;
        const int n = parts[i].toInt(&ok);
        if (!ok)
            return tr("“%1” is not a whole number of layers.").arg(parts[i]);
        if (n < 1)
            return tr("Stage %1 has %2; every stage needs at least one layer.").arg(i + 1).arg(layersText(n));
        counts->push_back(n);
        sum += n;
    }
    if (int(counts->size()) != pp)
        return tr("Lists %1 but PP is %2: give one count per stage.").arg(stages((long long)counts->size())).arg(pp);
    if (sum != layers)
        return tr("Sums to %1 but the model has %2.").arg(layersText(sum), layersText(layers));
    return {};
}

void StageLayersEdit::commit()
{
    std::vector<int> counts;
    const QString problem = check(edit_->text(), pp_, model_.layers, &counts);
    if (!problem.isEmpty()) {
        draftRejected_ = true;
        setNote(problem, true);
        return;
    }
    draftRejected_ = false;
    if (counts == shown_) {
        showPlanNote();
        return;
    }
    // The default split typed out is the default split (even, or by cost for layers of several
    // kinds): the file keeps no list for it.
    std::vector<int> even(counts.size());
    trainplan::Plan probe;
    probe.model = model_;
    probe.layout.pp = pp_;
    trainplan::splitLayers(probe, even);
    emit splitEdited(counts == even ? std::vector<int>{} : counts);
}

void StageLayersEdit::showPlan(const trainplan::Plan& plan)
{
    const bool shapeChanged = plan.layout.pp != pp_ || !trainplan::sameModelShape(plan.model, model_);
    const bool wasExplicit = explicitSplit_;
    pp_ = plan.layout.pp;
    model_ = plan.model;
    trainplan::splitLayers(plan, shown_);
    explicitSplit_ = !plan.layout.stageLayers.empty() && int(plan.layout.stageLayers.size()) == plan.layout.pp;
    even_->setEnabled(explicitSplit_);
    if (draftRejected_ && !shapeChanged)
        return;  // the person is still fixing what they typed
    draftRejected_ = false;
    edit_->setText(joined(shown_));
    if (shapeChanged && wasExplicit && !explicitSplit_)
        setNote(tr("PP or the layer count changed: back to an even split."), false);
    else
        showPlanNote();
}

void StageLayersEdit::showPlanNote()
{
    // Layers of several kinds are split by cost by default (PipelineModel.h stageCostSplit).
    const bool byCost = model_.kindCount() > 1;
    if (explicitSplit_)
        setNote(byCost ? tr("Set per stage; “Even” returns to the split by cost.")
                       : tr("Set per stage; “Even” splits the layers evenly again."),
            false);
    else
        setNote(byCost ? tr("Split by cost (the layers come in kinds); type counts to set each stage.")
                       : tr("Even split; type counts to set each stage."),
            false);
}

void StageLayersEdit::setNote(const QString& text, bool problem)
{
    note_->setText(text);
    QPalette palette = note_->palette();
    palette.setColor(QPalette::WindowText, problem ? theme::capacity() : theme::faint());
    note_->setPalette(palette);
    edit_->setProperty("problem", problem);
}

QString StageLayersEdit::note() const
{
    return note_->text();
}
