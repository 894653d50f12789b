#include "ui/document/PlanEditCommand.h"

#include "ui/document/PlanDocument.h"

PlanEditCommand::PlanEditCommand(
    PlanDocument* document, trainplan::Plan before, trainplan::Plan after, const QString& text, int mergeKey, int serial)
    : QUndoCommand(text)
    , document_(document)
    , before_(std::move(before))
    , after_(std::move(after))
    , mergeKey_(mergeKey)
    , serial_(serial)
{
}

void PlanEditCommand::undo()
{
    document_->setPlanFromCommand(before_);
}

void PlanEditCommand::redo()
{
    document_->setPlanFromCommand(after_);
}

bool PlanEditCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const PlanEditCommand*>(other);
    if (o->mergeKey_ != mergeKey_ || o->serial_ != serial_)
        return false;
    after_ = o->after_;
    setText(o->text());  // a drag's undo entry names where it ended, not its first tick
    return true;
}
