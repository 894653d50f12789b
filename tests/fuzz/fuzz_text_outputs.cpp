// libFuzzer target: the writers of core/text on the analysis of a plan read from the input:
// the text report (with and without the derivation), the derivation as text and Markdown,
// estimate --json and schedule --json (with events when the input's "fuzz" object says
// {"events": true}) and the schedule as text. Rejection (PlanError) is fine; an exception, a
// sanitizer report, a non-finite figure, text that is empty or not UTF-8, or a non-finite figure
// shown as "n/a" (Format.h's placeholder) abort.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/text/Derivation.h"
#include "core/text/EstimateJson.h"
#include "core/text/PredictedScheduleJson.h"
#include "core/text/TextReport.h"

namespace {

using fuzzchecks::fail;

// Format.h writes "n/a" for a number that is not finite, and nothing else does: in a writer's
// output it means a non-finite figure reached a person. The plan's own texts are quoted as given,
// so the check is skipped when one of them says "n/a" itself.
bool planTextsSay(const trainplan::Plan& plan, const std::string& what)
{
    for (const std::string* s : {&plan.name, &plan.model.name, &plan.cluster.accelerator, &plan.framework.profile})
        if (s->find(what) != std::string::npos)
            return true;
    return false;
}

void requireShown(const std::string& text, const std::string& what, bool checkPlaceholder)
{
    fuzzchecks::requireText(text, what);
    if (checkPlaceholder && text.find("n/a") != std::string::npos)
        fail(what + " shows a non-finite figure as n/a: ..." + text.substr(text.find("n/a") > 80 ? text.find("n/a") - 80 : 0, 120) + "...");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    trainplan::Plan plan;
    nlohmann::json options;
    if (!fuzzchecks::readPlanInput(data, size, plan, options))
        return 0;
    const bool events = fuzzchecks::optionBool(options, "events", false);
    const bool placeholder = !planTextsSay(plan, "n/a");

    const trainplan::Analysis analysis = trainplan::analyse(plan);
    requireShown(trainplan::estimateToText(analysis, false), "text report", placeholder);
    requireShown(trainplan::estimateToText(analysis, true), "text report with derivation", placeholder);
    requireShown(trainplan::estimateToMarkdown(analysis, "fuzz"), "Markdown report", placeholder);

    const auto sections = trainplan::derive(analysis);
    if (sections.empty())
        fail("an empty derivation");
    for (const auto& section : sections) {
        fuzzchecks::requireText(section.title, "derivation section title");
        for (const auto& step : section.steps) {
            if (!std::isfinite(step.value))
                fail("derivation step " + step.id + " is not finite");
            fuzzchecks::requireText(step.id, "derivation step id");
            fuzzchecks::requireText(step.title, "derivation step " + step.id + " title");
            fuzzchecks::requireText(step.result, "derivation step " + step.id + " result");
        }
    }
    requireShown(trainplan::derivationToText(sections), "derivation text", placeholder);
    requireShown(trainplan::derivationToMarkdown(sections), "derivation Markdown", placeholder);

    fuzzchecks::requireDumpable(trainplan::estimateToJson(analysis), "estimate");
    // As the schedule verb: a pipeline that cannot be simulated is a PlanError naming the field.
    if (analysis.scheduleProblem) {
        try {
            trainplan::predictedScheduleToJson(analysis, events);
            fail("schedule --json wrote a schedule the analysis could not simulate");
        } catch (const trainplan::PlanError& e) {
            if (e.problems().empty() || e.problems().front().path.empty() || e.problems().front().message.empty())
                fail("schedule --json's error names no field or reason");
        }
    } else {
        fuzzchecks::requireDumpable(trainplan::predictedScheduleToJson(analysis, events), "schedule");
        requireShown(trainplan::scheduleToText(analysis), "schedule text", placeholder);
    }
    return 0;
}
