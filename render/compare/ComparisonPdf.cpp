#include "render/compare/ComparisonPdf.h"

#include <QBuffer>
#include <QObject>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>

#include "render/compare/ComparisonHtml.h"
#include "render/compare/ComparisonSet.h"
#include "render/compare/MemoryComparisonPainter.h"
#include "render/compare/StepComparisonPainter.h"
#include "render/report/ExportFile.h"
#include "render/report/ReportPainter.h"
#include "render/style/Theme.h"

namespace comparisonpdf {

namespace {

// 96 units per inch, as the report (PdfReport.cpp): charts lay out as they do in the window.
constexpr int kResolution = 96;
constexpr double kMargin = 48;        // page edge to body, px
constexpr double kHeaderHeight = 34;  // the running header above the body, px
constexpr double kHeading = 28;       // a block's heading line, px

QString title(const ComparisonSet& set)
{
    QStringList letters;
    for (int i = 0; i < set.size(); ++i)
        letters << set.letter(i);
    return QObject::tr("TrainPlan comparison: %1 plans (%2)").arg(set.size()).arg(letters.join(QStringLiteral(", ")));
}

void paintHeader(QPainter& p, const QRectF& body, const ComparisonSet& set, int page, int pages)
{
    p.setFont(reportpainter::font(8));
    p.setPen(theme::faint());
    const QRectF header(body.left(), body.top() - kHeaderHeight, body.width(), 16);
    p.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, title(set));
    p.drawText(header, Qt::AlignRight | Qt::AlignVCenter, QObject::tr("page %1 of %2").arg(page).arg(pages));
    p.setPen(QPen(theme::border(), 0.8));
    p.drawLine(QPointF(body.left(), header.bottom() + 4), QPointF(body.right(), header.bottom() + 4));
}

void paintHeading(QPainter& p, const QRectF& rect, const QString& text)
{
    p.setFont(reportpainter::font(14, true));
    p.setPen(theme::ink());
    p.drawText(rect, Qt::AlignLeft | Qt::AlignTop, text);
}

}  // namespace

bool write(const ComparisonSet& set, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pagesOut)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(kResolution);
    writer.setPageLayout(QPageLayout(QPageSize(pageSize), QPageLayout::Landscape, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(title(set));
    writer.setCreator("TrainPlan");
    const QRectF pageRect(QPointF(0, 0), writer.pageLayout().fullRectPixels(kResolution).size());
    const QRectF body = pageRect.adjusted(kMargin, kMargin + kHeaderHeight, -kMargin, -kMargin);

    // The tables flow over pages of the body's size; QTextDocument breaks between lines.
    QTextDocument tables;
    tables.setDefaultFont(reportpainter::font(10));
    tables.setHtml(comparisonhtml::page(set));
    tables.setPageSize(QSizeF(body.width(), body.height() - kHeading));
    const int tablePages = std::max(1, tables.pageCount());
    const int pages = tablePages + 1 + set.size();

    QPainter p;
    if (!p.begin(&writer)) {
        *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    int page = 0;
    for (int i = 0; i < tablePages; ++i, ++page) {
        if (page > 0)
            writer.newPage();
        paintHeader(p, body, set, page + 1, pages);
        paintHeading(p, QRectF(body.left(), body.top(), body.width(), kHeading),
            i == 0 ? QObject::tr("Figures and inputs side by side") : QObject::tr("Figures and inputs (continued)"));
        const double pageH = body.height() - kHeading;
        p.save();
        p.translate(body.left(), body.top() + kHeading - i * pageH);
        const QRectF clip(0, i * pageH, body.width(), pageH);
        p.setClipRect(clip);
        tables.drawContents(&p, clip);
        p.restore();
    }

    writer.newPage();
    paintHeader(p, body, set, ++page, pages);
    StepComparisonPainter steps;
    steps.setSet(&set);
    const double stepH = std::min(steps.preferredHeight(body.width()), body.height() * 0.45);
    const double memoryH = body.height() - stepH - 2 * kHeading - 12;
    paintHeading(p, QRectF(body.left(), body.top(), body.width(), kHeading), QObject::tr("Memory per GPU by pipeline stage"));
    MemoryComparisonPainter memory;
    memory.setSet(&set);
    memory.paint(p, QRectF(body.left(), body.top() + kHeading, body.width(), memoryH));
    const double stepTop = body.top() + kHeading + memoryH + 12;
    paintHeading(p, QRectF(body.left(), stepTop, body.width(), kHeading), QObject::tr("Where each step goes (predicted)"));
    steps.paint(p, QRectF(body.left(), stepTop + kHeading, body.width(), stepH));

    for (int i = 0; i < set.size(); ++i) {
        writer.newPage();
        paintHeader(p, body, set, ++page, pages);
        const ReportContext& ctx = set.plan(i);
        paintHeading(p, QRectF(body.left(), body.top(), body.width(), kHeading), set.heading(i));
        // The diagram keeps the height it draws at this width; the schedule takes the rest.
        const double width = body.width() * 0.48;
        const double top = body.top() + kHeading + 4;
        const double height = body.bottom() - top;
        const QRectF diagram(body.left(), top, width, std::min(height, reportpainter::layoutDiagramHeight(ctx, width)));
        reportpainter::paint(ReportView::Layout, ctx, p, diagram);
        const QRectF timeline(body.left() + width + 16, top, body.width() - width - 16, height);
        reportpainter::paint(ReportView::Timeline, ctx, p, timeline);
    }
    if (!p.end()) {
        *error = QObject::tr("Cannot make the PDF %1").arg(path);
        return false;
    }
    if (!exportfile::write(path, bytes, error))
        return false;
    if (pagesOut)
        *pagesOut = pages;
    return true;
}

}  // namespace comparisonpdf
