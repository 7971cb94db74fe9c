#pragma once

#include <curl/curl.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/backoff.hpp"
#include "net/curl_handles.hpp"
#include "net/in_flight_limit.hpp"

namespace chopar::net {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  std::chrono::milliseconds timeout{10000};
  // Not started before this instant: lets a rate limit delay one request
  // without holding back the others of the batch.
  std::chrono::steady_clock::time_point not_before{};
  // When set: not started after this instant — the request is then given
  // up unsent (HttpResponse::not_started). Bounds how long a call waits for
  // a slot of its InFlightLimit, so a receiver that holds every slot cannot
  // hold the caller much past this plus one timeout.
  std::optional<std::chrono::steady_clock::time_point> start_by;
  // Connect only to public addresses (net/address_policy.hpp), checked on
  // what the host name resolved to: for URLs a client chose.
  bool public_addresses_only = false;
  // At most this much of the response body is kept; the transfer stops there.
  std::size_t max_response_bytes = 64 * 1024;
  // When set: the PEM file of the CA certificates to trust for https,
  // instead of the system's (CURLOPT_CAINFO, no CA path) — for tests
  // against a fake provider with a self-signed certificate.
  std::optional<std::string> ca_file;
};

struct HttpResponse {
  long status = 0;  // 0 when no HTTP response arrived
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
  CURLcode error = CURLE_OK;
  std::string error_message;
  // Whether any byte of the request may have reached the server: a failure
  // after that point leaves the outcome unknown (matters for non-idempotent
  // providers such as SMS).
  bool request_sent = false;
  // public_addresses_only refused an address the host resolved to (the
  // error is then a connection failure, error_message says why).
  bool address_refused = false;
  // The body is the first max_response_bytes; the rest was not read.
  bool body_truncated = false;
  // Never started: its start_by passed while it waited (for a slot of the
  // call's InFlightLimit). Nothing was sent; error is
  // CURLE_OPERATION_TIMEDOUT and error_message says why.
  bool not_started = false;

  [[nodiscard]] bool ok() const { return error == CURLE_OK && status >= 200 && status < 300; }
  [[nodiscard]] std::optional<std::string> Header(const std::string& lower_name) const {
    const auto it = headers.find(lower_name);
    if (it == headers.end()) return std::nullopt;
    return it->second;
  }
};

// Runs batches of HTTP requests concurrently on one thread with libcurl's
// multi interface: keep-alive connections reused across batches, HTTP/2
// where the server offers it (multiplexed), a timeout per request, and
// optionally an InFlightLimit shared per receiver. Thread-safe: each caller
// borrows one of several multi handles, each keeping its own connection
// cache, so parallel worker threads do not serialise on each other.
class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Performs every request and returns one response per request, in order.
  // Never throws for network or HTTP failures (they are in the responses).
  //
  // With a `limit`, a request starts only once it holds one of the limit's
  // slots and gives it back when it ends, so at most limit->capacity()
  // requests sharing the limit are in flight at once, across threads and
  // calls. A request's timeout runs from its start, never while it waits for
  // a slot (or for its not_before), and one that never answers holds one
  // slot, not the others. The requests take the free slots in order; one
  // still waiting at its start_by is given up unsent. The limit is not
  // owned and must outlive the call. Without one, every
  // request of the call starts at once (up to 64 connections per host).
  //
  // With `on_finished`, each time some requests end it is called (on the
  // calling thread, between two turns of the transfer loop) with their
  // indices; their responses are then final, and the caller may act on them
  // while the others run — a silent server delays only its own request's
  // answer. The others make no progress while it runs, so it should be
  // short (a database write is fine). If it throws, the transfers still
  // running are abandoned and the exception propagates.
  using Finished = std::function<void(std::span<const std::size_t> indices,
                                      std::span<const HttpResponse> responses)>;
  std::vector<HttpResponse> PerformAll(std::span<const HttpRequest> requests,
                                       InFlightLimit* limit = nullptr,
                                       const Finished& on_finished = nullptr);
  HttpResponse Perform(const HttpRequest& request, InFlightLimit* limit = nullptr);

 private:
  CurlMulti Borrow();
  void Return(CurlMulti multi);

  std::mutex mutex_;
  std::vector<CurlMulti> idle_;
};

// The delay a Retry-After header asks for: its delta-seconds, or for an HTTP
// date the time from `now` until then (zero once it has passed), at most
// core::kLongestRetryAfter (a year-9999 date is a day, never an overflow).
// nullopt for an empty or unparsable value.
std::optional<std::chrono::seconds> ParseRetryAfter(const std::string& value,
                                                    std::chrono::system_clock::time_point now);

}  // namespace chopar::net
