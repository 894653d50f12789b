#include "render/sizing/SizingReport.h"

#include <QObject>
#include <QStringList>

#include "core/base/Format.h"
#include "core/plan/EnumNames.h"
#include "render/report/PdfPages.h"
#include "render/sizing/SizingChartPainter.h"
#include "render/style/Markup.h"
#include "render/report/ReportPainter.h"
#include "render/style/Theme.h"

namespace sizingreport {

namespace {

QString text(const std::string& s)
{
    return markup::escaped(s);
}

QString td(const QString& t, const char* align = "right", const char* style = "")
{
    return QStringLiteral("<td align='%1' style='padding:1px 10px 1px 0; white-space:nowrap; %2'>%3</td>").arg(QLatin1String(align), QLatin1String(style), t);
}

QString th(const QString& t, const char* align = "right")
{
    return QStringLiteral("<th align='%1' style='padding:2px 10px 2px 0; color:@muted; font-weight:normal; border-bottom:1px solid @grid'>%2</th>")
        .arg(QLatin1String(align), t);
}

QString page(const QString& body)
{
    return theme::styled(QStringLiteral("<html><body style='font-family:DejaVu Sans; font-size:9pt; color:@ink'>%1</body></html>").arg(body));
}

}  // namespace

QString sentencesHtml(const trainplan::SizingResult& r)
{
    QString out;
    for (size_t i = 0; i < r.sentences.size(); ++i)
        out += (i == 0 ? QStringLiteral("<p style='font-size:115%'><b>") : QStringLiteral("<p>")) + text(r.sentences[i])
            + (i == 0 ? QStringLiteral("</b></p>") : QStringLiteral("</p>"));
    out += QStringLiteral("<p style='color:@faint'>") + QObject::tr("%1 configurations, %2 layouts searched in %3; wall time on the predicted basis, with the failure and checkpoint allowance.")
                                                          .arg(QString::fromStdString(trainplan::formatInteger(double(r.points.size()))),
                                                              QString::fromStdString(trainplan::formatInteger(double(r.layoutsEvaluated))),
                                                              QString::fromStdString(trainplan::formatSeconds(r.seconds)))
        + QStringLiteral("</p>");
    return theme::styled(out);
}

QString tableHtml(const trainplan::SizingResult& r)
{
    QString out = QStringLiteral("<table cellspacing='0' cellpadding='0'><tr>") + th(QObject::tr("Accelerator"), "left") + th(QObject::tr("GPUs"))
        + th(QObject::tr("Layout"), "left") + th(QObject::tr("Days")) + th(QObject::tr("Range")) + th(r.costInDollars ? QObject::tr("Cost") : QObject::tr("GPU-hours"))
        + th(QObject::tr("MWh")) + th(QObject::tr("MFU")) + th(QObject::tr("Scaling")) + th(QObject::tr("Marks"), "left") + QStringLiteral("</tr>");
    for (size_t i = 0; i < r.points.size(); ++i) {
        const trainplan::SizingPoint& p = r.points[i];
        const bool cheapest = r.cheapest && *r.cheapest == i;
        out += cheapest ? QStringLiteral("<tr style='font-weight:bold'>") : QStringLiteral("<tr>");
        out += td(text(p.accelerator), "left") + td(text(trainplan::formatInteger(p.gpus)));
        if (!p.usable) {
            out += td(QObject::tr("no layout fits"), "left", "color:@faint") + QStringLiteral("</tr>");
            continue;
        }
        const trainplan::SearchLayout& l = p.layout;
        QString layout = QStringLiteral("TP %1 · PP %2 · DP %3").arg(l.tp).arg(l.pp).arg(l.dp);
        if (l.cp > 1)
            layout += QStringLiteral(" · CP %1").arg(l.cp);
        if (l.ep > 1)
            layout += QStringLiteral(" · EP %1").arg(l.ep);
        QStringList marks;
        if (cheapest)
            marks << QObject::tr("cheapest on time");
        marks << (p.meetsDeadline ? QObject::tr("meets deadline") : QObject::tr("late"));
        if (r.budgetUsd && !p.withinBudget)
            marks << QObject::tr("over budget");
        if (p.pareto)
            marks << QObject::tr("front");
        if (p.knee)
            marks << QObject::tr("scaling stops paying after");
        if (p.batchLimited)
            marks << QObject::tr("batch-limited");
        out += td(layout, "left") + td(text(trainplan::formatNumber(p.days)), "right", p.meetsDeadline ? "" : "color:@error")
            + td(text(trainplan::formatNumber(p.daysLow) + " – " + trainplan::formatNumber(p.daysHigh)), "right", "color:@muted")
            + td(text(r.costInDollars ? "$" + trainplan::formatCount(*p.usd) : trainplan::formatInteger(p.gpuHours)))
            + td(p.mwh ? text(trainplan::formatNumber(*p.mwh)) : QStringLiteral("—")) + td(text(trainplan::formatPercent(p.mfu)))
            + td(text(trainplan::formatPercent(p.marginalEfficiency, 0))) + td(marks.join(QStringLiteral(", ")), "left", "color:@inkSoft; white-space:normal")
            + QStringLiteral("</tr>");
    }
    return theme::styled(out + QStringLiteral("</table>"));
}

bool writePdf(const trainplan::SizingResult& r, const QString& title, const QString& path, QPageSize::PageSizeId pageSize, QString* error,
    int* pagesOut)
{
    PdfPages pdf(QObject::tr("TrainPlan sizing: %1").arg(title), pageSize);
    const QString table = page(tableHtml(r));
    const int tablePages = pdf.htmlPages(table);
    const int pages = 1 + tablePages;
    if (!pdf.begin(path, error))
        return false;
    pdf.startPage(pages);
    const QRectF body = pdf.body();
    pdf.heading(body, QObject::tr("How many GPUs of which kind: %1").arg(title));
    // The sentences above, the chart below them in the rest of the page.
    const double textH = std::min(body.height() * 0.4, reportpainter::htmlHeight(page(sentencesHtml(r)), body.width()) + 4);
    reportpainter::paintHtmlFitted(pdf.painter(), QRectF(body.left(), body.top() + PdfPages::kHeading, body.width(), textH),
        [&](double scale) {
            return theme::styled(QStringLiteral("<html><body style='font-family:DejaVu Sans; font-size:%1pt; color:@ink'>%2</body></html>")
                                     .arg(9.0 * scale, 0, 'f', 1)
                                     .arg(sentencesHtml(r)));
        },
        1.0);
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

}  // namespace sizingreport
