// The pipeline timeline pane : a TimelineScene on a widget that follows the
// document. A tool row toggles the schedule comparison and fits the step to the view; the
// canvas under it zooms with the wheel, pans by dragging, fits on double-click and shows
// each block's details on hover.
#pragma once

#include <QImage>
#include <QWidget>

#include <optional>

#include "render/timeline/TimelineScene.h"
#include "ui/document/StepShape.h"

class PlanDocument;
class QAction;
class QLabel;
class QScrollBar;
class TimelineCanvas;

class TimelineView : public QWidget {
    Q_OBJECT

public:
    explicit TimelineView(PlanDocument* document, QWidget* parent = nullptr);

    TimelineScene& scene() { return scene_; }
    const TimelineScene& scene() const { return scene_; }
    TimelineCanvas* canvas() const { return canvas_; }
    // Beside the canvas while the rows, at their legible height, are taller than it.
    QScrollBar* rowScrollBar() const { return rowScroll_; }

    // Also for a menu or the pane's title bar.
    QAction* compareAction() const { return compare_; }  // checkable
    QAction* fitAction() const { return fit_; }
    void setComparison(bool on);
    bool comparison() const { return scene_.comparison(); }

    // The scene as the canvas shows it, at any size (exports, tests, screenshots).
    QImage renderImage(const QSize& size, double devicePixelRatio = 1.0);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void updateRowScroll();

    PlanDocument* doc_;
    TimelineScene scene_;
    std::optional<StepShape> scheduled_;  // what the shown schedule was simulated from
    TimelineCanvas* canvas_;
    QAction* compare_;
    QAction* fit_;
    QLabel* hint_ = nullptr;
    QScrollBar* rowScroll_ = nullptr;
};
