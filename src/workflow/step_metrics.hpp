#pragma once

#include <string>

#include "core/metrics.hpp"

namespace chopar::workflow {

// chopar_workflow_steps_total{outcome} in `registry`: workflow steps done,
// whoever did them (an advance of the scheduler role, or notify itself for
// the steps it does in the statement that creates the notification).
core::Counter& StepsDone(core::MetricsRegistry& registry, const std::string& outcome);

}  // namespace chopar::workflow
