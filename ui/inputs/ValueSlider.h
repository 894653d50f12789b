// A labelled slider with a spin box beside it that steps through a list of valid values
// (divisors, multiples, percentages) rather than every integer.
#pragma once

#include <QWidget>

#include <vector>

class QLabel;
class QSlider;
class CandidateSpinBox;

class ValueSlider : public QWidget {
    Q_OBJECT

public:
    explicit ValueSlider(const QString& title, QWidget* parent = nullptr);

    // Replaces the valid values and shows `current` (added to the list if absent, so an
    // inconsistent plan is shown as it is rather than silently clamped).
    void setCandidates(std::vector<int> values, int current);
    int value() const;
    const QString& title() const { return baseTitle_; }
    void setSuffix(const QString& suffix);
    void setFollowing(bool following, const QString& why = {});
    QSlider* slider() const { return slider_; }
    CandidateSpinBox* spinBox() const { return spin_; }

    // Moves to `value` as a person would (emits valueEdited); used by tests and benchmarks.
    void moveTo(int value);

signals:
    void valueEdited(int value);
    void dragFinished();

private:
    void fitSpin();
    void onSliderMoved(int index);
    void onSpinEdited(int value);

    QString baseTitle_;
    QLabel* title_;
    QSlider* slider_;
    CandidateSpinBox* spin_;
    std::vector<int> values_;
};
