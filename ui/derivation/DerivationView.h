// "Show the math": every step of the plan's arithmetic in the worked examples' order (compute and
// time, memory and layout, batch and pipeline, communication, reliability, red flags),
// each with its formula, the same formula with this plan's numbers, the result and its
// source. Built from the core's derive(), never from strings assembled here.
#pragma once

#include <QWidget>

class PlanDocument;
class QComboBox;
class DerivationList;

class DerivationView : public QWidget {
    Q_OBJECT

public:
    explicit DerivationView(PlanDocument* document, QWidget* parent = nullptr);

    QString markdown() const;   // what "Copy as Markdown" puts on the clipboard
    QString plainText() const;  // what "Copy as text" puts on the clipboard
    QString html() const;
    void copyMarkdown() const;
    void copyPlainText() const;
    void showSection(int index);  // -1: all sections
    // Every section, scrolled to the first of these steps, all of them highlighted (what a
    // headline card opens). False when none of them is in the derivation.
    bool showSteps(const QStringList& stepIds);

    DerivationList* list() const { return list_; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    // A plan change: the derivation is rebuilt now when shown, else when next shown (deriving
    // every step's text for a closed dock cost each slider tick 4-6 % of its time, bench_window).
    void onPlanChanged();

    PlanDocument* doc_;
    QComboBox* section_;
    DerivationList* list_;
    bool stale_ = false;
};
