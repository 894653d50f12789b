// A spin box whose arrows step through a list of allowed values and whose typed input
// snaps to the nearest allowed one.
#pragma once

#include <QSpinBox>

#include <vector>

class CandidateSpinBox : public QSpinBox {
    Q_OBJECT

public:
    explicit CandidateSpinBox(QWidget* parent = nullptr);
    void setCandidates(const std::vector<int>* values) { values_ = values; }
    void stepBy(int steps) override;
    void fixup(QString& input) const override;
    QValidator::State validate(QString& input, int& pos) const override;
    int nearest(int value) const;

private:
    const std::vector<int>* values_ = nullptr;
};
