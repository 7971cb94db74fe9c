#include "http/server.hpp"

// clang-format off
// Boost.Asio 1.74's awaitable.hpp uses std::exchange without including it.
#include <utility>
// clang-format on

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <array>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <thread>

#include "core/request_error.hpp"
#include "http/dispatcher.hpp"
#include "http/error_response.hpp"
#include "http/inbox_listener.hpp"
#include "http/session.hpp"
#include "http/stream_hub.hpp"
#include "http/subscriber_token.hpp"

namespace chopar::http {

namespace asio = boost::asio;
using asio::ip::tcp;

void ApplyListenAddress(std::string_view listen, Settings& settings) {
  const auto colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == listen.size()) {
    throw std::invalid_argument("listen address must be host:port, got \"" + std::string(listen) +
                                "\"");
  }
  std::string_view host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";  // ":8080": every interface
  if (host == "localhost") host = "127.0.0.1";
  const std::string_view port_text = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [ptr, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port > 65535) {
    throw std::invalid_argument("bad port in listen address \"" + std::string(listen) + "\"");
  }
  boost::system::error_code bad_host;
  asio::ip::make_address(std::string(host), bad_host);
  if (bad_host) {
    throw std::invalid_argument("listen host must be an IP address, got \"" + std::string(host) +
                                "\"");
  }
  settings.host = std::string(host);
  settings.port = static_cast<std::uint16_t>(port);
}

namespace {

// Descriptors kept free for everything else (database pool and LISTEN
// connections, provider calls, log files) when the connection cap is derived
// from the open-file limit.
constexpr std::uint64_t kReservedDescriptors = 128;

// settings.max_connections, lowered if needed so that accepting that many
// still leaves descriptors for the rest of the process: running out of them
// fails the database and providers, not just the newest client.
std::size_t ConnectionCap(const Settings& settings) {
  std::size_t cap = static_cast<std::size_t>(std::max(1, settings.max_connections));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t soft = limit.rlim_cur;
    const std::uint64_t room =
        soft > 2 * kReservedDescriptors ? soft - kReservedDescriptors : soft / 2;
    if (room < cap) {
      spdlog::warn("http: at most {} connections (open-file limit {}), not {}", room, soft, cap);
      cap = static_cast<std::size_t>(room);
    }
  }
  return cap;
}

// One connection too many: a short 503 written without waiting (it fits in
// a new socket's send buffer), then closed. What the client already sent is
// read first, so closing does not reset the connection under the answer.
void RefuseConnection(tcp::socket& socket) {
  static const std::string kAnswer = [] {
    const Response response =
        ToErrorInfo(core::Unavailable("too many connections; retry later")).ToResponse();
    return "HTTP/1.1 503 Service Unavailable\r\nServer: chopar\r\nContent-Type: " +
           response.content_type + "\r\nContent-Length: " + std::to_string(response.body.size()) +
           "\r\nConnection: close\r\n\r\n" + response.body;
  }();
  boost::system::error_code ec;
  socket.non_blocking(true, ec);
  std::array<char, 4096> scratch;
  while (!ec && socket.available(ec) > 0) socket.read_some(asio::buffer(scratch), ec);
  ec.clear();
  socket.write_some(asio::buffer(kAnswer), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

// The credentials of `settings`; with `deps`, subscriber tokens are also
// checked against the user's token generation.
AuthKeys MakeAuthKeys(const Settings& settings, const std::optional<Dependencies>& deps) {
  AuthKeys keys{.api_key = settings.api_key,
                .inbox_secret = settings.inbox_secret,
                .v1_tokens_until = V1TokenCutoff(settings.accept_v1_tokens_until),
                .token_generation = {},
                .resolvers = {}};
  if (deps) {
    keys.token_generation = [&inbox = deps->inbox](std::int64_t user_id) {
      return inbox.SubscriberGeneration(user_id);
    };
  }
  return keys;
}

}  // namespace

// Members are declared so that destruction runs in a safe order: the IO
// context (and any coroutine it still holds) goes before what sessions
// refer to.
struct Server::Impl {
  Impl(Settings s, db::Pool& p, core::MetricsRegistry& registry, std::optional<Dependencies> d)
      : settings(std::move(s)),
        pool(p),
        deps(d),
        metrics(registry),
        limiter(settings.limits, clock, registry),
        dispatcher(router, MakeAuthKeys(settings, deps), metrics, &limiter,
                   d ? d->inbox.read_router() : nullptr),
        io(std::max(1, settings.io_threads)) {}

  asio::awaitable<void> AcceptLoop();

  Settings settings;
  db::Pool& pool;
  std::optional<Dependencies> deps;  // none: only /healthz and /metrics
  Router router;
  HttpMetrics metrics;
  core::SystemClock clock;
  RateLimiter limiter;
  Dispatcher dispatcher;
  StreamHub streams;
  SessionRegistry sessions;
  std::unique_ptr<InboxListener> listener;
  std::optional<ServerContext> context;
  asio::io_context io;
  std::optional<asio::thread_pool> handlers;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::optional<tcp::acceptor> acceptor;
  std::vector<std::thread> io_threads;
  std::atomic<std::uint16_t> port{0};
  std::size_t max_connections = 0;  // ConnectionCap(settings), from Start()
  bool started = false;
  bool stopped = false;
};

asio::awaitable<void> Server::Impl::AcceptLoop() {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket(asio::make_strand(io));
    co_await acceptor->async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !acceptor->is_open()) co_return;
    if (ec) {
      // Out of descriptors, say: wait a little rather than spin.
      spdlog::warn("http accept: {}", ec.message());
      asio::steady_timer pause(acceptor->get_executor(), std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (sessions.size() >= max_connections) {
      metrics.Record(Dispatcher::kUnmatchedRoute, 503, 0);
      RefuseConnection(socket);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    auto session = std::make_shared<Session>(*context, std::move(socket));
    if (!sessions.Add(session)) continue;  // stopping: the socket closes with the session
    session->Start();
  }
}

void Server::AcceptCredentials(CredentialResolvers resolvers) {
  impl_->dispatcher.AcceptCredentials(std::move(resolvers));
}

Server::Server(Settings settings, Dependencies deps)
    : impl_(std::make_unique<Impl>(std::move(settings), deps.pool, deps.metrics, deps)) {
  RegisterApiRoutes(impl_->router, *impl_->deps, impl_->settings.inbox_secret,
                    impl_->settings.metrics_access, impl_->settings.import_body_limit);
}

Server::Server(Settings settings, db::Pool& pool, core::MetricsRegistry& metrics)
    : impl_(std::make_unique<Impl>(std::move(settings), pool, metrics, std::nullopt)) {
  RegisterSystemRoutes(impl_->router, pool, metrics, MetricsAccess::kPublic);
}

Server::~Server() { Stop(); }

Router& Server::router() { return impl_->router; }

void Server::Start() {
  Impl& impl = *impl_;
  if (impl.started) throw std::logic_error("http::Server::Start called twice");
  const tcp::endpoint endpoint(asio::ip::make_address(impl.settings.host), impl.settings.port);
  impl.acceptor.emplace(asio::make_strand(impl.io));
  impl.acceptor->open(endpoint.protocol());
  impl.acceptor->set_option(asio::socket_base::reuse_address(true));
  impl.acceptor->bind(endpoint);
  impl.acceptor->listen(asio::socket_base::max_listen_connections);
  impl.port = impl.acceptor->local_endpoint().port();

  impl.max_connections = ConnectionCap(impl.settings);
  impl.handlers.emplace(static_cast<std::size_t>(std::max(1, impl.settings.handler_threads)));
  impl.context.emplace(ServerContext{impl.settings, impl.dispatcher, *impl.handlers, impl.streams,
                                     impl.deps ? &impl.deps->inbox : nullptr, impl.sessions});
  if (impl.deps) {
    impl.listener = std::make_unique<InboxListener>(impl.pool.listen_conninfo(), impl.streams,
                                                    InboxListener::Options{});
    impl.listener->Start();
  }

  impl.work.emplace(impl.io.get_executor());
  asio::co_spawn(impl.acceptor->get_executor(), impl.AcceptLoop(), asio::detached);
  for (int i = 0; i < std::max(1, impl.settings.io_threads); ++i) {
    impl.io_threads.emplace_back([&io = impl.io] {
      for (;;) {
        try {
          io.run();
          return;
        } catch (const std::exception& e) {
          spdlog::error("http io thread: {}", e.what());
        }
      }
    });
  }
  impl.started = true;
  spdlog::info("http: listening on {}:{}", impl.settings.host, impl.port.load());
}

void Server::Stop() {
  Impl& impl = *impl_;
  if (!impl.started || impl.stopped) return;
  impl.stopped = true;

  if (impl.listener) impl.listener->Stop();
  asio::post(impl.acceptor->get_executor(), [&impl] {
    boost::system::error_code ignored;
    impl.acceptor->close(ignored);
  });
  for (const auto& session : impl.sessions.BeginClosing()) session->Shutdown();
  const auto deadline = std::chrono::steady_clock::now() + impl.settings.shutdown_timeout;
  if (!impl.sessions.WaitEmpty(deadline)) {
    spdlog::warn("http: {} connections still open after {} ms; closing them", impl.sessions.size(),
                 impl.settings.shutdown_timeout.count());
    for (const auto& session : impl.sessions.Live()) session->ForceClose();
    impl.sessions.WaitEmpty(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  }
  // Handlers still running answer into connections that are closed or closing.
  impl.handlers->join();
  impl.work.reset();
  impl.io.stop();
  for (auto& thread : impl.io_threads) thread.join();
  impl.io_threads.clear();
  spdlog::info("http: stopped");
}

std::uint16_t Server::port() const { return impl_->port.load(); }

std::size_t Server::connections() const { return impl_->sessions.size(); }

std::size_t Server::streams() const { return impl_->streams.size(); }

std::uint64_t Server::listener_connections() const {
  return impl_->listener ? impl_->listener->connections() : 0;
}

}  // namespace chopar::http
