#include "net/http_client.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <ctime>
#include <thread>

#include "core/text.hpp"
#include "net/address_policy.hpp"

namespace chopar::net {
namespace {

// Connections one multi handle opens to one host at most, when no
// InFlightLimit bounds the requests.
constexpr long kMaxHostConnections = 64;
// While its own transfers run, a call whose next request waits for a slot
// held elsewhere looks again this often: another thread's Release does not
// wake curl_multi_poll.
constexpr int kSlotRecheckMs = 10;

struct ReleaseSlot {
  void operator()(InFlightLimit* limit) const noexcept { limit->Release(); }
};
// A slot of an InFlightLimit, given back when the transfer ends (or the
// call unwinds).
using HeldSlot = std::unique_ptr<InFlightLimit, ReleaseSlot>;

struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  CurlEasy easy;
  CurlSlist headers;
  HeldSlot slot;
  bool started = false;
  bool done = false;
};

// Keeps at most max_response_bytes of the body; past that the transfer is
// stopped (a write error, reported as success with body_truncated): a huge
// or endless answer neither fills memory nor holds the caller.
std::size_t WriteBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::string& body = t.response->body;
  const std::size_t bytes = size * count;
  const std::size_t room =
      t.request->max_response_bytes - std::min(body.size(), t.request->max_response_bytes);
  if (bytes > room) {
    body.append(data, room);
    t.response->body_truncated = true;
    return 0;
  }
  body.append(data, bytes);
  return bytes;
}

// CURLOPT_OPENSOCKETFUNCTION: with public_addresses_only, an address the
// name resolved to that is not public (net/address_policy.hpp) is never
// connected to; checked here, after resolution, so DNS cannot point a
// public-looking name at chopar's own network.
curl_socket_t OpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto& t = *static_cast<Transfer*>(user);
  if (purpose == CURLSOCKTYPE_IPCXN && t.request->public_addresses_only &&
      !IsPublicAddress(address->addr)) {
    t.response->address_refused = true;
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype, address->protocol);
}

std::size_t WriteHeader(char* data, std::size_t size, std::size_t count, void* user) {
  const std::string line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    const std::string name = core::AsciiLower(std::string_view(line).substr(0, colon));
    static_cast<HttpResponse*>(user)->headers[name] =
        std::string(core::TrimWhitespace(std::string_view(line).substr(colon + 1)));
  }
  return size * count;
}

void GiveUpUnstarted(Transfer& t) {
  t.response->error = CURLE_OPERATION_TIMEDOUT;
  t.response->error_message =
      "not started: no free in-flight slot before its start deadline (nothing was sent)";
  t.response->not_started = true;
  t.done = true;
}

void Configure(Transfer& t) {
  CURL* easy = t.easy.get();
  const HttpRequest& r = *t.request;
  curl_easy_setopt(easy, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  if (r.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r.body.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  }
  for (const auto& header : r.headers) {
    curl_slist* appended = curl_slist_append(t.headers.get(), header.c_str());
    if (appended != nullptr) {
      (void)t.headers.release();
      t.headers.reset(appended);
    }
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t.headers.get());
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<long long>(r.timeout.count(), 5000)));
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  if (r.ca_file) {
    curl_easy_setopt(easy, CURLOPT_CAINFO, r.ca_file->c_str());
    curl_easy_setopt(easy, CURLOPT_CAPATH, nullptr);
  }
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  // Waiting to learn whether a connection multiplexes pays only where HTTP/2
  // can be had (TLS). Over plain http:// libcurl learns it from the first
  // answer only, so every other request to that host would wait for it,
  // with its timeout running.
  if (core::AsciiLower(std::string_view(r.url).substr(0, 8)) == "https://")
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, OpenSocket);
  curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, &t);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, t.response);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &t);
}

}  // namespace

HttpClient::HttpClient() { curl_global_init(CURL_GLOBAL_DEFAULT); }
HttpClient::~HttpClient() = default;

CurlMulti HttpClient::Borrow() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      CurlMulti multi = std::move(idle_.back());
      idle_.pop_back();
      return multi;
    }
  }
  CurlMulti multi(curl_multi_init());
  curl_multi_setopt(multi.get(), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  return multi;
}

void HttpClient::Return(CurlMulti multi) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(multi));
}

// Detaches the transfers still attached to a multi handle when a call
// unwinds early (an on_finished that threw): an easy handle must leave its
// multi before either is freed. The multi handle is then not reused.
struct DetachOnUnwind {
  CURLM* multi;
  std::vector<Transfer>& transfers;
  ~DetachOnUnwind() {
    for (Transfer& t : transfers) {
      if (t.easy) curl_multi_remove_handle(multi, t.easy.get());
    }
  }
};

std::vector<HttpResponse> HttpClient::PerformAll(std::span<const HttpRequest> requests,
                                                 InFlightLimit* limit,
                                                 const Finished& on_finished) {
  std::vector<HttpResponse> responses(requests.size());
  if (requests.empty()) return responses;
  CurlMulti multi = Borrow();
  std::vector<Transfer> transfers(requests.size());
  const DetachOnUnwind detach{multi.get(), transfers};
  std::vector<std::size_t> finished;  // of one turn, for on_finished
  // With a limit, no transfer of this call may wait in libcurl's own queue
  // for a connection: its timeout would run there. The limit already keeps
  // the transfers (so the connections a host needs) at most its capacity.
  curl_multi_setopt(multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS,
                    limit == nullptr ? kMaxHostConnections : static_cast<long>(limit->capacity()));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    transfers[i].request = &requests[i];
    transfers[i].response = &responses[i];
  }

  std::size_t remaining = requests.size();
  while (remaining > 0) {
    // Start every transfer whose time has come and that gets a slot, in
    // order: once one waits for a slot, the later ones wait behind it. Give
    // up those whose start_by has passed.
    const auto now = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> next_wake;
    const auto wake_at = [&](std::chrono::steady_clock::time_point at) {
      if (!next_wake || at < *next_wake) next_wake = at;
    };
    bool waiting_for_slot = false;
    for (auto& t : transfers) {
      if (t.started || t.done) continue;
      if (t.request->start_by && *t.request->start_by <= now) {
        GiveUpUnstarted(t);
        finished.push_back(static_cast<std::size_t>(&t - transfers.data()));
        --remaining;
        continue;
      }
      if (t.request->not_before > now) {
        wake_at(t.request->not_before);
        if (t.request->start_by) wake_at(*t.request->start_by);
        continue;
      }
      if (!waiting_for_slot && limit != nullptr && !limit->TryAcquire()) waiting_for_slot = true;
      if (waiting_for_slot) {
        if (t.request->start_by) wake_at(*t.request->start_by);
        continue;
      }
      if (limit != nullptr) t.slot.reset(limit);
      // CURLOPT_TIMEOUT_MS counts from here: the request's own start.
      t.easy.reset(curl_easy_init());
      Configure(t);
      curl_multi_add_handle(multi.get(), t.easy.get());
      t.started = true;
    }

    int running = 0;
    curl_multi_perform(multi.get(), &running);
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      t->response->error = message->data.result;
      if (t->response->body_truncated && t->response->error == CURLE_WRITE_ERROR) {
        t->response->error = CURLE_OK;
      }
      curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &t->response->status);
      curl_off_t uploaded = 0;
      curl_easy_getinfo(message->easy_handle, CURLINFO_SIZE_UPLOAD_T, &uploaded);
      long header_bytes = 0;
      curl_easy_getinfo(message->easy_handle, CURLINFO_REQUEST_SIZE, &header_bytes);
      t->response->request_sent = uploaded > 0 || header_bytes > 0;
      if (t->response->error != CURLE_OK) {
        t->response->error_message =
            t->response->address_refused
                ? "the endpoint's host is not a public address (loopback, private, link-local or "
                  "metadata)"
                : curl_easy_strerror(t->response->error);
      }
      curl_multi_remove_handle(multi.get(), message->easy_handle);
      t->easy.reset();
      t->headers.reset();
      t->slot.reset();
      t->done = true;
      finished.push_back(static_cast<std::size_t>(t - transfers.data()));
      --remaining;
    }
    if (on_finished && !finished.empty()) on_finished(finished, responses);
    finished.clear();
    if (remaining == 0) break;

    int wait_ms = 1000;
    if (next_wake) {
      const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
          *next_wake - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(std::clamp<long long>(until.count(), 0, 1000));
    }
    if (running > 0) {
      // Our own transfers ending wake the poll; a slot freed elsewhere does not.
      curl_multi_poll(multi.get(), nullptr, 0,
                      waiting_for_slot ? std::min(wait_ms, kSlotRecheckMs) : wait_ms, nullptr);
    } else if (waiting_for_slot) {
      limit->WaitForFree(std::chrono::milliseconds(wait_ms));
    } else if (wait_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
  }
  Return(std::move(multi));
  return responses;
}

HttpResponse HttpClient::Perform(const HttpRequest& request, InFlightLimit* limit) {
  return std::move(PerformAll(std::span<const HttpRequest>(&request, 1), limit).front());
}

std::optional<std::chrono::seconds> ParseRetryAfter(const std::string& value,
                                                    std::chrono::system_clock::time_point now) {
  using std::chrono::seconds;
  if (value.empty()) return std::nullopt;
  const seconds longest = core::kLongestRetryAfter;
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    std::uint64_t delta = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), delta);
    if (error == std::errc::result_out_of_range) return longest;
    if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
    return delta >= static_cast<std::uint64_t>(longest.count())
               ? longest
               : seconds(static_cast<seconds::rep>(delta));
  }
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr) return std::nullopt;
  // In whole seconds: a far-future date would overflow a system_clock time point.
  const std::int64_t at = timegm(&tm);
  const std::int64_t from = std::chrono::duration_cast<seconds>(now.time_since_epoch()).count();
  if (at <= from) return seconds(0);
  return at - from >= longest.count() ? longest : seconds(at - from);
}

}  // namespace chopar::net
