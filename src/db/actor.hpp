#pragma once

#include <string>

namespace chopar::db {

// Who is changing the database on this thread, for the audit log: while an
// ActorScope lives, every round trip a Connection makes on this thread
// starts with `SELECT set_config('chopar.actor', <actor>, true)` in the same
// transaction (after its BEGIN), so the audit triggers (migration 0039) see
// who made the change in the transaction that makes it. Without a scope
// nothing is sent and the triggers record nothing: the background loops'
// changes are not the audit log's. The actor is a JSON object
// (http::AuditActor writes it). Scopes nest; the innermost wins.
class ActorScope {
 public:
  explicit ActorScope(std::string actor);
  ActorScope(const ActorScope&) = delete;
  ActorScope& operator=(const ActorScope&) = delete;
  ~ActorScope();

 private:
  std::string previous_;
};

// The actor of this thread's innermost ActorScope; empty: none.
const std::string& CurrentActor();

}  // namespace chopar::db
