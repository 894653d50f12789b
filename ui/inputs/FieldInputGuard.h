// Makes the input panel's fields behave as desktop settings panels do (Qt Creator, KDE's System
// Settings): the mouse wheel scrolls the panel and changes a spin box, combo box or slider only
// once that field has focus; Ctrl+Z / Ctrl+Shift+Z reach the plan's undo stack from any field
// unless the field itself holds typing to undo.
#pragma once

#include <QObject>

class QWidget;

class FieldInputGuard : public QObject {
    Q_OBJECT

public:
    explicit FieldInputGuard(QObject* parent = nullptr);

    // Guards every spin box, combo box, slider (not scroll bars) and line edit under root.
    void guardChildrenOf(QWidget* root);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};
