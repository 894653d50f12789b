// Red flags: every warning of the estimate with a severity icon. Activating one asks the
// window to highlight the control responsible (the warning's JSON field).
#pragma once

#include <QIcon>
#include <QListWidget>
#include <QTimer>

#include <array>

#include "core/estimate/Warning.h"

class PlanDocument;

class WarningsPanel : public QListWidget {
    Q_OBJECT

public:
    explicit WarningsPanel(PlanDocument* document, QWidget* parent = nullptr);
    QStringList codes() const;  // the codes currently listed, for tests
    // Tall enough for every flag up to four, then it scrolls: the pane is a band under the
    // headline cards that grows with what it has to say (one line when all is well). During a
    // drag it keeps its height (and scrolls) until the slider is released or the edits pause
    // for kSettleDelayMs: a drag that raises and clears flags would otherwise resize the
    // diagram and timeline under the pointer, each resize repainting them a second time.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    static constexpr int kSettleDelayMs = 400;

signals:
    void fieldActivated(const QString& jsonPath);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    int itemsHeight(int upTo) const;  // the first upTo items with their spacing and the frame
    // QListView underestimates wrapped text next to an icon and elides the last line;
    // size each item from its own text at the current width instead.
    void fitItemHeights();
    // A severity's icon, built once: QStyle::standardIcon builds a new one on every call,
    // which a drag paid for on each tick that changed a red flag's text.
    const QIcon& iconFor(trainplan::Severity severity);
    std::array<QIcon, 3> severityIcons_;

    PlanDocument* doc_;
    QStringList shown_;   // the messages on display: an unchanged list is not rebuilt
    int heldHeight_ = 0;  // the height kept during a drag, 0 when none is held
    QTimer releaseHeight_;
    void releaseHeight();
};
