#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/backoff.hpp"

namespace chopar::outbox {

// The largest max_in_flight of a webhook target.
inline constexpr int kMaxTargetInFlight = 1024;

// One [[relay.targets]] entry of the configuration (docs/configuration.md).
// Which keys apply depends on `kind`; ValidateTargets (targets.hpp) refuses
// a missing required key and a key of another kind.
struct TargetSettings {
  std::string kind;  // "webhook" | "nats" | "notify"
  // Names the target in metrics, logs and an event's delivered_to; empty:
  // the kind, with "-2", "-3", … for later targets of the same kind.
  std::string name;
  // Globs of the event types this target receives ("task.*"); empty: all.
  std::vector<std::string> types;

  // webhook and nats: where to publish.
  std::string url;
  // webhook: the Standard Webhooks signing secret, "whsec_<base64>".
  std::string secret;
  // webhook: a request that has not answered 2xx by then failed; nats: the
  // wait for JetStream's publish acknowledgements.
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};
  // webhook: requests to the receiver in flight at once from this process,
  // over all its relay loops (1..kMaxTargetInFlight); the others wait for a
  // free one before they start, their timeout not yet running.
  int max_in_flight = 16;

  // nats: the subject, "{type}" replaced by the event's type.
  std::string subject = "chopar.events.{type}";
  // nats: the stream created (when missing) to hold the subjects.
  std::string stream = "CHOPAR_EVENTS";
  // nats: the stream's duplicate window, inside which JetStream drops a
  // message whose Nats-Msg-Id it has seen.
  std::chrono::seconds duplicate_window{120};

  // notify: Mustache templates over the event ({{payload.title}},
  // {{type}}, {{user_id}}, {{id}}); title is required.
  std::string title;
  std::string body;
  std::string link;
  std::vector<std::string> channels;  // empty: every channel
  bool critical = false;
};

// How relays behave: the [relay] section of the configuration, which
// app::Config holds as this very type.
struct RelaySettings {
  // [relay] source_url: the application's database whose chopar.outbox is
  // relayed (besides chopar's own); empty: chopar's own only.
  std::string source_url;
  int batch = 500;  // [relay] batch: events claimed per transaction
  // [relay] concurrency: claim/publish loops per relayed database; two keep
  // the database and the targets busy at once (one claims and marks while
  // the other publishes).
  int concurrency = 2;
  int retention_days = 7;  // [relay] retention_days: dispatched events kept this long
  bool listen = true;      // [relay] listen: wake on NOTIFY (false: polling only)
  // [relay] poll_seconds: wake-up when no NOTIFY arrives.
  std::chrono::milliseconds poll_interval{std::chrono::seconds(1)};
  // [relay] backoff_initial_seconds and backoff_max_seconds: an event that
  // failed waits a jittered, doubling delay before its next attempt.
  core::BackoffPolicy backoff{std::chrono::seconds(1), std::chrono::hours(1)};
  // How often dispatched events past retention are looked for. Not configurable.
  std::chrono::milliseconds retention_interval{std::chrono::minutes(10)};
  // Rows one retention statement deletes. Not configurable.
  int retention_batch = 1000;
  // [[relay.targets]]: where events go. No targets: no relay runs.
  std::vector<TargetSettings> targets;
};

// [events]: which of chopar's own events (docs/outbox.md "chopar's own
// events") are written to its own outbox.
struct EventSettings {
  std::vector<std::string> emit;  // globs: ["delivery.*"]; empty: none
};

}  // namespace chopar::outbox
