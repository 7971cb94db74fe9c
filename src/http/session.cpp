#include "http/session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http.hpp>

#include "core/text.hpp"
#include "http/blocking_call.hpp"
#include "http/inbox_stream.hpp"
#include "http/request_id.hpp"

// GCC 12 mishandles temporaries with destructors inside co_await
// expressions (they may be destroyed twice), so every argument of a co_await
// below is a named local.

namespace chopar::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::uint32_t kHeaderLimit = 16 * 1024;
// After refusing a request, how much of the unread rest is drained (and for
// how long) so that closing does not reset the connection under the answer.
constexpr std::size_t kLingerBytes = 8 * 1024 * 1024;
constexpr std::chrono::seconds kLingerTime{2};
const std::string kHeartbeat = ": ping\n\n";

auto Redirect(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

// The method, target and headers of a request whose header is in.
void ReadHeaderFields(const bhttp::request<bhttp::string_body>& message, Request& request) {
  request.method = std::string(message.method_string().data(), message.method_string().size());
  const std::string_view target(message.target().data(), message.target().size());
  const auto question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos)
    request.raw_query = std::string(target.substr(question + 1));
  for (const auto& field : message) {
    auto [it, inserted] = request.headers.emplace(
        core::AsciiLower(std::string_view(field.name_string().data(), field.name_string().size())),
        std::string(field.value().data(), field.value().size()));
    if (!inserted) {
      it->second += ", ";
      it->second.append(field.value().data(), field.value().size());
    }
  }
}

// Request::client_address of a connection: IPv4 as it is (an IPv4-mapped
// IPv6 address too), IPv6 by its /64, the smallest block one client is
// usually given; empty if the peer is already gone.
std::string ClientAddress(const asio::ip::tcp::socket& socket) {
  error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return {};
  const asio::ip::address address = endpoint.address();
  if (address.is_v4()) return address.to_string();
  const asio::ip::address_v6 v6 = address.to_v6();
  if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_string();
  auto bytes = v6.to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return asio::ip::address_v6(bytes).to_string() + "/64";
}

}  // namespace

// ---- SessionRegistry -------------------------------------------------------

bool SessionRegistry::Add(const std::shared_ptr<Session>& session) {
  std::lock_guard lock(mutex_);
  if (closing_) return false;
  sessions_.emplace(session.get(), session);
  return true;
}

void SessionRegistry::Remove(const Session* session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session);
  if (sessions_.empty()) empty_.notify_all();
}

std::vector<std::shared_ptr<Session>> SessionRegistry::BeginClosing() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  return Live();
}

std::vector<std::shared_ptr<Session>> SessionRegistry::Live() {
  std::vector<std::shared_ptr<Session>> live;
  std::lock_guard lock(mutex_);
  for (const auto& [address, weak] : sessions_) {
    if (auto session = weak.lock()) live.push_back(std::move(session));
  }
  return live;
}

bool SessionRegistry::WaitEmpty(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return empty_.wait_until(lock, deadline, [this] { return sessions_.empty(); });
}

std::size_t SessionRegistry::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

// ---- Session ---------------------------------------------------------------

struct Session::Incoming {
  Request request;
  unsigned version = 11;
  bool keep_alive = true;
};

Session::Session(const ServerContext& context, asio::ip::tcp::socket socket)
    : context_(context),
      stream_(std::move(socket)),
      executor_(stream_.get_executor()),
      wake_timer_(executor_),
      client_address_(ClientAddress(stream_.socket())) {
  context_.dispatcher.metrics().connections().Add(1);
}

Session::~Session() {
  if (stream_user_) {
    context_.streams.Remove(*stream_user_, this);
    context_.dispatcher.metrics().streams().Add(-1);
  }
  context_.sessions.Remove(this);
  context_.dispatcher.metrics().connections().Add(-1);
}

void Session::Start() {
  asio::co_spawn(
      executor_, [self = shared_from_this()] { return self->Run(); }, asio::detached);
}

void Session::Shutdown() {
  asio::post(executor_, [self = shared_from_this()] {
    self->stopping_ = true;
    switch (self->state_) {
      case State::kIdle:
        self->stream_.cancel();
        break;
      case State::kStreaming:
        self->wake_timer_.cancel();
        break;
      case State::kReading:   // finishes within the header/body timeouts
      case State::kHandling:  // answers with Connection: close
        break;
    }
  });
}

void Session::ForceClose() {
  asio::post(executor_, [self = shared_from_this()] {
    self->stopping_ = true;
    self->wake_timer_.cancel();
    self->Close();
  });
}

void Session::Wake() {
  asio::post(executor_, [self = shared_from_this()] {
    self->woken_ = true;
    self->wake_timer_.cancel();
  });
}

void Session::Deliver(const std::shared_ptr<const nlohmann::json>& state) {
  asio::post(executor_, [self = shared_from_this(), state] {
    // Only a stream sends them; one not yet streaming starts from the counts.
    if (self->state_ == State::kStreaming) {
      auto& pending = self->pending_states_;
      if (pending.size() >= InboxStream::kMaxPendingStates) pending.erase(pending.begin());
      pending.push_back(*state);
    }
    self->woken_ = true;
    self->wake_timer_.cancel();
  });
}

void Session::Close() {
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

asio::awaitable<void> Session::Run() {
  try {
    bool first = true;
    while (!stopping_) {
      auto incoming = co_await ReadRequest(first);
      first = false;
      if (!incoming) break;
      state_ = State::kHandling;
      const Dispatcher& dispatcher = context_.dispatcher;
      Request& request = incoming->request;
      Response response = co_await RunBlocking(
          context_.handlers, [&dispatcher, &request] { return dispatcher.Dispatch(request); });
      if (response.stream) {
        co_await Stream(*response.stream, incoming->version);
        break;
      }
      const bool keep_alive = incoming->keep_alive && !stopping_;
      const bool written = co_await Write(response, incoming->version, keep_alive);
      if (!written || !keep_alive) break;
    }
  } catch (const std::exception& e) {
    spdlog::error("http connection: {}", e.what());
  }
  Close();
}

asio::awaitable<std::optional<Session::Incoming>> Session::ReadRequest(bool first) {
  const Settings& settings = context_.settings;
  error_code ec;
  state_ = State::kIdle;
  // The header must be complete header_timeout after the connection opened
  // (first request) or after the request's first byte (kept alive): one
  // deadline, which later bytes do not move.
  auto header_deadline = std::chrono::steady_clock::now() + settings.header_timeout;
  if (buffer_.size() == 0) {
    // Waiting for the next request: the idle timeout, not the header timeout.
    if (first) {
      stream_.expires_at(header_deadline);
    } else {
      stream_.expires_after(settings.idle_timeout);
    }
    const std::size_t n =
        co_await stream_.async_read_some(buffer_.prepare(kReadChunk), Redirect(ec));
    if (ec) co_return std::nullopt;
    buffer_.commit(n);
    if (!first) header_deadline = std::chrono::steady_clock::now() + settings.header_timeout;
  }
  state_ = State::kReading;

  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(kHeaderLimit);
  // The route, and so its body limit, is known only once the header is in.
  parser.body_limit(context_.dispatcher.router().LargestBodyLimit(settings.body_limit));
  stream_.expires_at(header_deadline);
  co_await bhttp::async_read_header(stream_, buffer_, parser, Redirect(ec));
  // Before any answer, refusals included, so each carries the request's id.
  if (parser.is_header_done()) {
    const auto header = parser.get()["X-Request-Id"];
    request_id_ = RequestIdFor(header.empty() ? std::nullopt
                                              : std::optional<std::string_view>(std::string_view(
                                                    header.data(), header.size())));
  } else {
    request_id_ = RequestIdFor(std::nullopt);
  }
  Incoming incoming;
  std::size_t body_limit = settings.body_limit;
  if (!ec) {
    incoming.version = parser.get().version();
    incoming.keep_alive = parser.get().keep_alive();
    ReadHeaderFields(parser.get(), incoming.request);
    if (!parser.is_done()) {
      const Request& request = incoming.request;
      body_limit = context_.dispatcher.router().BodyLimitFor(request.method, request.path,
                                                             settings.body_limit);
      parser.body_limit(body_limit);
      if (parser.content_length() && *parser.content_length() > body_limit)
        ec = bhttp::error::body_limit;
    }
  }
  if (!ec && !parser.is_done()) {
    // The credentials are in the header: a client without them is refused
    // before it is asked for (100 Continue) or sends a body to be read.
    if (const auto refused = context_.dispatcher.Preauthorize(incoming.request)) {
      co_await RefuseAndClose(*refused, incoming.version);
      co_return std::nullopt;
    }
    if (beast::iequals(parser.get()[bhttp::field::expect], "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(settings.write_timeout);
      co_await asio::async_write(stream_, asio::buffer(kContinue), Redirect(ec));
    }
    if (!ec) {
      stream_.expires_after(settings.body_timeout);
      co_await bhttp::async_read(stream_, buffer_, parser, Redirect(ec));
    }
  }
  const unsigned version = parser.is_header_done() ? parser.get().version() : 11;
  if (ec == bhttp::error::body_limit) {
    const ErrorInfo error = ToErrorInfo(
        core::RequestError(core::ErrorCode::kPayloadTooLarge,
                           "the request body exceeds " + std::to_string(body_limit) + " bytes"));
    co_await RefuseAndClose(error, version);
    co_return std::nullopt;
  }
  if (ec == bhttp::error::header_limit) {
    const ErrorInfo error = ToErrorInfo(
        core::RequestError(core::ErrorCode::kHeadersTooLarge, "the request headers are too large"));
    co_await RefuseAndClose(error, version);
    co_return std::nullopt;
  }
  if (ec) {
    // A malformed request gets an answer; a timeout or a closed socket none.
    if (ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
      const ErrorInfo error = ToErrorInfo(core::RequestError(
          core::ErrorCode::kBadRequest, "malformed HTTP request: " + ec.message()));
      co_await RefuseAndClose(error, version);
    }
    co_return std::nullopt;
  }
  stream_.expires_never();
  incoming.request.received_at = std::chrono::steady_clock::now();
  incoming.request.body = std::move(parser.get().body());
  incoming.request.id = request_id_;
  incoming.request.client_address = client_address_;
  co_return incoming;
}

asio::awaitable<bool> Session::Write(const Response& response, unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> message{static_cast<bhttp::status>(response.status), version};
  message.set(bhttp::field::server, "chopar");
  message.set("X-Request-Id", request_id_);
  if (!response.content_type.empty())
    message.set(bhttp::field::content_type, response.content_type);
  for (const auto& [name, value] : response.headers) message.set(name, value);
  message.body() = response.body;
  message.keep_alive(keep_alive);
  message.prepare_payload();
  error_code ec;
  stream_.expires_after(context_.settings.write_timeout);
  co_await bhttp::async_write(stream_, message, Redirect(ec));
  stream_.expires_never();
  co_return !ec;
}

asio::awaitable<void> Session::RefuseAndClose(const ErrorInfo& error, unsigned version) {
  context_.dispatcher.metrics().Record(Dispatcher::kUnmatchedRoute, error.status, 0);
  const Response response = error.ToResponse();
  const bool written = co_await Write(response, version, /*keep_alive=*/false);
  if (!written) co_return;
  error_code ec;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  stream_.expires_after(kLingerTime);
  std::array<char, 16 * 1024> scratch;
  std::size_t drained = 0;
  while (!ec && drained < kLingerBytes) {
    drained += co_await stream_.async_read_some(asio::buffer(scratch), Redirect(ec));
  }
}

asio::awaitable<bool> Session::WriteStreamText(const std::string& text) {
  error_code ec;
  // A reader that stopped reading is dropped once a write has waited
  // write_timeout, instead of holding its socket and buffers for ever.
  stream_.expires_after(context_.settings.write_timeout);
  if (chunked_) {
    const auto chunk = bhttp::make_chunk(asio::buffer(text));
    co_await asio::async_write(stream_, chunk, Redirect(ec));
  } else {
    co_await asio::async_write(stream_, asio::buffer(text), Redirect(ec));
  }
  stream_.expires_never();
  co_return !ec;
}

asio::awaitable<void> Session::WatchForClose() {
  // Streams are one-way; reading only notices the client going away, so its
  // stream ends at once rather than at the next heartbeat.
  std::array<char, 512> scratch;
  error_code ec;
  while (!ec) co_await stream_.async_read_some(asio::buffer(scratch), Redirect(ec));
  peer_closed_ = true;
  wake_timer_.cancel();
}

asio::awaitable<void> Session::Stream(StreamStart start, unsigned version) {
  const Settings& settings = context_.settings;
  const std::int64_t user_id = start.user_id;
  // A place among the streams first: over a cap the client gets a plain 503.
  if (!context_.streams.TryAdd(
          user_id, shared_from_this(), static_cast<std::size_t>(std::max(0, settings.max_streams)),
          static_cast<std::size_t>(std::max(0, settings.max_streams_per_user)))) {
    context_.dispatcher.metrics().Record(Dispatcher::kUnmatchedRoute, 503, 0);
    const Response refused =
        ToErrorInfo(core::Unavailable("too many event streams are open; retry later")).ToResponse();
    (void)co_await Write(refused, version, /*keep_alive=*/false);
    co_return;
  }
  stream_user_ = user_id;
  context_.dispatcher.metrics().streams().Add(1);
  state_ = State::kStreaming;
  chunked_ = version >= 11;
  bhttp::response<bhttp::empty_body> header{bhttp::status::ok, version};
  header.set(bhttp::field::server, "chopar");
  header.set("X-Request-Id", request_id_);
  header.set(bhttp::field::content_type, "text/event-stream");
  header.set(bhttp::field::cache_control, "no-cache");
  header.set("X-Accel-Buffering", "no");
  header.set(bhttp::field::access_control_allow_origin, "*");
  header.keep_alive(chunked_);
  if (chunked_) header.chunked(true);
  bhttp::response_serializer<bhttp::empty_body> serializer{header};
  error_code ec;
  stream_.expires_after(settings.write_timeout);
  co_await bhttp::async_write_header(stream_, serializer, Redirect(ec));
  stream_.expires_never();
  if (ec) co_return;

  InboxStream inbox(*context_.inbox, user_id, start.last_id, start.unread_count, start.tenant,
                    start.unseen_count);
  woken_ = woken_ || start.catch_up;
  asio::co_spawn(
      executor_, [self = shared_from_this()] { return self->WatchForClose(); }, asio::detached);

  bool healthy = co_await WriteStreamText(inbox.Opening());
  bool retry_on_tick = false;
  while (healthy && !stopping_ && !peer_closed_) {
    if (!woken_) {
      wake_timer_.expires_after(context_.settings.sse_heartbeat);
      co_await wake_timer_.async_wait(Redirect(ec));
      if (stopping_ || peer_closed_) break;
      const bool heartbeat_due = !ec && !woken_;
      if (heartbeat_due && !retry_on_tick) {
        healthy = co_await WriteStreamText(kHeartbeat);
        continue;
      }
      if (!heartbeat_due && !woken_) continue;
    }
    woken_ = false;
    const std::string& request_id = request_id_;
    std::vector<nlohmann::json> states = std::move(pending_states_);
    pending_states_.clear();
    InboxStream::Fetched fetched = co_await RunBlocking(
        context_.handlers,
        [&inbox, &request_id, &states] { return inbox.Fetch(request_id, states); });
    // A failed fetch is tried again at the next heartbeat tick, with its
    // state changes.
    retry_on_tick = !fetched.ok;
    if (!fetched.ok) {
      pending_states_.insert(pending_states_.begin(), states.begin(), states.end());
      if (pending_states_.size() > InboxStream::kMaxPendingStates) {
        pending_states_.erase(pending_states_.begin(),
                              pending_states_.end() - InboxStream::kMaxPendingStates);
      }
      continue;
    }
    bool more = false;
    const std::string text = inbox.Advance(fetched, more);
    if (more) woken_ = true;
    if (!text.empty()) healthy = co_await WriteStreamText(text);
  }

  context_.streams.Remove(user_id, this);
  context_.dispatcher.metrics().streams().Add(-1);
  stream_user_.reset();
  if (healthy && !peer_closed_ && chunked_) {
    const auto last_chunk = bhttp::make_chunk_last();
    stream_.expires_after(settings.write_timeout);
    co_await asio::async_write(stream_, last_chunk, Redirect(ec));
  }
}

}  // namespace chopar::http
