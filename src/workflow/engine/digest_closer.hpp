#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/due_loop.hpp"

namespace chopar::workflow::engine {

// One notification a digest window holds.
struct DigestEntry {
  std::int64_t notification_id = 0;
  std::string title;
  std::string body;
  std::optional<std::string> link;
  nlohmann::json data = nlohmann::json::object();
  std::string created_at;  // RFC 3339
  std::vector<core::ChannelKind> channels;
};

// What a closed window says: {"title", "body", "<channel>": {…}} for each
// channel of its items (a channel whose text could not be rendered holds
// {"error": reason}).
struct DigestMessage {
  nlohmann::json content;
  std::vector<core::ChannelKind> channels;  // the union of the items', in AllChannels() order
};

// Renders a window of `type` for a user (`user_id`, `locale`, `timezone`)
// holding `entries` (oldest first, at least one) through the type's
// template `tmpl` with {{digest.count}} and {{digest.items}} (each item's
// id, title, body, link, data, created_at) besides the newest item's data
// and {{notification}}; without a template (deleted since), a default text
// in the user's language ("3 new notifications", the titles listed).
// `user_data` is the user's custom attributes ({{user.data.*}}); the
// texts' {{> name}} partials come from `partials` (none: nothing). Pure.
DigestMessage RenderDigest(const std::string& type, std::int64_t user_id, const std::string& locale,
                           const std::string& timezone, const std::vector<DigestEntry>& entries,
                           const templates::Template* tmpl,
                           const nlohmann::json& user_data = nlohmann::json::object(),
                           const mustache::PartialSource* partials = nullptr);

struct DigestCloserSettings {
  int batch = 200;                              // windows per transaction
  std::chrono::milliseconds max_sleep{60'000};  // the polling fallback
};

// Closes digest windows when due (docs/workflows-design.md "Digest"). Each
// batch is one transaction: lock due open windows (FOR UPDATE SKIP LOCKED),
// read their items, render each window once (RenderDigest), queue one
// delivery per channel (digest_id set, notification_id the newest item),
// and mark them closed — or canceled, sending nothing, when cancellation
// left no item. A crash before COMMIT leaves them open and due; a notifier
// locks a window before joining it, so no item joins a window being closed.
// From there the deliveries are ordinary: quiet hours, limits, throttles
// and critical apply in the claim. Time as for Releaser. The pool, clock,
// registry and templates (may be null) must outlive it.
class DigestCloser {
 public:
  DigestCloser(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
               const templates::TemplateLookup* templates, DigestCloserSettings settings = {});
  ~DigestCloser();
  DigestCloser(const DigestCloser&) = delete;
  DigestCloser& operator=(const DigestCloser&) = delete;

  // Closes everything due, batch after batch; returns how many windows it
  // closed. Throws db::DbError / db::PoolTimeout (the batch stays due).
  // Thread-safe.
  int RunOnce() { return loop_.RunOnce(); }
  // When the earliest open window closes (nullopt: none). Throws db::DbError.
  std::optional<core::TimePoint> NextDue();

  // One loop thread ("digests"): RunOnce(), then sleep until the earliest
  // closes_at (at most settings.max_sleep), woken by NOTIFY
  // db::kDigestsChannel. Call once.
  void Start() { loop_.Start(); }
  void Stop() { loop_.Stop(); }  // idempotent

 private:
  int CloseBatch(bool& full);

  db::Pool& pool_;
  const core::Clock& clock_;
  const templates::TemplateLookup* templates_;
  const DigestCloserSettings settings_;
  core::Counter& closed_;
  // Declared last: built after, and destroyed before, everything its steps use.
  DueRowLoop loop_;
};

}  // namespace chopar::workflow::engine
