#include "render/compare/ComparisonHtml.h"

#include <QObject>

#include <cmath>

#include "core/base/Format.h"
#include "core/plan/PlanFields.h"
#include "render/compare/ComparisonSet.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"

namespace comparisonhtml {

namespace {

QString text(const std::string& s)
{
    return markup::escaped(s);
}

QString head(const QString& t, const char* align = "left")
{
    return QStringLiteral("<th align='%1' style='padding:3px 14px 3px 0; color:@muted; font-weight:normal; border-bottom:1px solid @grid'>%2</th>")
        .arg(QLatin1String(align), t);
}

QString cell(const QString& t, const char* align = "left", const char* style = "")
{
    return QStringLiteral("<td align='%1' style='padding:2px 14px 2px 0; %2'>%3</td>").arg(QLatin1String(align), QLatin1String(style), t);
}

// "layout.pp" → "Pipeline parallel (PP) · layout.pp": the title the inputs panel uses, then the
// path scripts use.
QString fieldLabel(const std::string& path)
{
    if (const trainplan::PlanField* f = trainplan::findPlanField(path); f && !f->title.empty())
        return text(std::string(f->title)) + QStringLiteral(" <span style='color:@faint'>") + text(path) + QStringLiteral("</span>");
    return text(path);
}

QString inputValue(const nlohmann::json& v)
{
    if (v.is_null())
        return QObject::tr("(absent)");
    if (v.is_string())
        return text(v.get<std::string>());
    // Whole numbers with their thousands marked (a token budget reads "2,000,000,000,000"); others as written.
    if (v.is_number() && std::abs(v.get<double>()) < 1e18 && v.get<double>() == std::floor(v.get<double>()))
        return text(trainplan::formatInteger(v.get<double>()));
    return text(v.dump());
}

}  // namespace

QString plans(const ComparisonSet& set)
{
    const trainplan::PlanComparison& c = set.comparison();
    QString rows;
    for (int i = 0; i < set.size(); ++i) {
        QString flags;
        if (c.errorFlags[size_t(i)] > 0)
            flags = QStringLiteral(" <span style='color:@error'>") + text(trainplan::countOf(c.errorFlags[size_t(i)], "error-level red flag"))
                + QStringLiteral("</span>");
        rows += QStringLiteral("<tr>") + cell(QStringLiteral("<b>") + set.letter(i) + QStringLiteral("</b>"))
            + cell(text(c.names[size_t(i)]) + flags)
            + cell(QStringLiteral("<span style='color:@faint'>") + markup::escaped(set.source(i)) + QStringLiteral("</span>"))
            + QStringLiteral("</tr>");
    }
    return QStringLiteral("<table cellspacing='0' cellpadding='0'>") + rows + QStringLiteral("</table>");
}

QString figures(const ComparisonSet& set)
{
    const trainplan::PlanComparison& c = set.comparison();
    QString out = QStringLiteral("<table cellspacing='0' cellpadding='0'><tr>") + head(QObject::tr("Figure"));
    for (int i = 0; i < set.size(); ++i)
        out += head(set.letter(i), "right");
    for (int i = 1; i < set.size(); ++i)
        out += head(QObject::tr("%1 against A").arg(set.letter(i)), "right");
    out += QStringLiteral("</tr>");
    for (const trainplan::ComparedFigure& f : c.figures) {
        out += QStringLiteral("<tr>") + cell(text(f.label), "left", "color:@inkSoft");
        for (const auto& v : f.values)
            out += cell(text(trainplan::comparisonValueText(v, f.unit)), "right");
        for (size_t i = 1; i < f.values.size(); ++i) {
            const std::string d = trainplan::comparisonDifferenceText(f.values[0], f.values[i], f.unit);
            out += cell(text(d), "right", d == "same" ? "color:@faint" : "");
        }
        out += QStringLiteral("</tr>");
    }
    return out + QStringLiteral("</table>");
}

QString changes(const ComparisonSet& set)
{
    const trainplan::PlanComparison& c = set.comparison();
    if (c.changedFields.empty())
        return QStringLiteral("<p style='color:@muted'>") + QObject::tr("Nothing: the plans have the same inputs.") + QStringLiteral("</p>");
    QString out = QStringLiteral("<table cellspacing='0' cellpadding='0'><tr>") + head(QObject::tr("Input"));
    for (int i = 0; i < set.size(); ++i)
        out += head(set.letter(i));
    out += QStringLiteral("</tr>");
    for (const trainplan::ChangedField& f : c.changedFields) {
        out += QStringLiteral("<tr>") + cell(fieldLabel(f.path), "left", "color:@inkSoft");
        for (size_t i = 0; i < f.values.size(); ++i)
            out += cell(inputValue(f.values[i]), "left", i > 0 && f.values[i] != f.values[0] ? "font-weight:bold" : "");
        out += QStringLiteral("</tr>");
    }
    return out + QStringLiteral("</table>");
}

QString page(const ComparisonSet& set, double scale)
{
    const QString h = QStringLiteral("<p style='font-size:120%; margin-top:10px'><b>%1</b></p>");
    return theme::styled(QStringLiteral("<html><body style='font-family:DejaVu Sans; font-size:%1pt; color:@ink'>").arg(10.0 * scale, 0, 'f', 1)
        + h.arg(QObject::tr("Plans")) + plans(set) + h.arg(QObject::tr("Headline figures")) + figures(set)
        + h.arg(QObject::tr("What changed: the input fields that differ")) + changes(set) + QStringLiteral("</body></html>"));
}

}  // namespace comparisonhtml
