#include "outbox/nats_target.hpp"

#include <algorithm>

#include "core/redact.hpp"

namespace chopar::outbox {
namespace {

// Asynchronous publishes in flight before js_PublishMsgAsync stalls: above
// any batch, so a batch is always sent in one go and its acks awaited once.
constexpr std::int64_t kMaxPendingPublishes = 1 << 16;
constexpr std::int64_t kMaxConnectTimeoutMs = 5000;

std::vector<std::string> SplitTokens(const std::string& subject) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  while (true) {
    const auto dot = subject.find('.', start);
    tokens.push_back(subject.substr(start, dot - start));
    if (dot == std::string::npos) return tokens;
    start = dot + 1;
  }
}

}  // namespace

NatsError::NatsError(natsStatus status, const std::string& what)
    : std::runtime_error(what), status_(status) {}

void CheckNats(natsStatus status, const char* what) {
  if (status == NATS_OK) return;
  std::string message = std::string(what) + ": " + natsStatus_GetText(status);
  natsStatus last = NATS_OK;
  const char* detail = nats_GetLastError(&last);
  if (detail != nullptr && *detail != '\0' && message.find(detail) == std::string::npos) {
    message += " (" + std::string(detail) + ")";
  }
  throw NatsError(status, core::RedactSecrets(message));  // `what` may quote the URL
}

std::string SubjectFor(const std::string& subject_template, std::string_view type) {
  constexpr std::string_view kPlaceholder = "{type}";
  std::string subject = subject_template;
  const auto at = subject.find(kPlaceholder);
  if (at != std::string::npos) subject.replace(at, kPlaceholder.size(), type);
  return subject;
}

std::optional<std::string> StreamSubject(const std::string& subject_template) {
  const auto first = subject_template.find("{type}");
  if (first == std::string::npos) return subject_template;
  if (subject_template.find("{type}", first + 1) != std::string::npos) return std::nullopt;
  const std::vector<std::string> tokens = SplitTokens(subject_template);
  const auto at = std::find(tokens.begin(), tokens.end(), "{type}");
  if (at == tokens.end()) return std::nullopt;
  std::string subject;
  for (auto token = tokens.begin(); token != at; ++token) subject += *token + ".";
  return subject + ">";
}

NatsTarget::NatsTarget(const TargetSettings& settings) : settings_(settings) {}

NatsTarget::~NatsTarget() {
  std::lock_guard lock(publish_mutex_);
  js_.reset();
  connection_.reset();
}

std::uint64_t NatsTarget::duplicates() const {
  std::lock_guard lock(ack_mutex_);
  return duplicates_;
}

void NatsTarget::Connect() {
  if (connection_ && !natsConnection_IsClosed(connection_.get())) return;
  js_.reset();
  connection_.reset();

  natsOptions* raw_options = nullptr;
  CheckNats(natsOptions_Create(&raw_options), "NATS options");
  NatsOptions options(raw_options);
  CheckNats(natsOptions_SetURL(options.get(), settings_.url.c_str()), "NATS url");
  CheckNats(natsOptions_SetName(options.get(), "chopar relay"), "NATS name");
  CheckNats(natsOptions_SetTimeout(options.get(), std::min<std::int64_t>(settings_.timeout.count(),
                                                                         kMaxConnectTimeoutMs)),
            "NATS timeout");
  CheckNats(natsOptions_SetAllowReconnect(options.get(), true), "NATS reconnect");
  CheckNats(natsOptions_SetMaxReconnect(options.get(), -1), "NATS reconnect");
  CheckNats(natsOptions_SetReconnectWait(options.get(), 500), "NATS reconnect wait");

  natsConnection* raw_connection = nullptr;
  const std::string what = "connect to " + settings_.url;
  CheckNats(natsConnection_Connect(&raw_connection, options.get()), what.c_str());
  NatsConnection connection(raw_connection);

  jsOptions js_options;
  CheckNats(jsOptions_Init(&js_options), "JetStream options");
  js_options.Wait = settings_.timeout.count();
  js_options.PublishAsync.MaxPending = kMaxPendingPublishes;
  js_options.PublishAsync.AckHandler = &NatsTarget::OnAck;
  js_options.PublishAsync.AckHandlerClosure = this;
  jsCtx* raw_js = nullptr;
  CheckNats(natsConnection_JetStream(&raw_js, connection.get(), &js_options), "JetStream context");
  connection_ = std::move(connection);
  js_.reset(raw_js);
  EnsureStream();
}

void NatsTarget::EnsureStream() {
  jsStreamInfo* raw_info = nullptr;
  jsErrCode error_code = static_cast<jsErrCode>(0);
  natsStatus status =
      js_GetStreamInfo(&raw_info, js_.get(), settings_.stream.c_str(), nullptr, &error_code);
  JsStreamInfo info(raw_info);
  if (status == NATS_OK) return;
  if (status != NATS_NOT_FOUND && error_code != JSStreamNotFoundErr) {
    CheckNats(status, ("look up stream " + settings_.stream).c_str());
  }
  const std::string subject = StreamSubject(settings_.subject).value_or(settings_.subject);
  const char* subjects[] = {subject.c_str()};
  jsStreamConfig config;
  CheckNats(jsStreamConfig_Init(&config), "stream config");
  config.Name = settings_.stream.c_str();
  config.Subjects = subjects;
  config.SubjectsLen = 1;
  config.Storage = js_FileStorage;
  config.Duplicates =
      std::chrono::duration_cast<std::chrono::nanoseconds>(settings_.duplicate_window).count();
  raw_info = nullptr;
  status = js_AddStream(&raw_info, js_.get(), &config, nullptr, &error_code);
  info.reset(raw_info);
  // Another relay may have created it in between.
  if (status != NATS_OK && error_code != JSStreamNameExistErr) {
    CheckNats(status, ("create stream " + settings_.stream).c_str());
  }
}

void NatsTarget::OnAck(jsCtx*, natsMsg* msg, jsPubAck* ack, jsPubAckErr* error, void* self) {
  static_cast<NatsTarget*>(self)->Acknowledge(msg, ack, error);
  // The handler owns the message it is given.
  natsMsg_Destroy(msg);
}

void NatsTarget::Acknowledge(natsMsg* msg, const jsPubAck* ack, const jsPubAckErr* error) {
  std::lock_guard lock(ack_mutex_);
  if (pending_ == nullptr) return;
  const auto at = pending_->index_of.find(msg);
  if (at == pending_->index_of.end()) return;
  const std::size_t position = at->second;
  pending_->index_of.erase(at);
  if (ack != nullptr) {
    pending_->outcomes[position] = PublishOutcome::Ok();
    if (ack->Duplicate) ++duplicates_;
  } else if (error != nullptr) {
    std::string reason =
        std::string("JetStream refused it: ") +
        (error->ErrText != nullptr ? error->ErrText : natsStatus_GetText(error->Err));
    // No stream listening, or no answer: the target's trouble, not the event's.
    const bool unavailable = error->Err == NATS_NO_RESPONDERS || error->Err == NATS_TIMEOUT;
    pending_->outcomes[position] = unavailable ? PublishOutcome::Unavailable(std::move(reason))
                                               : PublishOutcome::Failed(std::move(reason));
  }
}

std::vector<PublishOutcome> NatsTarget::Publish(std::span<const Event* const> events) {
  std::lock_guard lock(publish_mutex_);
  Pending pending;
  pending.outcomes.assign(events.size(), PublishOutcome::Unavailable(
                                             "no JetStream acknowledgement within " +
                                             std::to_string(settings_.timeout.count()) + " ms"));
  pending.index_of.reserve(events.size());
  try {
    Connect();
  } catch (const NatsError& e) {
    return std::vector<PublishOutcome>(events.size(), PublishOutcome::Unavailable(e.what()));
  }

  {
    std::lock_guard ack_lock(ack_mutex_);
    pending_ = &pending;
  }
  std::string_view subject_type;  // events of a batch mostly share their type
  std::string subject;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& event = *events[i];
    if (subject.empty() || event.type != subject_type) {
      subject_type = event.type;
      subject = SubjectFor(settings_.subject, event.type);
    }
    natsMsg* raw_msg = nullptr;
    natsStatus status = natsMsg_Create(&raw_msg, subject.c_str(), nullptr, event.body.data(),
                                       static_cast<int>(event.body.size()));
    NatsMsg msg(raw_msg);
    if (status == NATS_OK) {
      jsPubOptions options;
      jsPubOptions_Init(&options);
      options.MsgId = event.event_id.c_str();
      {
        std::lock_guard ack_lock(ack_mutex_);
        pending.index_of[msg.get()] = i;
      }
      natsMsg* handed = msg.get();
      status = js_PublishMsgAsync(js_.get(), &handed, &options);
      // On success the library owns the message and cleared `handed`.
      if (handed == nullptr) (void)msg.release();
    }
    if (status != NATS_OK) {
      std::lock_guard ack_lock(ack_mutex_);
      pending.index_of.erase(msg.get());
      pending.outcomes[i] =
          PublishOutcome::Unavailable(std::string("publish: ") + natsStatus_GetText(status));
    }
  }
  jsPubOptions wait;
  jsPubOptions_Init(&wait);
  wait.MaxWait = settings_.timeout.count();
  if (js_PublishAsyncComplete(js_.get(), &wait) != NATS_OK) {
    // Take back what is still unacknowledged: those events failed (a late
    // ack is then discarded, and the retry is deduplicated by JetStream).
    natsMsgList unacknowledged{};
    if (js_PublishAsyncGetPendingList(&unacknowledged, js_.get()) == NATS_OK) {
      natsMsgList_Destroy(&unacknowledged);
    }
  }
  {
    std::lock_guard ack_lock(ack_mutex_);
    pending_ = nullptr;
  }
  return pending.outcomes;
}

}  // namespace chopar::outbox
