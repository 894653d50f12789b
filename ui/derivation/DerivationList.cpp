#include "ui/derivation/DerivationList.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace {

constexpr double kMargin = 8;
constexpr double kGap = 6;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

DerivationList::DerivationList(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    titleFont_ = font();
    titleFont_.setBold(true);
    monoFont_ = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    monoFont_.setPointSizeF(font().pointSizeF() * 0.92);
    smallFont_ = font();
    smallFont_.setPointSizeF(font().pointSizeF() * 0.85);
    smallFont_.setItalic(true);
    headingFont_ = font();
    headingFont_.setPointSizeF(font().pointSizeF() * 1.2);
    headingFont_.setBold(true);
    monoCharWidth_ = QFontMetricsF(monoFont_).horizontalAdvance(QLatin1Char('0'));
    viewport()->setBackgroundRole(QPalette::Base);
    verticalScrollBar()->setSingleStep(20);
    // Scrolling by hand lets go of the step scrolled to.
    connect(verticalScrollBar(), &QScrollBar::actionTriggered, this, [this] { anchorStep_.clear(); });
}

void DerivationList::setSections(std::vector<trainplan::DerivationSection> sections, int onlySection)
{
    sections_ = std::move(sections);
    onlySection_ = onlySection;
    relayout();
    viewport()->update();
}

int DerivationList::stepCount() const
{
    int n = 0;
    for (const auto& r : rows_)
        n += r.step != nullptr;
    return n;
}

double DerivationList::advance(const QString& text, const QFont& f) const
{
    if (f == monoFont_)
        return text.size() * monoCharWidth_;  // fixed pitch: no shaping needed
    auto it = advanceCache_.constFind(text);
    if (it != advanceCache_.constEnd())
        return *it;
    if (advanceCache_.size() > 4096)
        advanceCache_.clear();
    return advanceCache_[text] = QFontMetricsF(f).horizontalAdvance(text);
}

int DerivationList::wrappedLines(const QString& text, const QFont& f, double width) const
{
    // An estimate from the text's advance; drawing wraps anywhere, so the estimate holds
    // with a little width in reserve.
    const double usable = f == monoFont_ ? width : width * 0.88;  // word wrap leaves a ragged edge
    return std::max(1, int(std::ceil(advance(text, f) / std::max(40.0, usable))));
}

void DerivationList::relayout()
{
    rows_.clear();
    const double width = viewport()->width() - 2 * kMargin;
    const double line = QFontMetricsF(font()).lineSpacing();
    const double mono = QFontMetricsF(monoFont_).lineSpacing();
    const double small = QFontMetricsF(smallFont_).lineSpacing();
    double y = kMargin;
    for (int s = 0; s < int(sections_.size()); ++s) {
        if (onlySection_ >= 0 && s != onlySection_)
            continue;
        const auto& section = sections_[size_t(s)];
        if (onlySection_ < 0) {
            const double h = QFontMetricsF(headingFont_).lineSpacing() + kGap;
            rows_.push_back({&section, nullptr, y, h});
            y += h;
        }
        for (const auto& step : section.steps) {
            const QString result = "= " + q(step.result) + (step.note.empty() ? QString() : "  (" + q(step.note) + ")");
            const double h = wrappedLines(q(step.title), titleFont_, width) * line + wrappedLines(q(step.formula), monoFont_, width) * mono
                + (trainplan::substitutionAddsToResult(step) ? wrappedLines("= " + q(step.substituted), monoFont_, width) * mono : 0)
                + wrappedLines(result, font(), width) * line + wrappedLines(q(step.source), smallFont_, width) * small + kGap * 2;
            rows_.push_back({&section, &step, y, h});
            y += h;
        }
    }
    contentHeight_ = y + kMargin;
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setRange(0, std::max(0, int(contentHeight_) - viewport()->height()));
}

void DerivationList::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    relayout();
    if (!anchorStep_.isEmpty())
        scrollToStep(QString(anchorStep_));
}

void DerivationList::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    const double scroll = verticalScrollBar()->value();
    const double width = viewport()->width() - 2 * kMargin;
    const QColor text = palette().color(QPalette::Text);
    const QColor muted = palette().color(QPalette::PlaceholderText);
    for (const auto& r : rows_) {
        const double top = r.top - scroll;
        if (top + r.height < 0 || top > viewport()->height())
            continue;  // only what is in view is drawn
        if (!r.step) {
            p.setFont(headingFont_);
            p.setPen(text);
            p.drawText(QRectF(kMargin, top, width, r.height), Qt::AlignLeft | Qt::AlignTop, q(r.section->title));
            continue;
        }
        const auto& s = *r.step;
        if (highlighted_.contains(q(s.id)))
            p.fillRect(QRectF(kMargin / 2, top, width + kMargin, r.height - 1), theme::highlight());
        double y = top + kGap;
        auto draw = [&](const QString& str, const QFont& f, const QColor& c) {
            p.setFont(f);
            p.setPen(c);
            const double h = wrappedLines(str, f, width) * QFontMetricsF(f).lineSpacing();
            // Numbers and formulas may break anywhere; words only between words.
            const int wrap = f == monoFont_ ? Qt::TextWrapAnywhere : Qt::TextWordWrap;
            p.drawText(QRectF(kMargin, y, width, h + 2), Qt::AlignLeft | Qt::AlignTop | wrap, str);
            y += h;
        };
        const bool failed = s.unit == "check" && s.value == 0.0;
        draw(q(s.title), titleFont_, text);
        draw(q(s.formula), monoFont_, text);
        if (trainplan::substitutionAddsToResult(s))  // never "given = 60 s = 60.0 s"
            draw("= " + q(s.substituted), monoFont_, muted);
        QFont resultFont = font();
        resultFont.setBold(true);
        draw("= " + q(s.result) + (s.note.empty() ? QString() : "  (" + q(s.note) + ")"), resultFont, failed ? theme::capacity() : text);
        draw(q(s.source), smallFont_, muted);
        p.setPen(QPen(palette().color(QPalette::Midlight), 1));
        p.drawLine(QPointF(kMargin, top + r.height - 1), QPointF(kMargin + width, top + r.height - 1));
    }
}

void DerivationList::setHighlightedSteps(const QStringList& ids)
{
    highlighted_ = ids;
    viewport()->update();
}

QRect DerivationList::stepRect(const QString& id) const
{
    const double scroll = verticalScrollBar()->value();
    for (const auto& r : rows_)
        if (r.step && q(r.step->id) == id)
            return QRectF(0, r.top - scroll, viewport()->width(), r.height).toAlignedRect();
    return {};
}

bool DerivationList::scrollToStep(const QString& id)
{
    for (const auto& r : rows_) {
        if (r.step && q(r.step->id) == id) {
            // A little of what comes before stays in view, so the step is read in context.
            verticalScrollBar()->setValue(int(std::max(0.0, r.top - kMargin)));
            viewport()->update();
            anchorStep_ = id;  // kept in view while the list re-wraps to a new width
            return true;
        }
    }
    return false;
}

QString DerivationList::stepTitleAt(const QPoint& pos) const
{
    const double y = pos.y() + verticalScrollBar()->value();
    for (const auto& r : rows_)
        if (r.step && y >= r.top && y < r.top + r.height)
            return q(r.step->title);
    return {};
}

bool DerivationList::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const double y = help->pos().y() + verticalScrollBar()->value();
        for (const auto& r : rows_) {
            if (r.step && y >= r.top && y < r.top + r.height) {
                QToolTip::showText(help->globalPos(),
                    QString("<b>%1</b><br>%2 = %3")
                        .arg(markup::escaped(q(r.step->title)), q(r.step->id), markup::escaped(q(r.step->result))),
                    viewport());
                return true;
            }
        }
    }
    return QAbstractScrollArea::viewportEvent(event);
}
