// Layers per pipeline stage (layout.stage_layers) as one line, "19, 21, 21, 19", beside PP:
// checked as typed (one entry per stage, summing to the model's layers, each at least one)
// with the reason shown under the field, and a button back to the even split.
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "core/plan/Plan.h"

class QLabel;
class QLineEdit;
class QToolButton;

class StageLayersEdit : public QWidget {
    Q_OBJECT

public:
    explicit StageLayersEdit(QWidget* parent = nullptr);

    // Shows the plan's split (the even one when layout.stage_layers is empty). A draft that
    // failed its check stays, with its reason, while PP and the layer count are unchanged.
    void showPlan(const trainplan::Plan& plan);

    // "19, 21, 21, 19" read for PP stages of `layers` layers: the counts, or why not (empty
    // when they are valid), worded as the field's label says it.
    static QString check(const QString& text, int pp, int layers, std::vector<int>* counts);

    QLineEdit* lineEdit() const { return edit_; }
    QToolButton* evenButton() const { return even_; }
    QString note() const;  // the line under the field: the check's reason, or what the split is

signals:
    // A valid split typed by the person; empty means the even split.
    void splitEdited(const std::vector<int>& layersPerStage);

private:
    void commit();
    void setNote(const QString& text, bool problem);
    void showPlanNote();

    QLineEdit* edit_;
    QToolButton* even_;
    QLabel* note_;
    int pp_ = 0;
    trainplan::ModelSpec model_;  // its layers and kinds: the default split depends on both
    std::vector<int> shown_;
    bool explicitSplit_ = false;
    bool draftRejected_ = false;
};
