// The keyboard focus, clearly visible: a two-pixel outline in the theme's focus colour just
// outside whichever control (slider, spin box, button, combo box, headline card, view) takes
// the focus from the keyboard (Tab, Shift+Tab, a shortcut). Clicking with the mouse hides it
// again, as the pointer already says where one is. Drawn on a layer over the whole window,
// so a control flush against its parent's edge still shows its ring on every side, and it
// follows the control as it moves, resizes or scrolls, the same in every style.
#pragma once

#include <QPointer>
#include <QWidget>

class FocusRing : public QWidget {
    Q_OBJECT

public:
    // Rings the controls of `owner` and of its floating docks; watches `application`'s focus.
    FocusRing(QWidget* owner, QObject* application);

    static constexpr int kWidth = 2;  // pixels of the outline

    QWidget* widget() const { return target_; }
    // Rings a control (nullptr: none); the window does this when it hands the keyboard focus
    // to a panel's first field.
    void setWidget(QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    bool ownsWindowOf(const QWidget* widget) const;
    void follow();  // onto the target's place, clipped to what its ancestors show of it
    void watchChain(bool on);

    QWidget* owner_;
    QPointer<QWidget> target_;
    QRect ring_;  // the outline's outer edge, in this widget's coordinates
};
