#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "outbox/nats_handles.hpp"
#include "outbox/settings.hpp"
#include "outbox/target.hpp"

namespace chopar::outbox {

// Publishes each event to NATS JetStream on the subject of the target's
// template ("chopar.events.{type}" → "chopar.events.task.created"), body
// EventBody(event), header Nats-Msg-Id = the event id: JetStream drops a
// re-published duplicate that arrives inside the stream's duplicate window
// (its acknowledgement then says so, and it still counts as published).
// A batch is published asynchronously and succeeds per event when
// JetStream acknowledges it; an event not acknowledged within the timeout,
// or refused, fails alone.
//
// Connects on the first Publish, not before (NATS is never needed to
// start), and creates the stream when it does not exist: file storage,
// the subjects of the template (StreamSubject), the configured duplicate
// window. A lost connection reconnects in the background; meanwhile
// publishes time out and fail, and a connection that closed for good is
// opened again by the next Publish.
//
// Thread-safe: batches are published one at a time.
class NatsTarget final : public Target {
 public:
  // `settings` must be a valid nats target (ValidateTargets).
  explicit NatsTarget(const TargetSettings& settings);
  ~NatsTarget() override;
  NatsTarget(const NatsTarget&) = delete;
  NatsTarget& operator=(const NatsTarget&) = delete;

  std::vector<PublishOutcome> Publish(std::span<const Event* const> events) override;

  // Acknowledgements so far that said "duplicate" (a republished event
  // JetStream dropped). For tests and benchmarks.
  [[nodiscard]] std::uint64_t duplicates() const;

 private:
  // The batch whose acknowledgements are awaited. A message is known by its
  // address: entered before it is published, erased by its acknowledgement
  // before the handler frees it, so an address the allocator hands out
  // again always maps to the message that has it now.
  struct Pending {
    std::unordered_map<const natsMsg*, std::size_t> index_of;  // → position in the batch
    std::vector<PublishOutcome> outcomes;
  };
  static void OnAck(jsCtx* js, natsMsg* msg, jsPubAck* ack, jsPubAckErr* error, void* self);
  void Acknowledge(natsMsg* msg, const jsPubAck* ack, const jsPubAckErr* error);
  // Opens the connection, the JetStream context and the stream if needed.
  // Throws NatsError.
  void Connect();
  void EnsureStream();

  const TargetSettings settings_;
  std::mutex publish_mutex_;  // one batch at a time; guards the handles
  NatsConnection connection_;
  JsContext js_;
  mutable std::mutex ack_mutex_;  // guards pending_ and duplicates_ (acks run on a library thread)
  Pending* pending_ = nullptr;
  std::uint64_t duplicates_ = 0;
};

// The subject an event of `type` is published on: `subject_template` with
// "{type}" replaced by the type.
std::string SubjectFor(const std::string& subject_template, std::string_view type);

// The stream subject that covers every subject of `subject_template`:
// the tokens before the one that is "{type}", then ">" ("chopar.events.>");
// the template itself when it has no "{type}". nullopt when "{type}" is not
// a whole token of its own, or appears twice.
std::optional<std::string> StreamSubject(const std::string& subject_template);

}  // namespace chopar::outbox
