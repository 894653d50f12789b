// The row of headline figures: parameters, FLOPs, days, GPU-hours, step time, memory per
// GPU against capacity, bubble and throughput. Tooltips show each one's derivation; clicking
// a card asks for the math at its steps (cardActivated).
#pragma once

#include <QWidget>

#include <vector>

class PlanDocument;
class SummaryCard;

class SummaryPanel : public QWidget {
    Q_OBJECT

public:
    explicit SummaryPanel(PlanDocument* document, QWidget* parent = nullptr);
    SummaryCard* card(const QString& id) const;
    QStringList cardIds() const;  // every card, in reading order
    // The card's tooltip: each derivation step behind it (formula, values, result, source).
    QString tooltipHtml(const QString& id) const;
    // The derivation steps behind a card, in the order its tooltip shows them.
    QStringList stepIds(const QString& id) const;
    // The width at which every card shows its texts whole (four cards to a row).
    int fullWidth() const;
    // Ids of the cards that show a text shortened at the present width.
    QStringList elidedCards() const;

signals:
    void cardActivated(const QString& id, bool fromKeyboard);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();

    struct Entry {
        QString id;            // stable name, also the card's object name
        QStringList stepIds;   // derivation steps shown in the tooltip
        SummaryCard* card;
    };
    PlanDocument* doc_;
    std::vector<Entry> entries_;
};
