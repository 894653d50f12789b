#include "render/report/DerivationHtml.h"

#include "render/style/Markup.h"
#include "render/style/Theme.h"

#include <algorithm>

namespace derivationhtml {

namespace {

QString q(const std::string& s)
{
    return markup::escaped(s);
}

QString renderSection(const trainplan::DerivationSection& section, double scale, bool heading, int first, int last)
{
    QString html = heading ? QString("<h3 style='margin-top:%1px; margin-bottom:4px; font-size:%2pt'>%3</h3>")
                                 .arg(int(10 * scale))
                                 .arg(13.0 * scale, 0, 'f', 1)
                                 .arg(q(section.title))
                           : QString();
    html += "<table width='100%' cellspacing='0' cellpadding='3'>";
    const int end = last < 0 ? int(section.steps.size()) : std::min(last, int(section.steps.size()));
    for (int i = first; i < end; ++i) {
        const auto& s = section.steps[size_t(i)];
        const bool failed = s.unit == "check" && s.value == 0.0;
        // A given value has nothing to substitute: no "given = 60 s = 60.0 s".
        const QString substitution = trainplan::substitutionAddsToResult(s)
            ? QString("<span style='font-family:DejaVu Sans Mono,monospace; color:@inkSoft'>= %1</span><br>").arg(q(s.substituted))
            : QString();
        html += QString("<tr><td style='border-bottom:1px solid @grid'>"
                        "<b>%1</b><br>"
                        "<span style='font-family:DejaVu Sans Mono,monospace'>%2</span><br>"
                        "%3"
                        "= <b style='color:%4'>%5</b>%6<br>"
                        "<span style='color:@faint; font-size:%8pt'><i>%7</i></span></td></tr>")
                    .arg(q(s.title), q(s.formula), substitution, failed ? "@error" : "@ink", q(s.result),
                         s.note.empty() ? QString() : QString(" <span style='color:@muted'>(%1)</span>").arg(q(s.note)), q(s.source))
                    .arg(8.5 * scale, 0, 'f', 1);
    }
    return html + "</table>";
}

}  // namespace

QString render(const std::vector<trainplan::DerivationSection>& sections, int sectionIndex, double scale, int firstStep, int lastStep)
{
    QString html = QString("<html><body style='font-size:%1pt'>").arg(10.0 * scale, 0, 'f', 1);
    for (int i = 0; i < int(sections.size()); ++i) {
        if (sectionIndex < 0)
            html += renderSection(sections[size_t(i)], scale, true, 0, -1);
        else if (i == sectionIndex)
            html += renderSection(sections[size_t(i)], scale, false, firstStep, lastStep);
    }
    return theme::styled(html + "</body></html>");
}

QString stepsFragment(
    const std::vector<trainplan::DerivationSection>& sections, int sectionIndex, double scale, int firstStep, int lastStep)
{
    if (sectionIndex < 0 || sectionIndex >= int(sections.size()))
        return {};
    return theme::styled(renderSection(sections[size_t(sectionIndex)], scale, false, firstStep, lastStep));
}

}  // namespace derivationhtml
