#pragma once

#include <nats/nats.h>

#include <stdexcept>
#include <string>

#include "core/c_handle.hpp"

namespace chopar::outbox {

// Owners of the NATS C client's handles (libnats, core/c_handle.hpp);
// move-only.
using NatsOptions = core::CHandle<natsOptions, natsOptions_Destroy>;
using NatsConnection = core::CHandle<natsConnection, natsConnection_Destroy>;
using JsContext = core::CHandle<jsCtx, jsCtx_Destroy>;
using NatsMsg = core::CHandle<natsMsg, natsMsg_Destroy>;
using JsStreamInfo = core::CHandle<jsStreamInfo, jsStreamInfo_Destroy>;
using NatsSubscription = core::CHandle<natsSubscription, natsSubscription_Destroy>;

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
