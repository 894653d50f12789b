#include "ui/inputs/FieldInputGuard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLineEdit>
#include <QSlider>
#include <QWheelEvent>

FieldInputGuard::FieldInputGuard(QObject* parent)
    : QObject(parent)
{
}

void FieldInputGuard::guardChildrenOf(QWidget* root)
{
    const auto guardWheel = [this](QWidget* w) {
        // Wheel focus would let a passing scroll focus (and then change) the field.
        if (w->focusPolicy() == Qt::WheelFocus)
            w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(this);
    };
    for (auto* w : root->findChildren<QAbstractSpinBox*>())
        guardWheel(w);
    for (auto* w : root->findChildren<QComboBox*>())
        guardWheel(w);
    for (auto* w : root->findChildren<QSlider*>())
        guardWheel(w);
    // Line edits, the spin boxes' own included: the undo shortcut.
    for (auto* w : root->findChildren<QLineEdit*>())
        w->installEventFilter(this);
}

bool FieldInputGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Wheel) {
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && !w->hasFocus() && !qobject_cast<QLineEdit*>(w)) {
            // Not consumed, not handled by the field: QApplication passes an ignored wheel
            // event on to the parents, so the scroll area under the panel scrolls.
            event->ignore();
            return true;
        }
        return false;
    }
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
        // A spin box answers the override through its own line edit (QAbstractSpinBox::event),
        // past that edit's filters: ask the edit from the box.
        auto* edit = qobject_cast<QLineEdit*>(watched);
        if (auto* spin = qobject_cast<QAbstractSpinBox*>(watched))
            edit = spin->findChild<QLineEdit*>();
        if (edit && (undo || redo)) {
            // The field keeps its own undo while it holds typing to undo; otherwise the shortcut
            // goes to the window's Undo / Redo actions (the plan's undo stack).
            const bool own = undo ? edit->isUndoAvailable() : edit->isRedoAvailable();
            if (!own) {
                event->ignore();
                return true;
            }
        }
    }
    return false;
}
