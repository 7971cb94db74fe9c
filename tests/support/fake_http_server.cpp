#include "testing/fake_http_server.hpp"

#include <utility>  // before Boost 1.74 asio, whose awaitable.hpp needs std::exchange

#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <condition_variable>

namespace chopar::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The number after "X-Chopar-Delivery-Id: " (nullopt when absent or not a number).
std::optional<std::int64_t> DeliveryIdOf(const FakeHttpServer::Request& request) {
  const auto found = request.headers.find("x-chopar-delivery-id");
  if (found == request.headers.end()) return std::nullopt;
  try {
    return std::stoll(found->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct FakeHttpServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread accept_thread;
  mutable std::mutex mutex;
  std::condition_variable stop_cv;  // delays wait here, ended by the destructor
  Handler handler;
  std::vector<Request> requests;
  // One per accepted connection, until its thread has ended and is joined.
  struct Connection {
    std::shared_ptr<tcp::socket> socket;
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::vector<Connection> connections;
  std::size_t accepted = 0;  // connections, under `mutex`
  std::atomic<bool> stopping{false};

  // Joins the threads of connections that have ended (a long run opens many).
  // Called with `mutex` held.
  void ReapEnded() {
    for (auto it = connections.begin(); it != connections.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
  }

  void Serve(tcp::socket& socket) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    for (;;) {
      http::request<http::string_body> req;
      http::read(socket, buffer, req, ec);
      if (ec) return;
      Request recorded{std::string(req.method_string()), std::string(req.target()), {}, req.body()};
      for (const auto& field : req) {
        std::string name(field.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        recorded.headers[name] = std::string(field.value());
      }
      recorded.delivery_id = DeliveryIdOf(recorded);
      recorded.received_at = std::chrono::system_clock::now();
      if (const auto found = recorded.headers.find("x-chopar-instance");
          found != recorded.headers.end()) {
        try {
          recorded.instance = std::stoll(found->second);
        } catch (const std::exception&) {
        }
      }
      Handler current;
      std::size_t index = 0;
      {
        std::lock_guard lock(mutex);
        index = requests.size();
        requests.push_back(recorded);
        current = handler;
      }
      const Response answer = current(recorded);
      {
        std::unique_lock lock(mutex);
        requests[index].answer_status = answer.reset ? 0 : answer.status;
        if (answer.delay.count() > 0 &&
            stop_cv.wait_for(lock, answer.delay, [this] { return stopping.load(); })) {
          return;
        }
      }
      if (answer.reset) {
        std::lock_guard lock(mutex);  // the destructor shuts sockets down under it
        socket.set_option(asio::socket_base::linger(true, 0), ec);
        socket.close(ec);
        return;
      }
      http::response<http::string_body> res{static_cast<http::status>(answer.status), req.version()};
      res.set(http::field::content_type, answer.content_type);
      for (const auto& [name, value] : answer.headers) res.set(name, value);
      res.body() = answer.body;
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      http::write(socket, res, ec);
      if (ec || !res.keep_alive()) return;
    }
  }
};

FakeHttpServer::FakeHttpServer(Handler handler, Options options) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen(options.backlog > 0 ? options.backlog
                                             : asio::socket_base::max_listen_connections);
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->accept_thread = std::thread([impl = impl_.get()] {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(impl->io);
      beast::error_code ec;
      impl->acceptor.accept(*socket, ec);
      if (ec || impl->stopping) return;
      std::lock_guard lock(impl->mutex);
      ++impl->accepted;
      impl->ReapEnded();
      auto done = std::make_shared<std::atomic<bool>>(false);
      std::thread thread([impl, socket, done] {
        impl->Serve(*socket);
        done->store(true);
      });
      impl->connections.push_back({socket, done, std::move(thread)});
    }
  });
}

FakeHttpServer::~FakeHttpServer() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  beast::error_code ec;
  // Wake the blocking accept with a connection of our own.
  {
    tcp::socket poke(impl_->io);
    poke.connect(impl_->acceptor.local_endpoint(), ec);
  }
  impl_->accept_thread.join();
  impl_->acceptor.close(ec);
  std::vector<Impl::Connection> connections;
  {
    std::lock_guard lock(impl_->mutex);
    connections.swap(impl_->connections);
    // Unblocks reads on keep-alive connections; a handler still busy
    // (a deliberately slow fake) finishes first, then its write fails.
    for (auto& connection : connections) {
      if (connection.socket->is_open()) connection.socket->shutdown(tcp::socket::shutdown_both, ec);
    }
  }
  for (auto& connection : connections) connection.thread.join();
}

std::string FakeHttpServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<FakeHttpServer::Request> FakeHttpServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::size_t FakeHttpServer::request_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests.size();
}

std::size_t FakeHttpServer::connection_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->accepted;
}

void FakeHttpServer::SetHandler(Handler handler) {
  std::lock_guard lock(impl_->mutex);
  impl_->handler = std::move(handler);
}

}  // namespace chopar::testing
