// The layout diagram pane: LayoutDiagramPainter on a widget that follows the document.
// Hover a GPU for its rank, node, local GPU and TP/CP/DP/PP coordinates (a block of nodes or
// a stack of replicas says what it stands for); click one to light
// up its TP group, pipeline neighbours and DP group with their links; click empty space or
// press Escape to clear.
#pragma once

#include <QWidget>

#include <optional>

#include "render/layoutdiagram/LayoutDiagramPainter.h"

class PlanDocument;

class LayoutDiagramView : public QWidget {
    Q_OBJECT

public:
    explicit LayoutDiagramView(PlanDocument* document, QWidget* parent = nullptr);

    const LayoutDiagramPainter& diagram() const { return diagram_; }
    void selectRank(std::optional<int> rank);
    std::optional<int> selectedRank() const { return diagram_.selectedRank(); }
    int paintCount() const { return paintCount_; }  // how many times the pane has painted

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void selectedRankChanged(int rank);  // -1 when nothing is selected

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void refresh();

    PlanDocument* doc_;
    LayoutDiagramPainter diagram_;
    // What the diagram was drawn from (its ranks, nodes and stages read only these): an edit
    // that leaves them alone (the assumed MFU, the token budget...) neither rebuilds nor repaints it.
    std::optional<trainplan::LayoutSpec> drawnLayout_;
    trainplan::ClusterSpec drawnCluster_;
    trainplan::ModelSpec drawnModel_;
    int paintCount_ = 0;
};
