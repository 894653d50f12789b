#include "render/compare/ComparisonSet.h"

ComparisonSet::ComparisonSet(std::vector<trainplan::Analysis> analyses, const std::vector<QString>& sources)
{
    std::vector<std::string> sourceNames;
    for (size_t i = 0; i < analyses.size(); ++i) {
        const QString source = i < sources.size() ? sources[i] : QString();
        sources_.push_back(source);
        sourceNames.push_back(source.toStdString());
        plans_.push_back(std::make_unique<ReportContext>(std::move(analyses[i]), source));
    }
    std::vector<const trainplan::Analysis*> pointers;
    for (const auto& p : plans_)
        pointers.push_back(&p->analysis());
    comparison_ = trainplan::comparePlans(pointers, sourceNames);
}

QString ComparisonSet::letter(int index) const
{
    return QString::fromStdString(trainplan::comparisonLetter(size_t(index)));
}

QString ComparisonSet::heading(int index) const
{
    return letter(index) + QStringLiteral("  ") + QString::fromStdString(plan(index).plan().name);
}
