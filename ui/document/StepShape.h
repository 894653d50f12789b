// What one training step's picture reads from a plan: the model, the cluster, the training
// settings less the assumed MFU and the token budget (a basis for the run's figures and a count
// of steps, not what a step is), the layout and the framework. Views that draw one step (memory
// per stage, the pipeline schedule) keep the shape they drew and skip an edit that leaves it
// alone; the plan's name, notes, reliability and cost never reach them.
#pragma once

#include "core/plan/Plan.h"

struct StepShape {
    trainplan::ModelSpec model;
    trainplan::ClusterSpec cluster;
    trainplan::TrainingSpec training;
    trainplan::LayoutSpec layout;
    trainplan::FrameworkSpec framework;

    static StepShape of(const trainplan::Plan& plan)
    {
        StepShape shape{plan.model, plan.cluster, plan.training, plan.layout, plan.framework};
        shape.training.mfu = 0;
        shape.training.tokens = 0;
        return shape;
    }
    bool operator==(const StepShape&) const = default;
};
