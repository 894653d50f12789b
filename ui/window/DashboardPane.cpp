#include "ui/window/DashboardPane.h"
#include "render/style/Markup.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

DashboardPane::DashboardPane(const QString& title, QWidget* content, Header header, QWidget* parent)
    : QFrame(parent)
    , content_(content)
    , title_(new QLabel(QString("<b>%1</b>").arg(markup::escaped(title)), this))
    , enlarge_(new QToolButton(this))
    , export_(new QToolButton(this))
{
    setFrameShape(QFrame::StyledPanel);
    enlarge_->setAutoRaise(true);
    enlarge_->setCheckable(true);
    enlarge_->setIcon(style()->standardIcon(QStyle::SP_TitleBarMaxButton));
    enlarge_->setToolTip(tr("Enlarge this pane (double-click the title does the same)"));
    connect(enlarge_, &QToolButton::toggled, this, [this](bool on) {
        enlarged_ = on;
        enlarge_->setIcon(style()->standardIcon(on ? QStyle::SP_TitleBarNormalButton : QStyle::SP_TitleBarMaxButton));
        emit enlargeToggled(on);
    });
    export_->setAutoRaise(true);
    export_->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    export_->setToolTip(tr("Export this view as PNG (1920x1080 or @2x) or SVG"));
    export_->hide();
    connect(export_, &QToolButton::clicked, this, &DashboardPane::exportRequested);
    if (header == Header::Beside) {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(6, 2, 4, 2);
        layout->setSpacing(2);
        layout->addWidget(title_, 0, Qt::AlignTop);
        layout->addSpacing(4);
        layout->addWidget(content_, 1);
        layout->addWidget(export_, 0, Qt::AlignTop);
        layout->addWidget(enlarge_, 0, Qt::AlignTop);
        title_->setContentsMargins(0, 4, 0, 0);
        headerAbove_ = false;
        return;
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 4);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->addWidget(title_, 1);
    bar->addWidget(export_);
    bar->addWidget(enlarge_);
    layout->addLayout(bar);
    layout->addWidget(content_, 1);
}

void DashboardPane::enableExport()
{
    export_->show();
}

void DashboardPane::setEnlarged(bool enlarged)
{
    enlarge_->setChecked(enlarged);
}

void DashboardPane::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (title_->geometry().adjusted(-4, -4, 4, 4).contains(event->position().toPoint())
        || (headerAbove_ && event->position().y() < 28))
        setEnlarged(!enlarged_);
    QFrame::mouseDoubleClickEvent(event);
}
