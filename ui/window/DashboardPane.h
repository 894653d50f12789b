// A titled pane of the dashboard with an "enlarge" toggle: every view stays visible at a
// glance, and any one can take the whole area (docs/architecture.md).
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

class DashboardPane : public QFrame {
    Q_OBJECT

public:
    // Above: a title bar over the content (charts). Beside: the title on the content's left and
    // the buttons on its right, for a band whose height is its content (red flags).
    enum class Header { Above, Beside };
    DashboardPane(const QString& title, QWidget* content, Header header = Header::Above, QWidget* parent = nullptr);
    QWidget* content() const { return content_; }
    void setEnlarged(bool enlarged);
    // Shows an "Export…" button in the title bar that emits exportRequested.
    void enableExport();
    bool isEnlarged() const { return enlarged_; }

signals:
    void enlargeToggled(bool enlarged);
    void exportRequested();

protected:
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QWidget* content_;
    QLabel* title_;
    QToolButton* enlarge_;
    QToolButton* export_;
    bool enlarged_ = false;
    bool headerAbove_ = true;
};
