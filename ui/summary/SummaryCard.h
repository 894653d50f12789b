// One headline figure: a title, a large value, a detail line, and (on hover) the formula
// and the numbers behind it, taken from the core's derivation step. Clicking the card, or
// Return or Space while it has the keyboard focus, activates it (the window opens the math
// at its steps).
#pragma once

#include <QFrame>

class QLabel;

class SummaryCard : public QFrame {
    Q_OBJECT

public:
    SummaryCard(const QString& title, QWidget* parent = nullptr);
    // shortDetail: the detail in fewer words, shown whole where the full one would be cut.
    void setValue(const QString& value, const QString& detail, const QColor& accent = QColor(), const QString& shortDetail = QString());
    void setTitle(const QString& title);
    QString titleText() const;
    QString valueText() const;
    QString detailText() const;
    QColor valueColor() const;
    QColor accent() const { return accent_; }  // the value's colour as set; invalid: the palette's
    // Fraction 0..1 drawn as a thin bar under the value (memory against capacity); < 0 hides it.
    void setFill(double fraction, const QColor& color);
    QColor fillColor() const { return fillColor_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    // The width at which title, value and detail all show whole.
    int fullWidth() const;
    // Whether any of the three lines is shown shortened at the card's present width.
    bool isElided() const;

signals:
    void activated(bool fromKeyboard);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    QLabel* title_;
    QLabel* value_;
    QLabel* detail_;
    // What each label says in full; the labels show it elided to the card's width.
    QString titleFull_, valueFull_, detailFull_, detailShort_;
    void elide();  // every line, to the card's width
    void elideLine(QLabel* label, const QString& full);
    void placeLines();
    double fill_ = -1;
    QColor fillColor_;
    QColor accent_;
    bool pressed_ = false;
};
