// The one owner of the plan being edited: the plan, its latest estimate, the undo stack
// and the file it came from. Views read from it and edit only through it.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <functional>

#include "core/analysis/Analysis.h"
#include "core/search/LayoutAdjuster.h"

class PlanDocument : public QObject {
    Q_OBJECT

public:
    explicit PlanDocument(QObject* parent = nullptr);
    // Silent while it dies: the undo stack's destructor reports "clean" again, and whoever
    // listened (the window's title) may already be half destroyed.
    ~PlanDocument() override;

    const trainplan::Plan& plan() const { return plan_; }
    // Everything the views show, computed once per change (core analyse()).
    const trainplan::Analysis& analysis() const { return analysis_; }
    const trainplan::Estimate& estimate() const { return analysis_.estimate; }
    const trainplan::PredictedStep& predicted() const { return analysis_.predicted; }
    // Time and cost come from the assumed MFU or from the predicted step; the person chooses.
    using TimeBasis = trainplan::TimeBasis;
    TimeBasis timeBasis() const { return timeBasis_; }
    void setTimeBasis(TimeBasis basis);
    // The estimate whose time figures follow the chosen basis (memory and the rest agree
    // with estimate(); only MFU-dependent figures differ).
    const trainplan::Estimate& timeEstimate() const { return analysis_.timeEstimate(timeBasis_); }
    const trainplan::Estimate& predictedEstimate() const { return analysis_.atPredictedMfu; }
    QUndoStack* undoStack() { return &undo_; }

    // One edit = one undo step, except that edits sharing a non-zero mergeKey merge until
    // endMerge() (a whole slider drag is one undo step; Tiled's mergeable commands).
    void edit(const QString& description, const std::function<void(trainplan::Plan&)>& change, int mergeKey = 0);
    void applyPlan(const trainplan::Plan& plan, const QString& description, int mergeKey = 0);
    void endMerge()
    {
        ++mergeSerial_;
        emit mergeEnded();
    }
    // True while planChanged is emitted for an edit with a non-zero mergeKey: one step of a drag
    // (or of arrow keys on a slider), which more are likely to follow within moments.
    bool isContinuingEdit() const { return continuingEdit_; }
    // The plan's name as typed; blank returns it to the generated name (planfile/PlanName.h).
    // One undo step, and none when the text is the current name.
    void setName(const QString& typed);
    int mergeSerial() const { return mergeSerial_; }

    // Moves one layout dimension; the follower keeps TP x PP x DP x CP = GPUs.
    void setLayoutDimension(trainplan::ParallelDim d, int value, int mergeKey = 0);
    trainplan::Follower follower() const { return follower_; }
    void setFollower(trainplan::Follower f);

    // Files. Errors come back as text naming the field (JSON path) for a message box.
    void resetTo(const trainplan::Plan& plan, const QString& path = {});
    bool load(const QString& path, QString* error);
    bool save(const QString& path, QString* error);
    // Unsaved work recovered after a crash: the file it was edited from (when it still reads) is
    // the clean state and the recovered plan one undoable step on top, so nothing reaches the
    // file until the person saves.
    void restoreRecovered(const trainplan::Plan& plan, const QString& originalPath);
    QString filePath() const { return path_; }
    bool isModified() const { return !undo_.isClean(); }
    QString displayName() const;

signals:
    void planChanged();        // the plan and its estimate changed
    void fileStateChanged();   // path or modified flag changed
    void followerChanged();
    void timeBasisChanged();
    void mergeEnded();  // endMerge(): a drag ended (its slider was released)

private:
    friend class PlanEditCommand;  // the undo path is the only way to replace the plan in place
    void setPlanFromCommand(const trainplan::Plan& plan);
    void recompute();

    trainplan::Plan plan_;
    trainplan::Analyser analyser_;
    trainplan::Analysis analysis_;
    TimeBasis timeBasis_ = TimeBasis::Predicted;  // what a budget rests on, as the PDF report leads
    QUndoStack undo_;
    QString path_;
    int mergeSerial_ = 0;
    bool continuingEdit_ = false;
    trainplan::Follower follower_ = trainplan::Follower::of(trainplan::ParallelDim::Dp);
};
