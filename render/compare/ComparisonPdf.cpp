#include "render/compare/ComparisonPdf.h"

#include <QObject>
#include <QStringList>

#include "render/compare/ComparisonHtml.h"
#include "render/compare/ComparisonSet.h"
#include "render/compare/MemoryComparisonPainter.h"
#include "render/compare/StepComparisonPainter.h"
#include "render/report/PdfPages.h"
#include "render/report/ReportPainter.h"

namespace comparisonpdf {

namespace {

QString title(const ComparisonSet& set)
{
    QStringList letters;
    for (int i = 0; i < set.size(); ++i)
        letters << set.letter(i);
    return QObject::tr("TrainPlan comparison: %1 plans (%2)").arg(set.size()).arg(letters.join(QStringLiteral(", ")));
}

}  // namespace

bool write(const ComparisonSet& set, const QString& path, QPageSize::PageSizeId pageSize, QString* error, int* pagesOut)
{
    PdfPages pdf(title(set), pageSize);
    const QRectF body = pdf.body();
    // The tables flow over as many pages as the inputs need; then the charts; then a page per plan.
    const QString tables = comparisonhtml::page(set);
    const int tablePages = pdf.htmlPages(tables);
    const int pages = tablePages + 1 + set.size();
    if (!pdf.begin(path, error))
        return false;
    QPainter& p = pdf.painter();
    for (int i = 0; i < tablePages; ++i) {
        pdf.startPage(pages);
        pdf.drawFlowingHtml(tables, i, i == 0 ? QObject::tr("Figures and inputs side by side") : QObject::tr("Figures and inputs (continued)"));
    }

    pdf.startPage(pages);
    StepComparisonPainter steps;
    steps.setSet(&set);
    const double stepH = std::min(steps.preferredHeight(body.width()), body.height() * 0.45);
    const double memoryH = body.height() - stepH - 2 * PdfPages::kHeading - 12;
    pdf.heading(body, QObject::tr("Memory per GPU by pipeline stage"));
    MemoryComparisonPainter memory;
    memory.setSet(&set);
    memory.paint(p, QRectF(body.left(), body.top() + PdfPages::kHeading, body.width(), memoryH));
    const QRectF stepArea(body.left(), body.top() + PdfPages::kHeading + memoryH + 12, body.width(), stepH + PdfPages::kHeading);
    pdf.heading(stepArea, QObject::tr("Where each step goes (predicted)"));
    steps.paint(p, stepArea.adjusted(0, PdfPages::kHeading, 0, 0));

    for (int i = 0; i < set.size(); ++i) {
        pdf.startPage(pages);
        const ReportContext& ctx = set.plan(i);
        pdf.heading(body, set.heading(i));
        // The diagram keeps the height it draws at this width; the schedule takes the rest.
        const double width = body.width() * 0.48;
        const double top = body.top() + PdfPages::kHeading + 4;
        const double height = body.bottom() - top;
        reportpainter::paint(ReportView::Layout, ctx, p,
            QRectF(body.left(), top, width, std::min(height, reportpainter::layoutDiagramHeight(ctx, width))));
        reportpainter::paint(ReportView::Timeline, ctx, p, QRectF(body.left() + width + 16, top, body.width() - width - 16, height));
    }
    if (!pdf.finish(path, error))
        return false;
    if (pagesOut)
        *pagesOut = pages;
    return true;
}

}  // namespace comparisonpdf
