#include "ui/inputs/ValueSlider.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/inputs/CandidateSpinBox.h"

ValueSlider::ValueSlider(const QString& title, QWidget* parent)
    : QWidget(parent)
    , baseTitle_(title)
    , title_(new QLabel(title, this))
    , slider_(new QSlider(Qt::Horizontal, this))
    , spin_(new CandidateSpinBox(this))
{
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    title_->setMinimumWidth(56);
    row->addWidget(title_);
    row->addWidget(slider_, 1);
    row->addWidget(spin_);
    spin_->setCandidates(&values_);
    fitSpin();
    slider_->setTracking(true);
    slider_->setPageStep(1);
    connect(slider_, &QSlider::valueChanged, this, &ValueSlider::onSliderMoved);
    connect(slider_, &QSlider::sliderReleased, this, &ValueSlider::dragFinished);
    connect(spin_, &QSpinBox::editingFinished, this, [this] {
        onSpinEdited(spin_->value());
        emit dragFinished();
    });
}

void ValueSlider::setCandidates(std::vector<int> values, int current)
{
    if (std::find(values.begin(), values.end(), current) == values.end()) {
        values.push_back(current);
        std::sort(values.begin(), values.end());
    }
    values_ = std::move(values);
    const QSignalBlocker b1(slider_), b2(spin_);
    slider_->setRange(0, int(values_.size()) - 1);
    slider_->setValue(int(std::lower_bound(values_.begin(), values_.end(), current) - values_.begin()));
    // Every tick sets every slider's candidates, mostly to the same range: only a new one is
    // worth setRange() and measuring the spin box again (fitSpin).
    if (spin_->minimum() != values_.front() || spin_->maximum() != values_.back()) {
        spin_->setRange(values_.front(), values_.back());
        fitSpin();
    }
    if (spin_->value() != current)  // setValue re-sets the same text, with its events, even then
        spin_->setValue(current);
}

// The spin box keeps a fixed size, at least 82 px wide and as wide as its widest value: a
// widget of fixed size asks no layout to change when its range does (QWidget::updateGeometry),
// and a drag changes the other sliders' ranges on most ticks.
void ValueSlider::fitSpin()
{
    const QSize hint = spin_->sizeHint();
    const QSize size(std::max(82, hint.width()), hint.height());
    if (spin_->minimumSize() != size || spin_->maximumSize() != size)
        spin_->setFixedSize(size);
}

int ValueSlider::value() const
{
    return spin_->value();
}

void ValueSlider::setSuffix(const QString& suffix)
{
    spin_->setSuffix(suffix);
    fitSpin();
}

void ValueSlider::setFollowing(bool following, const QString& why)
{
    // Called on every tick, almost always with what is shown: measuring the box is not free.
    if (spin_->isReadOnly() == following && toolTip() == (following ? why : QString()))
        return;
    slider_->setEnabled(!following);
    spin_->setReadOnly(following);
    spin_->setButtonSymbols(following ? QAbstractSpinBox::NoButtons : QAbstractSpinBox::UpDownArrows);
    fitSpin();
    setToolTip(following ? why : QString());
    title_->setText(following ? baseTitle_ + QStringLiteral(" \u2190") : baseTitle_);
}

void ValueSlider::moveTo(int value)
{
    const auto it = std::lower_bound(values_.begin(), values_.end(), value);
    if (it != values_.end())
        slider_->setValue(int(it - values_.begin()));
}

void ValueSlider::onSliderMoved(int index)
{
    if (index < 0 || index >= int(values_.size()))
        return;
    const int v = values_[index];
    {
        const QSignalBlocker b(spin_);
        spin_->setValue(v);
    }
    emit valueEdited(v);
}

void ValueSlider::onSpinEdited(int value)
{
    const int v = spin_->nearest(value);
    if (v == values_[size_t(slider_->value())])
        return;
    {
        const QSignalBlocker b(slider_);
        slider_->setValue(int(std::lower_bound(values_.begin(), values_.end(), v) - values_.begin()));
    }
    emit valueEdited(v);
}
