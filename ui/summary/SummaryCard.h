// One headline figure: a title, a large value, a detail line, and (on hover) the formula
// and the numbers behind it, taken from the core's derivation step.
#pragma once

#include <QFrame>

class QLabel;

class SummaryCard : public QFrame {
    Q_OBJECT

public:
    SummaryCard(const QString& title, QWidget* parent = nullptr);
    void setValue(const QString& value, const QString& detail, const QColor& accent = QColor());
    void setTitle(const QString& title);
    QString titleText() const;
    QString valueText() const;
    QString detailText() const;
    QColor valueColor() const;
    // Fraction 0..1 drawn as a thin bar under the value (memory against capacity); < 0 hides it.
    void setFill(double fraction, const QColor& color);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QLabel* title_;
    QLabel* value_;
    QLabel* detail_;
    QString detailFull_;  // detail_ shows it elided to the card's width
    void elide();
    double fill_ = -1;
    QColor fillColor_;
};
