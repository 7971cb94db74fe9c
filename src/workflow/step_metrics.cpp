#include "workflow/step_metrics.hpp"

namespace chopar::workflow {

core::Counter& StepsDone(core::MetricsRegistry& registry, const std::string& outcome) {
  return registry.GetCounter("chopar_workflow_steps_total", "Workflow steps done, by outcome",
                             {{"outcome", outcome}});
}

}  // namespace chopar::workflow
