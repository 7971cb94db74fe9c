#pragma once

#include "channels/channel.hpp"
#include "channels/sms/eskiz_settings.hpp"
#include "channels/sms/eskiz_token_cache.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::sms {

// SMS through Eskiz (notify.eskiz.uz). Each message of a batch is one
// POST /api/message/sms/send (multipart form: mobile_phone as digits without
// '+', message = RenderSmsText, from, callback_url), all of them at once
// through the shared net::HttpClient, with the bearer token of EskizTokenCache.
//
// Answers: 200 {"id": ...} → Sent with Eskiz's id as the provider message id.
// 401 → one single-flight re-login, then the same messages once more with
// the new token. 429 → Retry (after Retry-After when given). 5xx → Retry.
// Any other 4xx → Permanent with Eskiz's message. A failed login → Retry.
// No phone number → Permanent.
//
// An Eskiz send is not idempotent, so a send is never repeated blindly:
//  * Just before the requests go out, each delivery is marked
//    outcome_unknown in the database (one statement for the batch, no
//    transaction held during the calls). Right after the answers, before
//    returning, the marker is cleared for every definite answer and Eskiz's
//    id is stored on the delivery — so an accepted SMS is known even if the
//    worker then crashes or loses its claim, and a delivery report can find
//    its delivery at once.
//  * A request that failed after it may have reached Eskiz (timeout or a
//    connection lost after the request was written: no answer, and
//    net::HttpResponse::request_sent) keeps the marker. Eskiz's id is then
//    unknown, and without it nothing can be reconciled: the outcome is
//    Permanent "outcome unknown: ..." (the delivery becomes failed). It is
//    not sent again: a missing SMS is better than two. A report posted by
//    Eskiz later cannot be matched either; the operator can check Eskiz's
//    cabinet. A failure before anything was written (connection refused,
//    DNS) is a plain Retry.
//  * When Send gets a delivery that already has an Eskiz id (an earlier
//    attempt was accepted but the worker never recorded it), it does not
//    send: it asks GET /api/message/sms/status_by_id/<id>. Known to Eskiz →
//    Sent with that id (and its final status recorded); 404 → Eskiz never
//    took it: the id is forgotten and the outcome is Retry, so the next
//    attempt sends it; anything else → Retry.
//  * When Send gets a delivery still marked outcome_unknown without an id
//    (a worker died mid-send), it is Permanent "outcome unknown" as above.
//    When another sender marked it a moment ago (a lease taken over while the
//    first sender is still waiting), Retry: the next attempt sees the result.
//
// Holds references: `http`, `pool` and `clock` must outlive the channel.
// Thread-safe: Send may run on several threads at once. Throws db errors
// when the database is lost (the worker then retries the batch).
class EskizChannel final : public Channel {
 public:
  EskizChannel(EskizSettings settings, net::HttpClient& http, db::Pool& pool,
               const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "eskiz"; }
  // Its outcome_unknown marker and Eskiz's id decide before any send (above).
  [[nodiscard]] bool GuardsRepeats() const override { return true; }

  [[nodiscard]] EskizTokenCache& tokens() { return tokens_; }

 private:
  EskizSettings settings_;
  net::HttpClient& http_;
  db::Pool& pool_;
  const core::Clock& clock_;
  EskizTokenCache tokens_;
};

}  // namespace chopar::channels::sms
