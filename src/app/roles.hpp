#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::app {

// What one chopar process runs ([server] roles, docs/configuration.md
// "Operations"). Any number of processes with any mix of roles may share one
// database: every loop is safe in N copies.
enum class ProcessRole {
  kApi,        // the HTTP API, its inbox listener, Telegram updates by polling
  kWorker,     // the delivery loops
  kScheduler,  // the schedule firing loop, delayed notifications, digest windows
  kReports,    // the admin report jobs ([[reports]])
  kRelay,      // the outbox relays ([relay], when it has [[relay.targets]])
};

// Each role with its name in the configuration, in the order they start. A
// new loop is one more entry here and one more start in
// RunService.
struct RoleName {
  ProcessRole role;
  std::string_view name;
};
inline constexpr std::array<RoleName, 5> kRoleNames = {{
    {ProcessRole::kApi, "api"},
    {ProcessRole::kWorker, "worker"},
    {ProcessRole::kScheduler, "scheduler"},
    {ProcessRole::kReports, "reports"},
    {ProcessRole::kRelay, "relay"},
}};

// A set of roles. A value; thread-compatible.
class Roles {
 public:
  // Every role: what `chopar serve` runs by default.
  static Roles All();
  static Roles Only(ProcessRole role);
  // The roles named in `names` (each a kRoleNames name; repeats are allowed).
  // Throws std::invalid_argument naming the first unknown name (with the
  // closest known one) or saying that the list is empty.
  static Roles FromNames(const std::vector<std::string>& names);

  [[nodiscard]] bool Has(ProcessRole role) const { return bits_ & Bit(role); }
  bool operator==(const Roles&) const = default;
  // "api, worker, scheduler, reports, relay", in kRoleNames order.
  [[nodiscard]] std::string Describe() const;

 private:
  static unsigned Bit(ProcessRole role) { return 1u << static_cast<unsigned>(role); }
  unsigned bits_ = 0;
};

// The names of every role, in kRoleNames order: the default of [server] roles.
std::vector<std::string> AllRoleNames();

}  // namespace chopar::app
