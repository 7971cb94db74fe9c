#include "app/shared_secrets.hpp"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>

#include "app/queries.hpp"
#include "app/secrets.hpp"

namespace chopar::app {

std::string SharedSecret(db::Pool& pool, const std::filesystem::path& data_dir,
                         const std::string& name, const std::string& configured) {
  if (!configured.empty()) return configured;
  const std::optional<std::string> local = ReadStoredSecret(data_dir, name);
  auto tx = pool.Begin("generated_secret");
  // Read committed: the SELECT sees the row of a process whose insert won
  // the race (the INSERT waited for it to commit).
  tx.Defer(queries::kInsertGeneratedSecret, name, local ? *local : NewSecretValue());
  const db::Result stored = tx.ExecAndCommit(queries::kGeneratedSecret, db::Params(name));
  if (stored.Empty()) throw std::runtime_error("chopar.generated_secrets has no " + name);
  std::string value = stored.String(0, 0);
  if (local && *local != value) {
    spdlog::warn(
        "{}: differs from the {} the database holds, which every process uses; links signed "
        "with the file's value are refused (set it in the configuration to keep it)",
        (data_dir / name).string(), name);
  }
  return value;
}

}  // namespace chopar::app
