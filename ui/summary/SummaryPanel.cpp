#include "ui/summary/SummaryPanel.h"

#include <QGridLayout>
#include <QHelpEvent>
#include <QToolTip>

#include <algorithm>
#include <string_view>

#include "core/analysis/MemoryFitSentence.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/analysis/Thresholds.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/text/Derivation.h"
#include "core/text/MfuBasis.h"
#include "core/text/TextReport.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/summary/SummaryCard.h"

using namespace trainplan;

namespace {

constexpr int kColumns = 4;
constexpr int kSpacing = 6;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

SummaryPanel::SummaryPanel(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    struct Spec {
        const char* id;
        const char* title;
        QStringList steps;
    };
    const Spec specs[] = {
        {"parameters", "Parameters", {"parameters.total", "parameters.tokens_per_parameter"}},
        {"flops", "Training FLOPs", {"flops.model_6nd", "flops.attention", "flops.total"}},
        {"days", "Wall time", {"time.total_seconds", "time.days", "reliability.padded_days"}},
        {"gpu_hours", "GPU-hours", {"time.gpu_hours", "cost.usd", "energy.mwh", "carbon.tonnes_co2e"}},
        {"step", "Step time", {"time.tokens_per_step", "time.steps", "time.step_seconds"}},
        {"memory", "Memory per GPU", {"memory.activation_per_layer", "memory.activations", "memory.per_gpu_total"}},
        {"bubble", "Pipeline bubble", {"pipeline.micro_batches", "pipeline.bubble_fraction"}},
        {"mfu", "MFU: assumed / predicted", {"time.effective", "time.tokens_per_second_per_gpu"}},
    };
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(kSpacing);
    int column = 0;
    for (const auto& s : specs) {
        auto* card = new SummaryCard(tr(s.title), this);
        card->setObjectName(s.id);
        card->setAttribute(Qt::WA_Hover);
        card->installEventFilter(this);
        connect(
            card, &SummaryCard::activated, this, [this, id = QString(s.id)](bool fromKeyboard) { emit cardActivated(id, fromKeyboard); });
        grid->addWidget(card, column / kColumns, column % kColumns);
        ++column;
        entries_.push_back({s.id, s.steps, card});
    }
    for (int c = 0; c < kColumns; ++c)
        grid->setColumnStretch(c, 1);
    connect(doc_, &PlanDocument::planChanged, this, &SummaryPanel::refresh);
    refresh();
}

SummaryCard* SummaryPanel::card(const QString& id) const
{
    for (const auto& e : entries_)
        if (e.id == id)
            return e.card;
    return nullptr;
}

QStringList SummaryPanel::stepIds(const QString& id) const
{
    for (const auto& e : entries_)
        if (e.id == id)
            return e.stepIds;
    return {};
}

int SummaryPanel::fullWidth() const
{
    // Columns stretch equally, so the widest card sets every column's width.
    int widest = 0;
    for (const auto& e : entries_)
        widest = std::max(widest, e.card->fullWidth());
    return kColumns * widest + (kColumns - 1) * kSpacing;
}

QStringList SummaryPanel::cardIds() const
{
    QStringList out;
    for (const auto& e : entries_)
        out << e.id;
    return out;
}

QStringList SummaryPanel::elidedCards() const
{
    QStringList out;
    for (const auto& e : entries_)
        if (e.card->isElided())
            out << e.id;
    return out;
}

QString SummaryPanel::tooltipHtml(const QString& id) const
{
    for (const auto& e : entries_) {
        if (e.id != id)
            continue;
        const auto sections = derive(doc_->analysis());
        QString html;
        // A narrow card shows its lines shortened: the tooltip gives them whole.
        if (e.card->isElided())
            html +=
                QString("<p><b>%1</b><br>%2<br>%3</p>")
                    .arg(markup::escaped(e.card->titleText()), markup::escaped(e.card->valueText()), markup::escaped(e.card->detailText()));
        if (e.id == "memory") {
            const auto& r = doc_->analysis().memoryRange;
            html += "<p>"
                + markup::escaped(
                    tr("Range %1 to %2: unknown %3 at either value, no fragmentation allowance at the low end, +%4 model error at the high "
                       "end.")
                        .arg(q(formatBytes(r.lowBytes)), q(formatBytes(r.highBytes)),
                            q(unknownInputsPhrase(r.unknownSwitches, r.unknownLayoutFields, r.unknownLoadImbalance)),
                            q(formatPercent(r.modelErrorAbove, 0))))
                + "</p><p>" + markup::escaped(q(memoryFitSentence(r))) + "</p>";
        }
        html += "<table cellspacing=4>";
        for (const auto& stepId : e.stepIds) {
            const auto* step = findStep(sections, stepId.toStdString());
            if (!step)
                continue;
            const QString substituted =
                trainplan::substitutionAddsToResult(*step) ? "= " + markup::escaped(q(step->substituted)) + "<br>" : QString();
            html += QString("<tr><td><b>%1</b><br><code>%2</code><br>%3= <b>%4</b><br><i>%5</i></td></tr>")
                        .arg(markup::escaped(q(step->title)), markup::escaped(q(step->formula)), substituted,
                            markup::escaped(q(step->result)), markup::escaped(q(step->source)));
        }
        return html + "</table><p><i>" + tr("Click for these steps in the math.") + "</i></p>";
    }
    return {};
}

bool SummaryPanel::eventFilter(QObject* watched, QEvent* event)
{
    // Tooltips are built on demand from the derivation, so the hot path never formats them.
    if (event->type() != QEvent::ToolTip)
        return QWidget::eventFilter(watched, event);
    for (const auto& e : entries_) {
        if (e.card == watched) {
            QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tooltipHtml(e.id), e.card);
            return true;
        }
    }
    return false;
}

void SummaryPanel::refresh()
{
    const auto& e = doc_->estimate();
    const auto& t = doc_->timeEstimate();  // time and cost follow the chosen basis
    const auto& plan = doc_->plan();
    const auto& predicted = doc_->predicted();
    const bool usePredicted = doc_->timeBasis() == PlanDocument::TimeBasis::Predicted;
    const auto& other = usePredicted ? e : doc_->predictedEstimate();
    bool noProgress = false;
    const Warning* firstError = nullptr;
    for (const auto& w : e.warnings) {
        noProgress = noProgress || w.code == WarningCode::FailuresOutpaceProgress;
        if (!firstError && w.severity == Severity::Error)
            firstError = &w;
    }
    // An invalid plan's figures are not ones to read as ordinary: every card is greyed, its
    // figure kept for reference (issue 23), but those that say what is wrong (the wall-time
    // card, and a card red with the error, such as memory that does not fit). Each card gets
    // its final text once: setting it twice a tick shaped every card's text twice.
    const QColor error = theme::severity(Severity::Error);
    const auto show = [&](const char* id, const QString& value, const QString& detail, const QColor& accent = QColor(),
                          const QString& shortDetail = QString()) {
        SummaryCard* c = card(id);
        if (firstError && std::string_view(id) != "days" && accent != error) {
            c->setValue(value, tr("plan invalid · ") + detail, theme::faint());
            c->setFill(-1.0, QColor());
        } else {
            c->setValue(value, detail, accent, shortDetail);
        }
    };
    show("parameters", q(formatCount(e.parameters.total)), q(trainplan::parametersDetail(plan, e)), QColor(),
        plan.model.moe ? tr("%1 active").arg(q(formatCount(e.parameters.active))) : q(trainplan::tokensPerParameterText(plan, e)));
    // The same terms as the derivation's "Model FLOPs" step, in words short enough for a 1280-px
    // window; their values are in the tooltip.
    show("flops", q(formatSci(e.flops.total)), q(trainplan::flopsTermsText(plan, e, false)), QColor(),
        tr("%1 per token").arg(q(formatSci(e.flops.perToken, 2))));
    // Time figures come in two bases; the chosen one is the value, named in the card's title, the
    // other is in the detail line, named too.
    const QString chosen = QString::fromLatin1(timeBasisLabel(doc_->timeBasis()));
    const QString otherName = QString::fromLatin1(timeBasisLabel(usePredicted ? TimeBasis::AssumedMfu : TimeBasis::Predicted));
    card("days")->setTitle(tr("Wall time, %1").arg(chosen));
    card("gpu_hours")->setTitle(tr("GPU-hours, %1").arg(chosen));
    card("step")->setTitle(tr("Step time, %1").arg(chosen));
    const auto& range = predicted.range;
    const QString rangeDays =
        range.low.days > range.high.days ? tr("%1–%2").arg(q(formatNumber(range.high.days)), q(formatNumber(range.low.days))) : QString();
    const bool failures = t.reliability.failuresModelled;
    const QString failureText = !failures ? tr("failures not modelled")
        : noProgress                      ? tr("with failures: never finishes")
                                          : tr("%1 with failures").arg(q(formatNumber(t.reliability.paddedDays)));
    // The predicted range sits beside the predicted figure: right after the value on the predicted
    // basis (it is what narrows a budget), after the predicted figure in the detail otherwise.
    // On the predicted basis the assumed-MFU days stay in the step and GPU-hours cards' details
    // and the tooltip: the range is what this card has room for.
    const QString otherDays = usePredicted
        ? (rangeDays.isEmpty() ? QString() : tr(" · range %1").arg(rangeDays))
        : tr(" · %1 %2").arg(otherName, q(formatNumber(other.time.days))) + (rangeDays.isEmpty() ? QString() : tr(" (%1)").arg(rangeDays));
    if (firstError) {
        // A plan with error-level red flags has no wall time worth reading as normal.
        card("days")->setValue(tr("Plan invalid"), q(codeName(firstError->code)) + tr(": see Red flags"), theme::severity(Severity::Error));
    } else {
        card("days")->setValue(tr("%1 days").arg(q(formatNumber(t.time.days))), failureText + otherDays,
            !failures || noProgress ? theme::severity(noProgress ? Severity::Error : Severity::Warning) : QColor());
    }
    // The other basis's figure, named; the GPU and step counts are in the tooltips (the derivation's
    // steps), so the line fits a 1280-px window whole.
    // With a price, the run's cost on the same basis leads the detail (cost.price_per_gpu_hour_usd),
    // then the energy the facility draws for it (GPU power, server overhead, PUE: CostEnergyModel.h);
    // a narrow card keeps those two and drops the other basis's hours.
    const auto& cost = doc_->analysis().costFor(doc_->timeBasis());
    const QString otherHours = tr("%1 %2").arg(otherName, q(formatCount(other.time.gpuHours)));
    QStringList money;
    if (cost.usd)
        money << tr("$%1").arg(q(formatCount(*cost.usd)));
    if (cost.energyJoules)
        money << tr("%1 MWh").arg(q(formatNumber(*cost.energyJoules / units::MWh)));
    if (!money.isEmpty())
        show("gpu_hours", q(formatCount(t.time.gpuHours)), (money + QStringList{otherHours}).join(QStringLiteral(" · ")), QColor(),
            money.join(QStringLiteral(" · ")));
    else
        show("gpu_hours", q(formatCount(t.time.gpuHours)), otherHours);
    show("step", q(formatSeconds(t.time.stepSeconds)), tr("%1 %2").arg(otherName, q(formatSeconds(other.time.stepSeconds))));
    // Colours are the core's verdicts (analysis/Thresholds.h): the memory range's verdict
    // (MemoryFit.h), amber when it may not fit, red when it does not; the words are the JSON's.
    const MemoryRange& memoryRange = doc_->analysis().memoryRange;
    const Verdict memory = memoryVerdict(memoryRange);
    const QColor memColor = theme::verdict(memory, theme::ok());
    card("memory")->setFill(e.perGpu.total / e.capacityBytes, memColor);  // show() hides it on an invalid plan
    show("memory", q(formatBytes(e.perGpu.total)),
        tr("of %1 (stage %2) · %3").arg(q(formatBytes(e.capacityBytes))).arg(e.fullestStage + 1).arg(q(memoryFitName(memoryRange.fit))),
        memory == Verdict::Fine ? QColor() : memColor);
    show("bubble", q(formatPercent(e.pipeline.bubbleFraction)),
        // The closed form (p - 1)/(m + p - 1) and its kin: the timeline beside it quotes the
        // simulated bubble of the real stage costs, so each says which it is.
        tr("closed form · m = %1").arg(q(formatCount(double(e.pipeline.microbatches)))),
        theme::verdict(bubbleVerdict(e.pipeline.bubbleFraction), QColor()));
    // FP8 or FP4 GEMMs: MFU is against the BF16 peak and may pass 100 %, so the card says so.
    const QString peakNote = q(formatPeakNote(plan, predicted));
    const QString tokens = q(formatNumber(predicted.tokensPerSecondPerGpu)), hfu = q(formatPercent(predicted.hfu, 0));
    const QString mfuDetail = tr("predicted %1 tok/s/GPU, HFU %2").arg(tokens, hfu);
    show("mfu", QString("%1 / %2").arg(q(formatPercent(plan.training.mfu, 0)), q(formatPercent(predicted.mfu, 1))),
        peakNote.isEmpty() ? mfuDetail : peakNote + QStringLiteral(" · ") + mfuDetail, QColor(),
        peakNote.isEmpty()
            ? tr("%1 tok/s/GPU · HFU %2").arg(tokens, hfu)
            : tr("%1 · %2 of %3")
                  .arg(QString::fromLatin1(kMfuBasisNote))
                  .arg(q(formatPercent(predicted.hfuAtFormatPeak, 0)),
                      plan.training.matmulPrecision == MatmulPrecision::Nvfp4 ? QStringLiteral("FP4") : QStringLiteral("FP8")));
}
