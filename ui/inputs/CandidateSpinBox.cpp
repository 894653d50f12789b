#include "ui/inputs/CandidateSpinBox.h"

#include <algorithm>
#include <cstdlib>

CandidateSpinBox::CandidateSpinBox(QWidget* parent)
    : QSpinBox(parent)
{
    setKeyboardTracking(false);
    setAccelerated(true);
}

int CandidateSpinBox::nearest(int v) const
{
    if (!values_ || values_->empty())
        return v;
    return *std::min_element(values_->begin(), values_->end(), [v](int a, int b) { return std::abs(a - v) < std::abs(b - v); });
}

void CandidateSpinBox::stepBy(int steps)
{
    if (!values_ || values_->empty())
        return QSpinBox::stepBy(steps);
    auto it = std::lower_bound(values_->begin(), values_->end(), value());
    int index = int(it - values_->begin());
    if (it == values_->end() || *it != value())
        index = steps > 0 ? index - 1 : index;
    index = std::clamp(index + steps, 0, int(values_->size()) - 1);
    setValue((*values_)[index]);
    emit editingFinished();
}

void CandidateSpinBox::fixup(QString& input) const
{
    bool ok = false;
    const int v = valueFromText(input);
    Q_UNUSED(ok);
    input = textFromValue(nearest(v));
}

QValidator::State CandidateSpinBox::validate(QString& input, int& pos) const
{
    const QValidator::State s = QSpinBox::validate(input, pos);
    if (s != QValidator::Acceptable || !values_)
        return s;
    const int v = valueFromText(input);
    return std::binary_search(values_->begin(), values_->end(), v) ? QValidator::Acceptable : QValidator::Intermediate;
}
