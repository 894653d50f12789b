#include "render/report/SizingPdf.h"

#include <QObject>

#include "render/report/PdfPages.h"
#include "render/report/ReportPainter.h"
#include "render/sizing/SizingChartPainter.h"
#include "render/sizing/SizingReport.h"
#include "render/style/Theme.h"

namespace sizingpdf {

namespace {

// Rich text as a page at 9 pt, times `scale` (paintHtmlFitted shrinks it to fit).
QString page(const QString& body, double scale = 1.0)
{
    return theme::styled(QStringLiteral("<html><body style='font-family:DejaVu Sans; font-size:%1pt; color:@ink'>%2</body></html>")
                             .arg(9.0 * scale, 0, 'f', 1)
                             .arg(body));
}

}  // namespace

bool write(const trainplan::SizingResult& r, const QString& title, const QString& path, QPageSize::PageSizeId pageSize, QString* error,
    int* pagesOut)
{
    PdfPages pdf(QObject::tr("TrainPlan sizing: %1").arg(title), pageSize);
    const QString table = page(sizingreport::tableHtml(r));
    const int tablePages = pdf.htmlPages(table);
    const int pages = 1 + tablePages;
    if (!pdf.begin(path, error))
        return false;
    pdf.startPage(pages);
    const QRectF body = pdf.body();
    pdf.heading(body, QObject::tr("How many GPUs of which kind: %1").arg(title));
    // The sentences above, the chart below them in the rest of the page.
    const double textH = std::min(body.height() * 0.4, reportpainter::htmlHeight(page(sizingreport::sentencesHtml(r)), body.width()) + 4);
    reportpainter::paintHtmlFitted(pdf.painter(), QRectF(body.left(), body.top() + PdfPages::kHeading, body.width(), textH),
        [&](double scale) { return page(sizingreport::sentencesHtml(r), scale); }, 1.0);
    SizingChartPainter chart;
    chart.setResult(&r);
    chart.paint(pdf.painter(), QRectF(body.left(), body.top() + PdfPages::kHeading + textH + 6, body.width(),
                                   body.bottom() - (body.top() + PdfPages::kHeading + textH + 6)));
    for (int i = 0; i < tablePages; ++i) {
        pdf.startPage(pages);
        pdf.drawFlowingHtml(table, i, i == 0 ? QObject::tr("Every configuration sized") : QObject::tr("Every configuration sized (continued)"));
    }
    if (!pdf.finish(path, error))
        return false;
    if (pagesOut)
        *pagesOut = pages;
    return true;
}

}  // namespace sizingpdf
