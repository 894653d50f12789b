#include "report/PdfReport.h"

#include <QFileInfo>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>

#include <vector>

#include "report/ReportContext.h"
#include "report/ReportPainter.h"
#include "plan/EnumNames.h"
#include "text/Format.h"
#include "style/Theme.h"

namespace pdfreport {

namespace {

// 96 units per inch: the same logical DPI as the screen, so charts lay out as they do
// in the window; all drawing is floating point, so nothing is lost in the PDF.
constexpr int kResolution = 96;

struct Page {
    QString heading;
    ReportView view;
    int section = 0;
    int htmlPage = 0;        // for paginated HTML views: which page of the flow
    ReportView second = ReportView::Summary;
    bool hasSecond = false;  // a second view on the same page (charts)
};

void paintFrame(QPainter& p, const QRectF& page, const QRectF& body, const ReportContext& ctx, const QString& heading, int number, int total)
{
    const QFont small = reportpainter::font(8);
    p.setFont(small);
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

void paintHeading(QPainter& p, const QRectF& rect, const QString& text)
{
    const QFont f = reportpainter::font(15, true);
    p.setFont(f);
    p.setPen(theme::ink());
    p.drawText(rect, Qt::AlignLeft | Qt::AlignTop, text);
}

void paintTitlePage(QPainter& p, const QRectF& body, const ReportContext& ctx)
{
    const auto& plan = ctx.plan();
    const auto& e = ctx.estimate();
    const QFont big = reportpainter::font(22, true);
    p.setFont(big);
    p.setPen(theme::ink());
    QRectF titleRect(body.left(), body.top() + 20, body.width(), 80);
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, ctx.title());
    const QFont sub = reportpainter::font(11);
    p.setFont(sub);
    p.setPen(theme::inkSoft());
    const auto& l = plan.layout;
    const QString line = QString("%1 · %2 × %3 · TP %4 × PP %5 × DP %6 × CP %7 · ZeRO-%8 · %9")
                             .arg(QString::fromStdString(plan.model.name))
                             .arg(plan.cluster.gpus)
                             .arg(QString::fromStdString(plan.cluster.accelerator))
                             .arg(l.tp).arg(l.pp).arg(l.dp).arg(l.cp).arg(l.zeroStage)
                             .arg(QString::fromStdString(std::string(trainplan::nameOf(trainplan::kScheduleNames, l.schedule))));
    p.drawText(QRectF(body.left(), body.top() + 100, body.width(), 40), Qt::AlignLeft | Qt::TextWordWrap, line);
    p.setPen(theme::faint());
    p.drawText(QRectF(body.left(), body.top() + 140, body.width(), 20), Qt::AlignLeft,
               QObject::tr("Report created %1 by TrainPlan").arg(ctx.created().toString("d MMMM yyyy, HH:mm")));
    const QRectF figures(body.left(), body.top() + 180, body.width(), 300);
    reportpainter::paint(ReportView::Summary, ctx, p, figures);
    int errors = 0, warnings = 0;
    for (const auto& w : e.warnings) {
        errors += w.severity == trainplan::Severity::Error;
        warnings += w.severity == trainplan::Severity::Warning;
    }
    const QFont flags = reportpainter::font(11, true);
    p.setFont(flags);
    p.setPen(errors ? theme::capacity() : warnings ? theme::severity(trainplan::Severity::Warning) : theme::ok());
    p.drawText(QRectF(body.left(), figures.bottom() + 20, body.width(), 24), Qt::AlignLeft,
               errors + warnings ? QObject::tr("%1 errors and %2 warnings: see Red flags").arg(errors).arg(warnings)
                                 : QObject::tr("No red flags"));
}

}  // namespace

bool write(const ReportContext& ctx, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pagesOut)
{
    // Written through QSaveFile: a failed export never leaves half a PDF behind.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setResolution(kResolution);
    writer.setPageLayout(QPageLayout(QPageSize(pageSize), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(QObject::tr("TrainPlan report: %1").arg(ctx.title()));
    writer.setCreator("TrainPlan");
    const QRectF page(QPointF(0, 0), writer.pageLayout().fullRectPixels(kResolution).size());
    const QRectF body = page.adjusted(54, 62, -54, -58);
    const QRectF content = body.adjusted(0, 36, 0, 0);  // below the page heading

    // Lay out every page first so each footer can say "page n of N".
    std::vector<Page> pages;
    pages.push_back({QObject::tr("Summary"), ReportView::Summary});
    const auto addHtml = [&](ReportView view, int section, const QString& heading) {
        const int n = reportpainter::pageCount(view, ctx, content.size(), section);
        for (int i = 0; i < n; ++i)
            pages.push_back({heading, view, section, i});
    };
    addHtml(ReportView::Inputs, 0, QObject::tr("Inputs"));
    pages.push_back({QObject::tr("Memory and step time"), ReportView::Memory, 0, 0, ReportView::StepTime, true});
    pages.push_back({QObject::tr("Pipeline schedule"), ReportView::Timeline});
    pages.push_back({QObject::tr("Layout on the hardware"), ReportView::Layout});
    pages.push_back({QObject::tr("Sensitivity"), ReportView::Sensitivity});
    addHtml(ReportView::RedFlags, 0, QObject::tr("Red flags"));
    addHtml(ReportView::Validation, 0, QObject::tr("Validation and reliability plan"));
    const int sections = reportpainter::derivationSectionCount(ctx);
    for (int s = 0; s < sections; ++s)
        addHtml(ReportView::Derivation, s, reportpainter::viewTitle(ReportView::Derivation, ctx, s));

    QPainter p;
    if (!p.begin(&writer)) {
        *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    for (size_t i = 0; i < pages.size(); ++i) {
        if (i > 0)
            writer.newPage();
        const Page& pg = pages[i];
        paintFrame(p, page, body, ctx, pg.heading, int(i) + 1, int(pages.size()));
        if (pg.view == ReportView::Summary) {
            paintTitlePage(p, body, ctx);
            continue;
        }
        paintHeading(p, body, pg.htmlPage == 0 ? pg.heading : pg.heading + QObject::tr(" (continued)"));
        if (pg.hasSecond) {
            const double half = (content.height() - 16) / 2;
            reportpainter::paint(pg.view, ctx, p, QRectF(content.topLeft(), QSizeF(content.width(), half)));
            reportpainter::paint(pg.second, ctx, p, QRectF(content.left(), content.top() + half + 16, content.width(), half));
        } else {
            reportpainter::paint(pg.view, ctx, p, content, pg.section, 1.0, pg.htmlPage);
        }
    }
    if (!p.end() || !file.commit()) {
        *error = QObject::tr("Writing %1 failed: %2").arg(path, file.errorString());
        return false;
    }
    if (pagesOut)
        *pagesOut = int(pages.size());
    return true;
}

}  // namespace pdfreport
