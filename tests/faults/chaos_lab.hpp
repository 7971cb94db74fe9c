#pragma once

// The chaos lab: several `chopar serve` processes side by side on one
// database, real provider fakes (two for email — SMTP first, a
// Postmark-speaking API second, as [[channels.email.providers]] with
// failover —, the Telegram Bot API, a Web Push service, and an
// application's webhook for the outbox relay), a mixed
// workload, and faults injected at random — kill -9 of a chopar process, a
// crash of PostgreSQL (pg_ctl restart -m immediate), providers answering
// 500, 429 with Retry-After, not answering (timeouts), resetting
// connections, or stalling 10 s. Then it drains and checks, from the fakes'
// own records and the database, that every delivery was received exactly
// once (across both email providers), no schedule occurrence was lost or doubled, no notification
// was lost, and every committed outbox event (and no other) reached the webhook.
// docs/RELIABILITY.md describes the fault model and holds the figures of the long run.
//
// With `failover`, the database is a pg_auto_failover cluster (make ha-lab):
// its primary is replaced every few minutes (failover_fault.hpp) instead of
// crashed, and the report measures, per failover, how long chopar's writes
// were held up.
//
// With `slow_receiver`, the webhook is a modest receiver: every
// answer comes 1-3 s late and its listen backlog is 16, so the relays must
// slow down to it rather than time out requests it has taken.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace chopar::faults {

struct ChaosSettings {
  std::chrono::seconds duration{45};  // faults and workload run this long
  // A fault starts every `fault_every_min` .. `fault_every_max`.
  std::chrono::milliseconds fault_every_min{2000};
  std::chrono::milliseconds fault_every_max{5000};
  int processes = 3;
  // [delivery] lease_seconds: short, so that sends cut short are taken back
  // within the run.
  std::chrono::seconds lease{10};
  int users = 400;
  double notifications_per_second = 10;
  int schedules = 12;  // each fires every minute
  std::uint64_t seed = 1;
  // After the faults: how long the fleet may take to settle everything.
  std::chrono::seconds drain_timeout{180};
  // The outbox webhook answers each request after a random 1-3 s (on top of
  // any fault's delay) and listens with a backlog of 16.
  bool slow_receiver = false;
  std::string chopar_binary;
  std::filesystem::path work_dir;  // processes' data dirs and logs

  // The failover fault, in place of PostgreSQL crashes.
  struct Failover {
    std::string cluster_script;  // tests/ha/cluster.sh
    std::string cluster_dir;     // the DIR of its `up`
    std::chrono::seconds every{80};
  };
  std::optional<Failover> failover;
  // A broadcast to every user this often (0: none), fanned out 50
  // recipients a batch.
  std::chrono::seconds broadcast_every{0};
};

// One failover of the primary and what chopar's writes saw of it.
struct FailoverFigure {
  std::string kind;            // "switchover" or "kill -9 of the primary"
  double command_seconds = 0;  // cluster.sh, until the new primary took writes
  // From the fault to the first notify committed after the write outage
  // (-1: none); the outage is the longest gap between notifies committed.
  double recovery_seconds = -1, outage_seconds = -1;
  double healthy_seconds = 0;  // from the fault until primary and secondary are in sync again
  std::string error;           // a cluster.sh command that failed
};

// What a run did and found. The last group must be all zero.
struct ChaosReport {
  std::uint64_t seed = 0;
  bool slow_receiver = false;                // ChaosSettings::slow_receiver
  double seconds = 0;                        // from the first fault to the end of the drain
  std::map<std::string, int> faults;         // by kind
  std::int64_t notifications_requested = 0;  // dedup keys the client had accepted
  std::int64_t notifications_in_database = 0;
  std::int64_t schedule_occurrences_expected = 0;
  std::int64_t deliveries = 0;
  std::map<std::string, std::int64_t> deliveries_by_status;
  // Email deliveries by the provider that answered their last attempt
  // (smtp, postmark): how much failover moved.
  std::map<std::string, std::int64_t> email_by_provider;
  std::int64_t provider_requests = 0;  // every request the fakes saw
  std::int64_t received = 0;           // accepted by a fake
  // Failed as "outcome unknown" (their worker died mid-send, or the provider
  // answered after the timeout) yet received once.
  std::int64_t unknown_but_received = 0;
  // Failed as "outcome unknown" and never received: their process was
  // killed, or the provider reset or dropped the request, after it was
  // written. Reported through the API as failed, never sent twice.
  std::int64_t unknown_not_received = 0;
  std::map<std::string, std::int64_t> unknown_causes;           // those, by what cut them short
  std::map<std::string, std::int64_t> unknown_received_causes;  // the same for those received
  // From the chopar processes' logs: deliveries whose outcomes could not be
  // recorded before their lease ran out though their holder was alive (the
  // database away longer than the lease), and deliveries whose send failed
  // to start (claimed again; "outcome unknown" if the start had committed).
  std::int64_t outcomes_unrecorded_in_lease = 0;
  std::int64_t sends_not_started = 0;
  double delivery_latency_p50 = 0, delivery_latency_p99 = 0, delivery_latency_max = 0;  // s
  double schedule_lateness_max = 0;  // s from due to the notification
  std::int64_t client_gave_up = 0;   // requests the client never got accepted
  // Broadcasts to every user: accepted by the API, and each one's
  // recipients left without its notification or given it twice.
  std::int64_t broadcasts = 0;
  std::int64_t broadcast_recipients = 0;  // notifications the broadcasts created
  std::int64_t broadcast_recipients_lost = 0;
  std::int64_t broadcast_recipients_doubled = 0;
  std::int64_t broadcasts_unfinished = 0;  // not done after the drain, or never stored
  // The failover fault: the cluster's settings, and each failover.
  std::string cluster;
  std::vector<FailoverFigure> failovers;
  // chopar processes that exited on their own (the database down while they
  // started) and were started again, as a service manager would.
  int processes_exited = 0;

  // The outbox: events an application committed with its orders, relayed
  // by chopar to the application's webhook at least once; the webhook
  // counts them by event id (webhook-id), as a receiver deduplicates.
  std::int64_t outbox_events = 0;                         // committed with their order
  std::int64_t outbox_rolled_back = 0;                    // emitted in a transaction rolled back
  std::int64_t outbox_requests = 0;                       // requests the webhook saw
  std::int64_t outbox_received = 0;                       // events it accepted, once or more
  std::int64_t outbox_repeated = 0;                       // events it accepted more than once
  std::int64_t outbox_repeats = 0;                        // acceptances beyond the first
  double outbox_latency_p99 = 0, outbox_latency_max = 0;  // s, commit → first accepted

  std::int64_t duplicates = 0;  // deliveries received more than once
  std::int64_t lost = 0;        // deliveries never received, with no failure that says why
  std::int64_t phantoms = 0;    // received messages of no delivery
  std::int64_t notifications_lost = 0;
  std::int64_t schedule_occurrences_lost = 0;
  std::int64_t schedule_occurrences_doubled = 0;
  std::int64_t unsettled = 0;    // deliveries still queued or sending after the drain
  std::int64_t outbox_lost = 0;  // committed events the webhook never accepted
  // Events accepted that were never committed (their transaction rolled
  // back) or never emitted.
  std::int64_t outbox_phantoms = 0;
  // Events accepted again with no relay loop cut short (a kill -9, a
  // PostgreSQL crash or a failover) between the acceptances: a repeat at-least-once does
  // not explain.
  std::int64_t outbox_unexplained_repeats = 0;
  std::vector<std::string> problems;  // one line each, for the log
  // For each duplicate: its row, every request the fakes saw for it (time,
  // sending process, answer) and the faults around them, one line each; the
  // same for each outbox event accepted again with no explanation.
  std::vector<std::vector<std::string>> duplicate_timelines;

  [[nodiscard]] bool Clean() const {
    return duplicates == 0 && lost == 0 && phantoms == 0 && notifications_lost == 0 &&
           schedule_occurrences_lost == 0 && schedule_occurrences_doubled == 0 && unsettled == 0 &&
           client_gave_up == 0 && outbox_lost == 0 && outbox_phantoms == 0 &&
           outbox_unexplained_repeats == 0 && broadcast_recipients_lost == 0 &&
           broadcast_recipients_doubled == 0 && broadcasts_unfinished == 0;
  }
  // The figures as a Markdown table (docs/RELIABILITY.md).
  [[nodiscard]] std::string Markdown() const;
};

// Runs the lab on the database `database_url` (a fresh, migrated one; the lab
// sets synchronous_commit on for it, so a crash keeps what was committed),
// crashing the test server of scripts/with-test-pg (testing::TestServer);
// with `settings.failover`, on the cluster's database, whose settings it
// leaves as they are, failing its primary over instead.
// Throws std::runtime_error when the fleet cannot be set up.
ChaosReport RunChaos(const ChaosSettings& settings, const std::string& database_url);

}  // namespace chopar::faults
