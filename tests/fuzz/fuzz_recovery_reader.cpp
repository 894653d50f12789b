// libFuzzer target: the window's recovery file reader (planfile/RecoveryDocument.h) on arbitrary
// bytes. Rejection (PlanError, with a reason) is fine; anything else escaping, a sanitizer
// report, or an accepted document whose plan fails the reader's checks (FuzzChecks.h) or that
// does not write back to the same bytes aborts.
#include <cstddef>
#include <cstdint>

#include "FuzzChecks.h"
#include "core/planfile/RecoveryDocument.h"

using fuzzchecks::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    trainplan::RecoveryDocument doc;
    try {
        doc = trainplan::parseRecoveryDocument(bytes);
    } catch (const trainplan::PlanError& e) {
        fuzzchecks::requireReasonedRejection(e);
        return 0;
    }
    fuzzchecks::checkAcceptedPlan(doc.plan);
    // What was read writes back, and reads back to the same document.
    std::string text;
    try {
        text = trainplan::recoveryDocumentToText(doc.plan, doc.originalPath, doc.savedAt);
    } catch (const trainplan::PlanError& e) {
        fail(std::string("an accepted recovery file does not write back: ") + e.what());
    }
    trainplan::RecoveryDocument again;
    try {
        again = trainplan::parseRecoveryDocument(text);
    } catch (const trainplan::PlanError& e) {
        fail(std::string("a written recovery file does not read back: ") + e.what());
    }
    if (again.originalPath != doc.originalPath || again.savedAt != doc.savedAt || !(again.plan == doc.plan))
        fail("a recovery file read, written and read again differs");
    if (trainplan::recoveryDocumentToText(again.plan, again.originalPath, again.savedAt) != text)
        fail("a recovery file written twice differs");
    return 0;
}
