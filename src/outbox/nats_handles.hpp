#pragma once

#include <nats/nats.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace chopar::outbox {

// Owners of the NATS C client's handles (libnats); move-only.
struct NatsOptionsDeleter {
  void operator()(natsOptions* p) const noexcept { natsOptions_Destroy(p); }
};
struct NatsConnectionDeleter {
  void operator()(natsConnection* p) const noexcept { natsConnection_Destroy(p); }
};
struct JsContextDeleter {
  void operator()(jsCtx* p) const noexcept { jsCtx_Destroy(p); }
};
struct NatsMsgDeleter {
  void operator()(natsMsg* p) const noexcept { natsMsg_Destroy(p); }
};
struct JsStreamInfoDeleter {
  void operator()(jsStreamInfo* p) const noexcept { jsStreamInfo_Destroy(p); }
};
struct NatsSubscriptionDeleter {
  void operator()(natsSubscription* p) const noexcept { natsSubscription_Destroy(p); }
};
using NatsOptions = std::unique_ptr<natsOptions, NatsOptionsDeleter>;
using NatsConnection = std::unique_ptr<natsConnection, NatsConnectionDeleter>;
using JsContext = std::unique_ptr<jsCtx, JsContextDeleter>;
using NatsMsg = std::unique_ptr<natsMsg, NatsMsgDeleter>;
using JsStreamInfo = std::unique_ptr<jsStreamInfo, JsStreamInfoDeleter>;
using NatsSubscription = std::unique_ptr<natsSubscription, NatsSubscriptionDeleter>;

// A failed libnats call: the status text and, when the library has one, its
// last error message.
class NatsError : public std::runtime_error {
 public:
  NatsError(natsStatus status, const std::string& what);
  [[nodiscard]] natsStatus status() const { return status_; }

 private:
  natsStatus status_;
};

// Throws NatsError("<what>: <status text>…") unless `status` is NATS_OK;
// credentials in the text (a URL's user info) are redacted (core::RedactSecrets).
void CheckNats(natsStatus status, const char* what);

}  // namespace chopar::outbox
