// libFuzzer target: the importers (core/interop) on arbitrary bytes, read as a Hugging Face
// config.json when they look like JSON and as a Megatron-LM launch script otherwise. Rejection
// (PlanError, with a reason) is fine; anything else escaping, a sanitizer report, a listed key
// without a reason, or an imported plan that fails the reader's checks (FuzzChecks.h) aborts.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/interop/ImportFile.h"
#include "core/interop/ShellWords.h"
#include "core/planfile/WorkedExamples.h"

using fuzzchecks::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    static const trainplan::Plan base = trainplan::defaultPlan();
    // The shell reader alone: every word it returns is one the input could have made.
    const auto words = trainplan::splitShellWords(bytes);
    for (const auto& w : words.words)
        if (w.empty())
            fail("an empty shell word");
    trainplan::ImportReport report;
    try {
        report = trainplan::importText(bytes, "fuzz input", base);
    } catch (const trainplan::PlanError& e) {
        fuzzchecks::requireReasonedRejection(e);
        return 0;
    }
    fuzzchecks::checkAcceptedPlan(report.plan);
    for (const auto& k : report.unmapped)
        if (k.note.empty())
            fail("an unmapped key without a reason: " + k.key);
    for (const auto& k : report.mapped)
        if (k.key.empty())
            fail("a mapped key without a name");
    fuzzchecks::requireDumpable(trainplan::importReportToJson(report), "import report");
    fuzzchecks::requireText(trainplan::importReportToText(report), "import report text");
    return 0;
}
