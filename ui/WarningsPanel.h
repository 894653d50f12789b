// Red flags: every warning of the estimate with a severity icon. Activating one asks the
// window to highlight the control responsible (the warning's JSON field).
#pragma once

#include <QListWidget>

class PlanDocument;

class WarningsPanel : public QListWidget {
    Q_OBJECT

public:
    explicit WarningsPanel(PlanDocument* document, QWidget* parent = nullptr);
    QStringList codes() const;  // the codes currently listed, for tests

signals:
    void fieldActivated(const QString& jsonPath);

private:
    void refresh();

    PlanDocument* doc_;
};
