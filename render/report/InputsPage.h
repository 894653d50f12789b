// The report's inputs page as data: the plan's inputs in sections of labelled rows. Each label is
// the plan-field table's title (and symbol) of the fields the row shows, and each number is in the
// unit the window shows it in (plan/ShownUnits.h); the fields are looked up when the page is made,
// so a field the table does not have cannot be shown (planField throws std::logic_error).
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "core/estimate/Estimate.h"

namespace inputspage {

struct Row {
    QString label;       // "Layers L", "Heads a / KV heads / Head size d"
    QString value;       // "80", "64 / 8 / 128"; "(assumed)" after a value the plan left unknown
    QStringList fields;  // the plan paths the label names; empty for a derived figure
};

struct Section {
    QString title;  // "Model"
    std::vector<Row> rows;
};

std::vector<Section> sections(const trainplan::Plan& plan, const trainplan::Estimate& estimate);
// Two columns of tables: model and cluster, then training, framework, layout and reliability.
QString html(const std::vector<Section>& sections);

}  // namespace inputspage
