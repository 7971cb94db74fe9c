#include "db/listener.hpp"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>
#include <utility>

namespace chopar::db {

Listener::Listener(ListenerSettings settings, OnListening on_listening,
                   OnNotifications on_notifications, core::Random& random)
    : settings_(std::move(settings)),
      on_listening_(std::move(on_listening)),
      on_notifications_(std::move(on_notifications)),
      random_(random) {}

Listener::~Listener() { Stop(); }

void Listener::Start() {
  std::lock_guard lock(mutex_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void Listener::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  std::lock_guard join(join_mutex_);
  if (thread_.joinable()) thread_.join();
}

void KeepConnected(const ReconnectingConnection& how,
                   const std::function<void(Connection&, std::uint64_t)>& serve) {
  using Clock = std::chrono::steady_clock;
  int failures = 0;
  std::uint64_t connection = 0;
  while (!how.stopping) {
    std::optional<Clock::time_point> connected_since;
    try {
      auto conn = Connection::Open(how.conninfo);
      connected_since = Clock::now();
      serve(conn, ++connection);
    } catch (const std::exception& e) {
      // A connection that had been up for a while was a success: its loss
      // starts the backoff afresh (a reconnection at once, give or take the
      // jitter). One that broke soon after connecting counts as a failure.
      if (connected_since && Clock::now() - *connected_since > how.backoff.cap) failures = 0;
      const auto delay = core::BackoffDelay(how.backoff, ++failures, how.random);
      spdlog::warn("{}: {} (reconnecting in {} ms)", how.name, e.what(), delay.count());
      how.pause(delay);
    }
  }
}

void Listener::Run() {
  KeepConnected({settings_.conninfo, settings_.name, settings_.reconnect_backoff, random_,
                 stopping_, [this](std::chrono::milliseconds delay) { Pause(delay); }},
                [this](Connection& conn, std::uint64_t) {
                  conn.Listen(settings_.channel);
                  on_listening_();
                  if (connections_.fetch_add(1) > 0)
                    spdlog::info("{}: reconnected", settings_.name);
                  while (!stopping_) {
                    const auto notifications = conn.WaitForNotifications(settings_.stop_check);
                    if (!notifications.empty()) on_notifications_(notifications);
                    // libpq can mark the connection bad while reading without
                    // the read itself failing; such a connection will never
                    // deliver again.
                    if (conn.IsBroken()) throw std::runtime_error("the LISTEN connection broke");
                  }
                });
}

void Listener::Pause(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  stop_cv_.wait_for(lock, delay, [this] { return stopping_.load(); });
}

}  // namespace chopar::db
