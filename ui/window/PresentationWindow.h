// Presentation mode: full screen, large type, one slide at a time (the same slides the
// export writes: headline figures, charts, timeline, layout, red flags, then the math
// section by section). Arrows, space and page keys step; Home and End jump; Esc leaves.
#pragma once

#include <QWidget>

#include <memory>
#include <vector>

#include "core/analysis/Analysis.h"
#include "render/report/SlideExport.h"

class ReportContext;

class PresentationWindow : public QWidget {
    Q_OBJECT

public:
    explicit PresentationWindow(const trainplan::Analysis& analysis, QWidget* parent = nullptr);
    ~PresentationWindow() override;

    int slideCount() const { return int(slides_.size()); }
    int currentSlide() const { return current_; }
    void goTo(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    std::unique_ptr<ReportContext> context_;
    std::vector<Slide> slides_;
    int current_ = 0;
};
