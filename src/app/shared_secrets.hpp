#pragma once

#include <filesystem>
#include <string>

#include "db/pool.hpp"

namespace chopar::app {

// A secret every process of one deployment must share when the
// configuration sets none: the inbox secret (a worker signs unsubscribe
// links, an API process checks them) and the SMS callback secret (a worker
// tells Eskiz the callback URL, an API process checks it). Processes may run
// on other machines with other data_dirs, so the generated value lives in
// the database (chopar.generated_secrets, one row per `name`):
//
//   - `configured` not empty: it wins; nothing is read or written.
//   - else a file <data_dir>/<name> left by an earlier version is adopted
//     when the database has no value yet, so links already mailed keep
//     working;
//   - else a new value is generated;
//   - whichever process stores first wins (INSERT … ON CONFLICT DO NOTHING,
//     then read back): every process returns the one stored value. A local
//     file that differs from it is ignored with a warning in the log.
//
// `name` is "inbox_secret" or "sms_callback_secret" (a CHECK of the table).
// Throws db::DbError when the database cannot be reached, std::runtime_error
// when the local file exists but cannot be read. Thread-safe.
std::string SharedSecret(db::Pool& pool, const std::filesystem::path& data_dir,
                         const std::string& name, const std::string& configured);

}  // namespace chopar::app
