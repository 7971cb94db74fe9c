#include "db/listen_hub.hpp"

#include <spdlog/spdlog.h>

#include <set>
#include <stdexcept>
#include <utility>

namespace chopar::db {

void ListenHub::Subscription::Cancel() {
  std::call_once(cancelled_, [this] { hub_->Unsubscribe(id_); });
}

std::shared_ptr<ListenHub> ListenHub::Shared(const std::string& conninfo) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<ListenHub>> hubs;
  std::lock_guard lock(mutex);
  std::weak_ptr<ListenHub>& slot = hubs[conninfo];
  if (auto hub = slot.lock()) return hub;
  auto hub = std::make_shared<ListenHub>(conninfo);
  slot = hub;
  return hub;
}

ListenHub::ListenHub(std::string conninfo, core::Random& random)
    : conninfo_(std::move(conninfo)), random_(random) {}

ListenHub::~ListenHub() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<ListenHub::Subscription> ListenHub::Subscribe(std::string channel,
                                                               OnListening on_listening,
                                                               OnNotifications on_notifications) {
  auto connections = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    subscribers_.emplace(id, Subscriber{std::move(channel), std::move(on_listening),
                                        std::move(on_notifications), connections});
    if (!started_ && !stopping_) {
      started_ = true;
      thread_ = std::thread([this] { Run(); });
    }
  }
  return std::make_unique<Subscription>(Key{}, shared_from_this(), id, std::move(connections));
}

void ListenHub::Unsubscribe(std::uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    subscribers_.erase(id);
  }
  // A callback of it may be running on the hub's thread: wait for it.
  std::lock_guard wait(callbacks_mutex_);
}

void ListenHub::Run() {
  static const std::string kName = "database listener";
  KeepConnected({conninfo_, kName, reconnect_backoff_, random_, stopping_,
                 [this](std::chrono::milliseconds delay) { Pause(delay); }},
                [this](Connection& conn, std::uint64_t connection) {
                  if (connection > 1) spdlog::info("{}: reconnected", kName);
                  std::set<std::string> listening;
                  while (!stopping_) {
                    ListenForNew(conn, connection, listening);
                    const auto notifications = conn.WaitForNotifications(kStopCheck);
                    if (!notifications.empty()) Dispatch(notifications);
                    // As db::Listener: a connection libpq marked bad will
                    // never deliver again.
                    if (conn.IsBroken()) throw std::runtime_error("the LISTEN connection broke");
                  }
                });
}

void ListenHub::ListenForNew(Connection& conn, std::uint64_t connection,
                             std::set<std::string>& listening) {
  std::vector<std::string> channels;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, subscriber] : subscribers_) {
      if (subscriber.told_on_connection != connection && !listening.contains(subscriber.channel))
        channels.push_back(subscriber.channel);
    }
  }
  for (const std::string& channel : channels) {
    if (listening.contains(channel)) continue;
    conn.Listen(channel);
    listening.insert(channel);
  }
  std::lock_guard callbacks(callbacks_mutex_);
  std::vector<std::pair<OnListening, std::shared_ptr<std::atomic<std::uint64_t>>>> told;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, subscriber] : subscribers_) {
      if (subscriber.told_on_connection == connection || !listening.contains(subscriber.channel))
        continue;
      subscriber.told_on_connection = connection;
      told.emplace_back(subscriber.on_listening, subscriber.connections);
    }
  }
  // Unsubscribe waits on callbacks_mutex_: a subscriber listed here is
  // still subscribed while its callback runs.
  for (auto& [on_listening, connections] : told) {
    on_listening();
    connections->fetch_add(1);
  }
}

void ListenHub::Dispatch(const std::vector<Notification>& notifications) {
  std::lock_guard callbacks(callbacks_mutex_);
  std::vector<std::pair<OnNotifications, std::vector<Notification>>> deliveries;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, subscriber] : subscribers_) {
      std::vector<Notification> own;
      for (const Notification& n : notifications) {
        if (n.channel == subscriber.channel) own.push_back(n);
      }
      if (!own.empty()) deliveries.emplace_back(subscriber.on_notifications, std::move(own));
    }
  }
  for (auto& [on_notifications, own] : deliveries) on_notifications(own);
}

void ListenHub::Pause(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  stop_cv_.wait_for(lock, delay, [this] { return stopping_.load(); });
}

}  // namespace chopar::db
