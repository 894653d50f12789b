// A combo box that never clips its text: a choice longer than the box shows elided ("…"),
// with the whole of it in the tooltip and the open list as wide as its longest entry. Qt's
// own combo box cuts a long current text off mid-word at the frame.
#pragma once

#include <QComboBox>

class ElidingComboBox : public QComboBox {
    Q_OBJECT

public:
    explicit ElidingComboBox(QWidget* parent = nullptr);

    // The text shown in the box (elided to its room), and whether it is shortened.
    QString shownText() const;
    bool isTextElided() const { return shownText() != currentText(); }
    void showPopup() override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect textRect() const;
};
