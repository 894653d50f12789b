#include "render/report/PdfPages.h"

#include <QObject>
#include <QPageLayout>
#include <QTextDocument>

#include "render/report/ExportFile.h"
#include "render/report/ReportPainter.h"
#include "render/style/Theme.h"

namespace {

constexpr int kResolution = 96;       // as the report (PdfReport.cpp): charts lay out as in the window
constexpr double kMargin = 48;        // page edge to body, px
constexpr double kHeaderHeight = 34;  // the running header above the body, px

}  // namespace

PdfPages::PdfPages(const QString& title, QPageSize::PageSizeId pageSize)
    : title_(title)
    , buffer_(&bytes_)
    , writer_(&buffer_)
{
    buffer_.open(QIODevice::WriteOnly);
    writer_.setResolution(kResolution);
    writer_.setPageLayout(QPageLayout(QPageSize(pageSize), QPageLayout::Landscape, QMarginsF(0, 0, 0, 0)));
    writer_.setTitle(title);
    writer_.setCreator("TrainPlan");
    page_ = QRectF(QPointF(0, 0), writer_.pageLayout().fullRectPixels(kResolution).size());
    body_ = page_.adjusted(kMargin, kMargin + kHeaderHeight, -kMargin, -kMargin);
}

PdfPages::~PdfPages() = default;

bool PdfPages::begin(const QString& path, QString* error)
{
    if (!painter_.begin(&writer_)) {
        *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

void PdfPages::startPage(int pages)
{
    if (pageNumber_ > 0)
        writer_.newPage();
    ++pageNumber_;
    painter_.setFont(reportpainter::font(8));
    painter_.setPen(theme::faint());
    const QRectF header(body_.left(), body_.top() - kHeaderHeight, body_.width(), 16);
    painter_.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, title_);
    painter_.drawText(header, Qt::AlignRight | Qt::AlignVCenter, QObject::tr("page %1 of %2").arg(pageNumber_).arg(pages));
    painter_.setPen(QPen(theme::border(), 0.8));
    painter_.drawLine(QPointF(body_.left(), header.bottom() + 4), QPointF(body_.right(), header.bottom() + 4));
}

double PdfPages::heading(const QRectF& rect, const QString& text)
{
    painter_.setFont(reportpainter::font(14, true));
    painter_.setPen(theme::ink());
    painter_.drawText(QRectF(rect.left(), rect.top(), rect.width(), kHeading), Qt::AlignLeft | Qt::AlignTop, text);
    return kHeading;
}

std::unique_ptr<QTextDocument> PdfPages::layout(const QString& html) const
{
    auto doc = std::make_unique<QTextDocument>();
    doc->setDefaultFont(reportpainter::font(10));
    doc->setHtml(html);
    doc->setPageSize(QSizeF(body_.width(), body_.height() - kHeading));
    return doc;
}

int PdfPages::htmlPages(const QString& html)
{
    return std::max(1, layout(html)->pageCount());
}

void PdfPages::drawFlowingHtml(const QString& html, int index, const QString& title)
{
    const auto doc = layout(html);
    heading(body_, title);
    const double pageH = body_.height() - kHeading;
    painter_.save();
    painter_.translate(body_.left(), body_.top() + kHeading - index * pageH);
    const QRectF clip(0, index * pageH, body_.width(), pageH);
    painter_.setClipRect(clip);
    doc->drawContents(&painter_, clip);
    painter_.restore();
}

bool PdfPages::finish(const QString& path, QString* error)
{
    if (!painter_.end()) {
        *error = QObject::tr("Cannot make the PDF %1").arg(path);
        return false;
    }
    return exportfile::write(path, bytes_, error);
}
