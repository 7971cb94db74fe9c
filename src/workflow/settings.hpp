#pragma once

#include "templates/template.hpp"
#include "templates/workflow_settings.hpp"
#include "workflow/digest.hpp"
#include "workflow/escalation.hpp"
#include "workflow/throttle.hpp"

namespace chopar::workflow {

using templates::kMaxDigestItems;
using templates::kMaxThrottleLimit;
using templates::kMaxWindowSeconds;
using templates::WorkflowSettings;

// The workflow settings of `tmpl`, parsed once when it was parsed
// (templates::ParseTemplate refuses settings the workflows cannot run, see
// templates::ParseWorkflowSettings): no parsing here, so notify and the
// claim may ask for every notification. Valid while `tmpl` lives.
inline const WorkflowSettings& ParseWorkflowSettings(const templates::Template& tmpl) {
  return tmpl.workflows;
}

}  // namespace chopar::workflow
