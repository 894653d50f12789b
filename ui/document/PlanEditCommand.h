// One undoable change of the plan, stored as the plans before and after. Commands with
// the same merge key and serial fold into one, so a slider drag is a single undo step.
#pragma once

#include <QUndoCommand>

#include "core/plan/Plan.h"

class PlanDocument;

class PlanEditCommand : public QUndoCommand {
public:
    PlanEditCommand(PlanDocument* document, trainplan::Plan before, trainplan::Plan after, const QString& text, int mergeKey, int serial);

    void undo() override;
    void redo() override;
    int id() const override { return mergeKey_ == 0 ? -1 : mergeKey_; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    PlanDocument* document_;
    trainplan::Plan before_;
    trainplan::Plan after_;
    int mergeKey_;
    int serial_;
};
