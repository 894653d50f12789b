#include "ui/window/PresentationWindow.h"

#include <QKeyEvent>
#include <QPainter>

#include "render/report/ReportContext.h"
#include "render/style/Theme.h"

PresentationWindow::PresentationWindow(const trainplan::Analysis& analysis, QWidget* parent)
    : QWidget(parent, Qt::Window)
    , context_(std::make_unique<ReportContext>(analysis))
    , slides_(slideexport::slides(*context_))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("%1 — TrainPlan presentation").arg(context_->title()));
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::BlankCursor);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::black);
    setPalette(pal);
}

PresentationWindow::~PresentationWindow() = default;

void PresentationWindow::goTo(int index)
{
    current_ = std::clamp(index, 0, slideCount() - 1);
    update();
}

void PresentationWindow::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    // Letterbox the 16:9 slide in whatever screen this is.
    const double s = std::min(width() / slideexport::kWidth, height() / slideexport::kHeight);
    const QSizeF size(slideexport::kWidth * s, slideexport::kHeight * s);
    const QRectF target(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
    slideexport::paintSlide(*context_, slides_[size_t(current_)], p, target);
    p.setPen(theme::quiet());
    p.setFont(reportpainter::font(11));
    p.drawText(target.adjusted(0, 0, -20, -12), Qt::AlignRight | Qt::AlignBottom, QString("%1 / %2").arg(current_ + 1).arg(slideCount()));
}

void PresentationWindow::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_Down:
    case Qt::Key_Space:
    case Qt::Key_PageDown: goTo(current_ + 1); return;
    case Qt::Key_Left:
    case Qt::Key_Up:
    case Qt::Key_Backspace:
    case Qt::Key_PageUp: goTo(current_ - 1); return;
    case Qt::Key_Home: goTo(0); return;
    case Qt::Key_End: goTo(slideCount() - 1); return;
    case Qt::Key_Escape:
    case Qt::Key_Q: close(); return;
    default: QWidget::keyPressEvent(event);
    }
}

void PresentationWindow::mousePressEvent(QMouseEvent* event)
{
    goTo(current_ + (event->button() == Qt::RightButton ? -1 : 1));
}
