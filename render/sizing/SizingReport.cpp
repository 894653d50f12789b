#include "render/sizing/SizingReport.h"

#include <QObject>
#include <QStringList>

#include "core/base/Format.h"
#include "core/plan/EnumNames.h"
#include "render/style/Markup.h"
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

QString tableHtml(const trainplan::SizingResult& r, const std::string& accelerator, bool frontOnly)
{
    const bool oneAccelerator = !accelerator.empty();
    QString out;
    if (oneAccelerator)
        out += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b>%2</p>").arg(text(accelerator),
            frontOnly ? QStringLiteral(" <span style='color:@muted'>") + QObject::tr("(the Pareto front of days against cost)") + QStringLiteral("</span>")
                      : QString());
    out += QStringLiteral("<table cellspacing='0' cellpadding='0'><tr>") + (oneAccelerator ? QString() : th(QObject::tr("Accelerator"), "left")) + th(QObject::tr("GPUs"))
        + th(QObject::tr("Layout"), "left") + th(QObject::tr("Days")) + th(QObject::tr("Range")) + th(r.costInDollars ? QObject::tr("Cost") : QObject::tr("GPU-hours"))
        + (frontOnly ? QString() : th(QObject::tr("MWh")) + th(QObject::tr("MFU"))) + th(QObject::tr("Scaling")) + th(QObject::tr("Marks"), "left") + QStringLiteral("</tr>");
    for (size_t i = 0; i < r.points.size(); ++i) {
        const trainplan::SizingPoint& p = r.points[i];
        const bool cheapest = r.cheapest && *r.cheapest == i;
        if ((oneAccelerator && p.accelerator != accelerator) || (frontOnly && !p.pareto && !cheapest))
            continue;
        out += cheapest ? QStringLiteral("<tr style='font-weight:bold'>") : QStringLiteral("<tr>");
        out += (oneAccelerator ? QString() : td(text(p.accelerator), "left")) + td(text(trainplan::formatInteger(p.gpus)));
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
        if (p.pareto && !frontOnly)  // the front-only table says so once, in its caption
            marks << QObject::tr("front");
        if (p.knee)
            marks << QObject::tr("scaling stops paying after");
        if (p.batchLimited)
            marks << QObject::tr("batch-limited");
        out += td(layout, "left") + td(text(trainplan::formatNumber(p.days)), "right", p.meetsDeadline ? "" : "color:@error")
            + td(text(trainplan::formatNumber(p.daysLow) + " – " + trainplan::formatNumber(p.daysHigh)), "right", "color:@muted")
            + td(text(r.costInDollars ? "$" + trainplan::formatCount(*p.usd) : trainplan::formatInteger(p.gpuHours)))
            + (frontOnly ? QString() : td(p.mwh ? text(trainplan::formatNumber(*p.mwh)) : QStringLiteral("—")) + td(text(trainplan::formatPercent(p.mfu))))
            + td(text(trainplan::formatPercent(p.marginalEfficiency, 0))) + td(marks.join(QStringLiteral(", ")), "left", "color:@inkSoft; white-space:normal")
            + QStringLiteral("</tr>");
    }
    return theme::styled(out + QStringLiteral("</table>"));
}

}  // namespace sizingreport
