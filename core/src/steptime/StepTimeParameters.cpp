// Which accelerator's sustained efficiencies a plan's cluster gets.
#include <cmath>
#include <limits>

#include "plan/Presets.h"
#include "steptime/StepTimeModel.h"

namespace trainplan {

AcceleratorEfficiency efficiencyFor(const ClusterSpec& cluster, const char** sourceName)
{
    const AcceleratorPreset* chosen = nullptr;
    if (const auto* named = findAcceleratorPreset(cluster.accelerator); named && named->efficiency.valid()) {
        chosen = named;
    } else {
        // A custom label: the preset whose dense BF16 peak is nearest (relative distance), so
        // a "1 PFLOP/s" part gets H100-class efficiencies and HBM bandwidth.
        double best = std::numeric_limits<double>::infinity();
        for (const auto& a : acceleratorPresets()) {
            if (!a.efficiency.valid())
                continue;
            const double distance = std::abs(std::log(a.peakBf16FlopsPerSecond / cluster.peakFlopsPerGpu));
            if (distance < best) {
                best = distance;
                chosen = &a;
            }
        }
    }
    if (sourceName)
        *sourceName = chosen ? chosen->name.c_str() : nullptr;
    return chosen ? chosen->efficiency : AcceleratorEfficiency{};
}

StepTimeOptions stepTimeOptionsFor(const Plan& plan)
{
    StepTimeOptions options;
    options.efficiency = efficiencyFor(plan.cluster, &options.efficiencySource);
    return options;
}

}  // namespace trainplan
