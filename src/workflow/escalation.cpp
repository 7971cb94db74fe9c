#include "workflow/escalation.hpp"

namespace chopar::workflow {

EscalationDecision DecideEscalation(core::TimePoint created_at,
                                    std::optional<core::TimePoint> read_at, core::TimePoint now,
                                    const EscalateSettings& settings) {
  const core::TimePoint due_at = settings.DueAt(created_at);
  using Verdict = EscalationDecision::Verdict;
  // Read wins over due: a delivery claimed late (quiet hours, a backlog)
  // must not reach a user who has seen the notification meanwhile.
  if (read_at && *read_at <= now) return {Verdict::kCancelRead, due_at};
  if (now < due_at) return {Verdict::kWait, due_at};
  return {Verdict::kSend, due_at};
}

}  // namespace chopar::workflow
