#include "ui/summary/WarningsPanel.h"

#include <QApplication>
#include <QStyle>

#include <algorithm>

#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"

namespace {

constexpr int kFieldRole = Qt::UserRole;
constexpr int kCodeRole = Qt::UserRole + 1;
// Vertical padding of an item around its text or icon, whichever is taller (fitItemHeights()).
constexpr int kItemPadding = 8;

}  // namespace

WarningsPanel::WarningsPanel(PlanDocument* document, QWidget* parent)
    : QListWidget(parent)
    , doc_(document)
{
    setWordWrap(true);
    setTextElideMode(Qt::ElideNone);
    setResizeMode(QListView::Adjust);  // re-wrap items when the pane changes width
    setUniformItemSizes(false);
    // By pixels: a squeezed band still scrolls through one flag wrapped taller than it.
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setAlternatingRowColors(true);
    setIconSize(QSize(20, 20));
    setMinimumWidth(280);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setSpacing(1);
    connect(this, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item && !item->data(kFieldRole).toString().isEmpty())
            emit fieldActivated(item->data(kFieldRole).toString());
    });
    connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (!item->data(kFieldRole).toString().isEmpty())
            emit fieldActivated(item->data(kFieldRole).toString());
    });
    releaseHeight_.setSingleShot(true);
    releaseHeight_.setInterval(kSettleDelayMs);
    connect(&releaseHeight_, &QTimer::timeout, this, &WarningsPanel::releaseHeight);
    connect(doc_, &PlanDocument::mergeEnded, this, &WarningsPanel::releaseHeight);
    connect(doc_, &PlanDocument::planChanged, this, &WarningsPanel::refresh);
    refresh();
}

void WarningsPanel::refresh()
{
    const auto& warnings = doc_->estimate().warnings;
    QStringList messages;
    for (const auto& w : warnings)
        messages << QString::fromUtf8(trainplan::codeName(w.code)) + QString::fromStdString(trainplan::describe(w));
    if (doc_->isContinuingEdit() && count() > 0) {
        if (heldHeight_ == 0)
            heldHeight_ = sizeHint().height();  // the height the drag started with
        releaseHeight_.start();                 // again on every step: the hold ends once the steps pause
    } else {
        releaseHeight_.stop();
        releaseHeight();
    }
    if (messages == shown_ && count() > 0)
        return;  // most slider ticks change no red flag: keep the list and its selection
    shown_ = messages;
    const QSignalBlocker block(this);
    clear();
    // Errors first, then warnings, then notes.
    for (auto severity : {trainplan::Severity::Error, trainplan::Severity::Warning, trainplan::Severity::Info}) {
        for (const auto& w : warnings) {
            if (w.severity != severity)
                continue;
            auto* item = new QListWidgetItem(iconFor(w.severity), QString::fromStdString(trainplan::describe(w)), this);
            item->setData(kFieldRole, QString::fromUtf8(w.field));
            item->setData(kCodeRole, QString::fromUtf8(trainplan::codeName(w.code)));
            item->setToolTip(QString("%1 (%2) — click to show the control: %3")
                                 .arg(trainplan::codeName(w.code), trainplan::severityName(w.severity), QString::fromUtf8(w.field)));
            item->setForeground(severity == trainplan::Severity::Info ? palette().color(QPalette::Text) : theme::severity(severity));
        }
    }
    if (count() == 0) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_DialogApplyButton),
            tr("No red flags: the layout fits, TP stays off the network, and failures are budgeted."), this);
        item->setForeground(theme::ok());
    }
    fitItemHeights();
}

const QIcon& WarningsPanel::iconFor(trainplan::Severity severity)
{
    QIcon& icon = severityIcons_[size_t(severity)];
    if (icon.isNull()) {
        switch (severity) {
        case trainplan::Severity::Error: icon = style()->standardIcon(QStyle::SP_MessageBoxCritical); break;
        case trainplan::Severity::Warning: icon = style()->standardIcon(QStyle::SP_MessageBoxWarning); break;
        case trainplan::Severity::Info: icon = style()->standardIcon(QStyle::SP_MessageBoxInformation); break;
        }
    }
    return icon;
}

void WarningsPanel::changeEvent(QEvent* event)
{
    QListWidget::changeEvent(event);
    if (event->type() == QEvent::StyleChange)
        severityIcons_ = {};  // the new style's icons on the next refresh
}

int WarningsPanel::itemsHeight(int upTo) const
{
    int h = 2 * frameWidth() + spacing();
    for (int i = 0; i < std::min(upTo, count()); ++i)
        h += item(i)->sizeHint().height() + 2 * spacing();
    return h;
}

QSize WarningsPanel::sizeHint() const
{
    constexpr int kLinesShown = 4;
    return {QListWidget::sizeHint().width(), heldHeight_ > 0 ? heldHeight_ : itemsHeight(kLinesShown)};
}

void WarningsPanel::releaseHeight()
{
    if (heldHeight_ == 0)
        return;
    heldHeight_ = 0;
    updateGeometry();
}

QSize WarningsPanel::minimumSizeHint() const
{
    // One line of text, not the first flag however many lines it wraps to: the list scrolls,
    // and a first flag wrapped in a narrow window raised the window's own minimum past the
    // screen (1280 x 720 grew to 734 px at PP 1). The line as fitItemHeights() sizes an item.
    const int line = std::max(fontMetrics().height(), iconSize().height()) + kItemPadding;
    return {minimumWidth(), std::min(itemsHeight(1), 2 * frameWidth() + 3 * spacing() + line)};
}

void WarningsPanel::resizeEvent(QResizeEvent* event)
{
    QListWidget::resizeEvent(event);
    fitItemHeights();
}

void WarningsPanel::fitItemHeights()
{
    const int textWidth = viewport()->width() - iconSize().width() - 4 * spacing() - 16;
    if (textWidth <= 40)
        return;
    const QFontMetrics metrics(font());
    bool changed = false;
    for (int i = 0; i < count(); ++i) {
        QListWidgetItem* it = item(i);
        const QRect r = metrics.boundingRect(QRect(0, 0, textWidth, 10000), Qt::TextWordWrap, it->text());
        const QSize hint(textWidth, std::max(r.height(), iconSize().height()) + kItemPadding);
        if (it->sizeHint() != hint) {
            it->setSizeHint(hint);
            changed = true;
        }
    }
    // The band's height follows its lines. Only when they changed: a geometry request re-lays
    // out the whole window, and a resize that leaves the lines as they were needs none.
    if (changed && heldHeight_ == 0)
        updateGeometry();
}

QStringList WarningsPanel::codes() const
{
    QStringList out;
    for (int i = 0; i < count(); ++i) {
        const QString code = item(i)->data(kCodeRole).toString();
        if (!code.isEmpty())
            out << code;
    }
    return out;
}
