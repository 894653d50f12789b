#include "render/report/PdfReport.h"

#include <QFileInfo>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QBuffer>
#include <QTextDocument>

#include <algorithm>
#include <functional>
#include <vector>

#include "core/base/Format.h"
#include "core/plan/EnumNames.h"
#include "core/text/Derivation.h"
#include "render/report/DerivationHtml.h"
#include "render/report/ExportFile.h"
#include "render/report/PageFlow.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportPainter.h"
#include "render/report/ReportSection.h"
#include "render/style/Theme.h"

namespace pdfreport {

namespace {

// 96 units per inch: the same logical DPI as the screen, so charts lay out as they do
// in the window; all drawing is floating point, so nothing is lost in the PDF.
constexpr int kResolution = 96;
constexpr double kHeadingHeight = 30;  // a section heading's line, px
constexpr double kGap = 14;            // between blocks on a page, px

// One piece of the report: a section heading (or none, for a section's later pieces) over a
// drawing or rich text, with the height it needs; PageFlow decides where it goes.
struct ReportBlock {
    QString section;  // for the page header
    QString heading;  // drawn above the content; empty for none
    FlowBlock size;   // heading included
    std::function<void(QPainter&, const QRectF&)> paint;  // the content, below the heading
};

void paintHeading(QPainter& p, const QRectF& rect, const QString& text)
{
    p.setFont(reportpainter::font(15, true));
    p.setPen(theme::ink());
    p.drawText(rect, Qt::AlignLeft | Qt::AlignTop, text);
}

void paintFrame(
    QPainter& p, const QRectF& page, const QRectF& body, const ReportContext& ctx, const QString& heading, int number, int total)
{
    p.setFont(reportpainter::font(8));
    p.setPen(theme::faint());
    const QRectF header(body.left(), page.top() + 28, body.width(), 16);
    p.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, QString("TrainPlan · %1").arg(ctx.title()));
    p.drawText(header, Qt::AlignRight | Qt::AlignVCenter, heading);
    p.setPen(QPen(theme::border(), 0.8));
    p.drawLine(QPointF(body.left(), header.bottom() + 4), QPointF(body.right(), header.bottom() + 4));
    const QRectF footer(body.left(), page.bottom() - 40, body.width(), 16);
    p.setPen(theme::faint());
    p.drawText(footer, Qt::AlignLeft | Qt::AlignVCenter, ctx.created().toString("yyyy-MM-dd HH:mm"));
    p.drawText(footer, Qt::AlignRight | Qt::AlignVCenter, QObject::tr("Page %1 of %2").arg(number).arg(total));
}

void paintHtml(QPainter& p, const QRectF& rect, const QString& html)
{
    QTextDocument doc;
    doc.setDefaultFont(reportpainter::font(10));
    doc.setHtml(html);
    doc.setTextWidth(rect.width());
    p.save();
    p.translate(rect.topLeft());
    const QRectF clip(0, 0, rect.width(), rect.height() + 1);
    p.setClipRect(clip);
    doc.drawContents(&p, clip);
    p.restore();
}

QString page(const QString& body)
{
    return theme::styled(QString("<html><body style='font-family:DejaVu Sans; font-size:10pt; color:@ink'>%1</body></html>").arg(body));
}

// Rich text of its measured height, under an optional heading.
ReportBlock textBlock(const QString& section, const QString& heading, const QString& html, double width)
{
    const double h = reportpainter::htmlHeight(html, width) + (heading.isEmpty() ? 0 : kHeadingHeight);
    return {section, heading, FlowBlock{h, 0, 0}, [html](QPainter& p, const QRectF& r) { paintHtml(p, r, html); }};
}

// A drawing that can shrink to `low` or grow to `high` to fill its page.
ReportBlock drawingBlock(const QString& section, const QString& heading, double preferred, double low, double high,
                         std::function<void(QPainter&, const QRectF&)> paint)
{
    const double extra = heading.isEmpty() ? 0 : kHeadingHeight;
    return {section, heading, FlowBlock{preferred + extra, low + extra, high + extra}, std::move(paint)};
}

ReportBlock viewBlock(
    const ReportContext& ctx, const QString& section, const QString& heading, ReportView view, double preferred, double low, double high)
{
    return drawingBlock(section, heading, preferred, low, high,
                        [&ctx, view](QPainter& p, const QRectF& r) { reportpainter::paint(view, ctx, p, r); });
}

// The title block: the plan's title and the plan in a line (both wrapping), the date, the ask.
struct TitleLayout {
    QString planLine;
    double titleHeight = 0;
    double planLineHeight = 0;
    double askHeight = 0;
    double height() const { return titleHeight + planLineHeight + 28 + askHeight; }
};

TitleLayout titleLayout(const ReportContext& ctx, const QString& askLine, double width)
{
    const auto& plan = ctx.plan();
    const auto& l = plan.layout;
    TitleLayout t;
    t.planLine = QString("%1 · %2 × %3 · %4 · ZeRO-%5 · %6")
                     .arg(QString::fromStdString(plan.model.name))
                     .arg(QString::fromStdString(trainplan::formatInteger(plan.cluster.gpus)))
                     .arg(QString::fromStdString(plan.cluster.accelerator))
                     .arg(QString::fromStdString(trainplan::layoutSizesText(l)))
                     .arg(l.zeroStage)
                     .arg(QString::fromStdString(std::string(trainplan::nameOf(trainplan::kScheduleNames, l.schedule))));
    t.titleHeight =
        QFontMetricsF(reportpainter::font(22, true)).boundingRect(QRectF(0, 0, width, 1000), Qt::TextWordWrap, ctx.title()).height() + 4;
    t.planLineHeight =
        QFontMetricsF(reportpainter::font(11)).boundingRect(QRectF(0, 0, width, 1000), Qt::TextWordWrap, t.planLine).height() + 6;
    t.askHeight = reportpainter::htmlHeight(page("<b>" + askLine + "</b>"), width);
    return t;
}

void paintTitle(QPainter& p, const QRectF& r, const ReportContext& ctx, const QString& askLine)
{
    const TitleLayout t = titleLayout(ctx, askLine, r.width());
    p.setFont(reportpainter::font(22, true));
    p.setPen(theme::ink());
    p.drawText(QRectF(r.left(), r.top(), r.width(), t.titleHeight), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, ctx.title());
    p.setFont(reportpainter::font(11));
    p.setPen(theme::inkSoft());
    double y = r.top() + t.titleHeight;
    p.drawText(QRectF(r.left(), y, r.width(), t.planLineHeight), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, t.planLine);
    y += t.planLineHeight;
    p.setPen(theme::faint());
    p.drawText(QRectF(r.left(), y, r.width(), 22), Qt::AlignLeft | Qt::AlignVCenter,
               QObject::tr("Report created %1 by TrainPlan").arg(ctx.created().toString("d MMMM yyyy, HH:mm")));
    paintHtml(p, QRectF(r.left(), y + 28, r.width(), t.askHeight), page("<b>" + askLine + "</b>"));
}

// A drawing's preferred height on a page, and how far it may shrink or grow to fill one.
struct DrawingHeights {
    double preferred, low, high;
};

DrawingHeights drawingHeights(const ReportContext& ctx, ReportView view, const QSizeF& body)
{
    switch (view) {
    case ReportView::Summary:
        return {4 * 82 + 30, 4 * 70 + 30, 4 * 96 + 30};  // headline figures: two columns of four cards
    case ReportView::Memory:
        return {290, 180, 380};
    case ReportView::StepTime:
        return {190, 140, 250};
    case ReportView::Timeline:
        return {330, 220, 480};
    case ReportView::Sensitivity:
        return {300, 220, 420};
    case ReportView::Sizing:
        return {380, 280, 480};
    case ReportView::Layout: {
        // The height the diagram draws at this width, at most a page under a heading.
        const double full = body.height() - kHeadingHeight;
        const double diagram = std::clamp(reportpainter::layoutDiagramHeight(ctx, body.width()), 200.0, full);
        return {diagram, 0.75 * diagram, diagram};
    }
    default:
        return {300, 200, 400};
    }
}

// One block per part of every section the document shows (ReportContext::sections()), the
// section's title over its first part when it is headed: pages break only between parts.
std::vector<ReportBlock> reportBlocks(const ReportContext& ctx, const QSizeF& body)
{
    const double w = body.width();
    std::vector<ReportBlock> out;
    for (const ReportSection& section : ctx.sections()) {
        if (!section.inDocument)
            continue;
        for (size_t i = 0; i < section.parts.size(); ++i) {
            const ReportPart& part = section.parts[i];
            const QString heading = section.headed && i == 0 ? section.title : QString();
            switch (part.kind) {
            case ReportPartKind::Title: {
                const QString askLine = part.html;
                out.push_back({section.title, heading, FlowBlock{titleLayout(ctx, askLine, w).height(), 0, 0},
                               [&ctx, askLine](QPainter& p, const QRectF& r) { paintTitle(p, r, ctx, askLine); }});
                break;
            }
            case ReportPartKind::Drawing: {
                const DrawingHeights h = drawingHeights(ctx, part.view, body);
                out.push_back(viewBlock(ctx, section.title, heading, part.view, h.preferred, h.low, h.high));
                break;
            }
            case ReportPartKind::Text:
                out.push_back(textBlock(section.title, heading, page(part.html), w));
                break;
            case ReportPartKind::Derivation:
                out.push_back(textBlock(
                    section.title, heading, derivationhtml::render(ctx.derivation(), part.section, 1.0, part.first, part.last), w));
                break;
            }
        }
    }
    return out;
}

QRectF bodyOf(const QRectF& page)
{
    return page.adjusted(54, 62, -54, -58);
}

QRectF pageRectOf(QPageSize::PageSizeId pageSize)
{
    const QPageLayout layout(QPageSize(pageSize), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0));
    return QRectF(QPointF(0, 0), layout.fullRectPixels(kResolution).size());
}

std::vector<FlowPlacement> flow(const std::vector<ReportBlock>& blocks, const QSizeF& body)
{
    std::vector<FlowBlock> sizes;
    for (const auto& b : blocks)
        sizes.push_back(b.size);
    return PageFlow(body, kGap).place(sizes);
}

}  // namespace

std::vector<double> pageFill(const ReportContext& ctx, QPageSize::PageSizeId pageSize)
{
    const QRectF body = bodyOf(pageRectOf(pageSize));
    const auto placed = flow(reportBlocks(ctx, body.size()), body.size());
    std::vector<double> fill(size_t(PageFlow::pageCount(placed)), 0.0);
    for (const auto& p : placed)
        fill[size_t(p.page)] = std::max(fill[size_t(p.page)], p.rect.bottom() / body.height());
    return fill;
}

bool write(const ReportContext& ctx, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pagesOut)
{
    // Made in memory, then written by the one atomic writer (ExportFile.h): a full disk fails the
    // export and leaves the previous PDF as it was.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setResolution(kResolution);
    writer.setPageLayout(QPageLayout(QPageSize(pageSize), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(QObject::tr("TrainPlan report: %1").arg(ctx.title()));
    writer.setCreator("TrainPlan");
    const QRectF pageRect(QPointF(0, 0), writer.pageLayout().fullRectPixels(kResolution).size());
    const QRectF body = bodyOf(pageRect);

    // Measure every block and flow them onto pages first, so each footer can say "page n of N".
    const std::vector<ReportBlock> blocks = reportBlocks(ctx, body.size());
    const std::vector<FlowPlacement> placed = flow(blocks, body.size());
    const int pages = PageFlow::pageCount(placed);

    QPainter p;
    if (!p.begin(&writer)) {
        *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
        const bool first = i == 0 || placed[i].page != placed[i - 1].page;
        if (first) {
            if (i > 0)
                writer.newPage();
            paintFrame(p, pageRect, body, ctx, blocks[i].section, placed[i].page + 1, pages);
        }
        QRectF r = placed[i].rect.translated(body.topLeft());
        if (!blocks[i].heading.isEmpty()) {
            paintHeading(p, QRectF(r.left(), r.top(), r.width(), kHeadingHeight), blocks[i].heading);
            r.setTop(r.top() + kHeadingHeight);
        }
        blocks[i].paint(p, r);
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

}  // namespace pdfreport
