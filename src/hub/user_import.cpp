#include "hub/user_import.hpp"

#include <algorithm>
#include <utility>

#include "db/actor.hpp"
#include "db/errors.hpp"
#include "db/params.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

bool LineOrder(const ImportLineError& a, const ImportLineError& b) { return a.line < b.line; }

bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Written by the set-based statement: everything but addresses and tenants,
// which have tables of their own.
bool IsSetBased(const UserUpdate& update) {
  return !update.addresses.changes && !update.tenants.changes;
}

template <typename T>
std::optional<std::string> DumpedValue(const FieldUpdate<T>& field) {
  return field.changes && field.value ? std::optional(field.value->dump()) : std::nullopt;
}

// "1,2,3" → {1, 2, 3}.
std::set<std::int64_t> IdsOf(const std::string& list) {
  std::set<std::int64_t> ids;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    ids.insert(std::stoll(list.substr(start, comma - start)));
    start = comma + 1;
  }
  return ids;
}

// A data whose compact JSON is this long or shorter is not counted by the
// statement: as PostgreSQL writes it (a space after each ':' and ',') it
// stays within the bound unless its numbers are written much longer there
// (1e300), which the CHECK of chopar.users.data still refuses.
constexpr std::size_t kUncheckedDataBytes = kMaxUserDataBytes / 4;

// How many ids a list of ids joined by commas (or none) holds.
std::int64_t CountOf(const std::optional<std::string>& list) {
  return list ? 1 + std::count(list->begin(), list->end(), ',') : 0;
}

// The parameters of queries/import_users.sql: one array per column of its
// unnest, an element per line.
db::Params ImportParams(const std::vector<UserImport::Pending>& lines);

}  // namespace

ImportLine ParseImportLine(nlohmann::json body) {
  RequireObject(body);
  ImportLine line;
  line.user_id = RequireId(body, "id");
  body.erase("id");
  line.update = ParseUserUpdate(body);
  return line;
}

UserImport::UserImport(db::Pool& pool, UserService& users, Options options)
    : pool_(pool), users_(users), options_(std::move(options)), actor_(db::CurrentActor()) {
  options_.batch = std::max<std::size_t>(options_.batch, 1);
}

UserImport::~UserImport() {
  for (Writing& w : writing_) {
    try {
      w.done.get();
    } catch (const std::exception&) {
      // Finish() was not reached: the caller is already ending with an error.
    }
  }
}

void UserImport::WaitOldest() {
  std::future<void> done = std::move(writing_.front().done);
  writing_.pop_front();
  done.get();
}

void UserImport::AddJsonLine(std::string_view text, std::int64_t number) {
  if (IsBlank(text)) return;
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    Received();
    Refuse(number, core::RequestError(core::ErrorCode::kInvalidJson,
                                      std::string("malformed JSON: ") + e.what()));
    return;
  }
  AddLine(std::move(body), number);
}

void UserImport::AddLine(nlohmann::json body, std::int64_t number) {
  Received();
  ImportLine line;
  try {
    line = ParseImportLine(std::move(body));
  } catch (const core::RequestError& e) {
    Refuse(number, e);
    return;
  }
  if (pending_ids_.contains(line.user_id)) Flush();
  pending_ids_.insert(line.user_id);
  pending_.push_back({number, std::move(line)});
  if (pending_.size() >= options_.batch) Flush();
}

void UserImport::AddRefused(const core::RequestError& error, std::int64_t number) {
  Received();
  Refuse(number, error);
}

void UserImport::Finish() {
  Flush();
  while (!writing_.empty()) WaitOldest();
  std::sort_heap(errors_.begin(), errors_.end(), LineOrder);
}

ImportCounts UserImport::counts() const {
  const std::lock_guard lock(mutex_);
  return counts_;
}

void UserImport::Received() {
  const std::lock_guard lock(mutex_);
  ++counts_.received;
}

void UserImport::Refuse(std::int64_t number, const core::RequestError& error) {
  ImportLineError refused{number, error.code(), error.field(), error.what()};
  const std::lock_guard lock(mutex_);
  ++counts_.failed;
  if (options_.on_error) options_.on_error(refused);
  // The lowest line numbers are kept (a heap by line: a batch's errors may
  // come after the next batch's parse errors).
  if (options_.max_errors == 0) return;
  if (errors_.size() == options_.max_errors) {
    if (refused.line >= errors_.front().line) return;
    std::pop_heap(errors_.begin(), errors_.end(), LineOrder);
    errors_.pop_back();
  }
  errors_.push_back(std::move(refused));
  std::push_heap(errors_.begin(), errors_.end(), LineOrder);
}

void UserImport::Flush() {
  if (pending_.empty()) return;
  Batch batch;
  for (Pending& p : pending_) {
    (IsSetBased(p.line.update) ? batch.set_based : batch.one_by_one).push_back(std::move(p));
  }
  pending_.clear();
  std::set<std::int64_t> ids = std::move(pending_ids_);
  pending_ids_.clear();
  // The statement's arrays are built here, beside the reading, unless a
  // line's preferences may be refused first (KeepWithinBounds).
  if (!batch.set_based.empty() && std::ranges::none_of(batch.set_based, [](const Pending& p) {
        return p.line.update.preferences.changes && p.line.update.preferences.value;
      })) {
    batch.params = ImportParams(batch.set_based);
  }
  // The next batch is read and checked while these are written, each on a
  // connection of its own. Batches that share a user are written in input
  // order: this one waits for every earlier one that names one of its users.
  const auto shares_a_user = [&ids](const Writing& w) {
    return std::ranges::any_of(ids, [&w](std::int64_t id) { return w.ids.contains(id); });
  };
  while (!writing_.empty() &&
         (writing_.size() >= kWriters || std::ranges::any_of(writing_, shares_a_user))) {
    WaitOldest();
  }
  writing_.push_back(
      {std::move(ids), std::async(std::launch::async, [this, batch = std::move(batch)]() mutable {
         const db::ActorScope caller(actor_);
         Write(std::move(batch));
       })});
}

void UserImport::Write(Batch batch) {
  if (!batch.set_based.empty()) WriteSetBased(std::move(batch.set_based), std::move(batch.params));
  WriteOneByOne(batch.one_by_one);
}

void UserImport::KeepWithinBounds(db::Transaction& tx, std::vector<Pending>& lines) {
  std::vector<std::size_t> merging;
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const UserUpdate& update = lines[i].line.update;
    if (update.preferences.changes && update.preferences.value) {
      merging.push_back(i);
      ids.push_back(lines[i].line.user_id);
    }
  }
  if (merging.empty()) return;
  const auto stored = tx.Exec(queries::kImportUsersStored, db::ArrayLiteral(ids));
  std::vector<bool> refused(lines.size(), false);
  for (int row = 0; row < stored.Rows(); ++row) {
    const std::size_t i = merging.at(static_cast<std::size_t>(row));
    try {
      CheckStoredPreferences(
          MergedPreferences(stored.IsNull(row, "preferences")
                                ? nlohmann::json::object()
                                : nlohmann::json::parse(stored.Text(row, "preferences")),
                            *lines[i].line.update.preferences.value),
          "preferences");
    } catch (const core::RequestError& e) {
      Refuse(lines[i].number, e);
      refused[i] = true;
    }
  }
  // Only once nothing can throw: the caller applies `lines` one by one
  // when the batch fails.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (refused[i]) continue;
    if (kept != i) lines[kept] = std::move(lines[i]);  // never moved onto itself
    ++kept;
  }
  lines.resize(kept);
}

void UserImport::WriteSetBased(std::vector<Pending> lines, std::optional<db::Params> params) {
  std::vector<Pending> again;
  // The audit log gets one record of the batch (audit_user_import.sql), not
  // a row per user written by the row triggers, which would cost the import
  // most of its time: the batch runs without an actor.
  const std::string actor = db::CurrentActor();
  try {
    const db::ActorScope unaudited("");
    auto tx = pool_.Begin("import_users");
    KeepWithinBounds(tx, lines);
    if (lines.empty()) return;
    const auto row = tx.Exec(queries::kImportUsers, params ? *params : ImportParams(lines));
    if (!row.IsNull(0, "zone_moved") && users_.options().timezone_changed) {
      for (const std::int64_t id : IdsOf(row.String(0, "zone_moved"))) {
        users_.options().timezone_changed(tx, id);
      }
    }
    const std::optional<std::string> created = row.OptString(0, "created");
    const std::optional<std::string> updated = row.OptString(0, "updated");
    if (!actor.empty() && (created || updated)) {
      tx.Exec(queries::kAuditUserImport, actor, created, updated);
    }
    tx.Commit();
    {
      const std::lock_guard lock(mutex_);
      counts_.created += CountOf(created);
      counts_.updated += CountOf(updated);
    }
    const std::set<std::int64_t> too_big = IdsOf(row.OptString(0, "too_big").value_or(""));
    const std::set<std::int64_t> unwritten = IdsOf(row.OptString(0, "again").value_or(""));
    for (Pending& p : lines) {
      if (too_big.contains(p.line.user_id)) {
        Refuse(p.number, core::InvalidField("data", "data would be over the " +
                                                        std::to_string(kMaxUserDataBytes) +
                                                        " bytes allowed once merged"));
      } else if (unwritten.contains(p.line.user_id)) {
        again.push_back(std::move(p));
      }
    }
  } catch (const db::DbError& e) {
    if (db::IsTransient(e)) throw;
    // A line the checks above let through and the database refused (a
    // CHECK, a trigger): nothing of the batch was written; each line alone
    // finds out which.
    again = std::move(lines);
  }
  WriteOneByOne(again);
}

void UserImport::WriteOneByOne(const std::vector<Pending>& lines) {
  for (const Pending& p : lines) {
    try {
      const User user = users_.PutUser(p.line.user_id, p.line.update);
      const std::lock_guard lock(mutex_);
      ++(user.created_at == user.updated_at ? counts_.created : counts_.updated);
    } catch (const core::RequestError& e) {
      Refuse(p.number, e);
    } catch (const db::DbError& e) {
      if (db::IsTransient(e)) throw;
      // As the API answers a CHECK that refused a request's value.
      Refuse(p.number, core::RequestError(core::ErrorCode::kInvalidField,
                                          "a value breaks a database constraint"));
    }
  }
}

namespace {

db::Params ImportParams(const std::vector<UserImport::Pending>& lines) {
  // The bits of import_users.sql's $2.
  enum : int {
    kEmail = 1,
    kPhone = 2,
    kTimezone = 4,
    kLocale = 8,
    kQuietHours = 16,
    kAdmin = 32,
    kPreferencesCleared = 64,
    kDataCleared = 128,
    kDataHasNull = 256,
    kDataChecked = 512,
  };
  std::vector<std::int64_t> ids;
  std::vector<int> flags;
  std::vector<std::optional<std::string>> email, phone, timezone, locale, preferences, quiet_start,
      quiet_end, data;
  std::vector<std::optional<bool>> admin;
  for (const auto& p : lines) {
    const UserUpdate& u = p.line.update;
    std::optional<std::string> dumped = DumpedValue(u.data);
    const bool has_null = u.data.changes && u.data.value &&
                          std::ranges::any_of(u.data.value->items(), [](const auto& item) {
                            return item.value().is_null();
                          });
    flags.push_back((u.email.changes ? kEmail : 0) | (u.phone.changes ? kPhone : 0) |
                    (u.timezone.changes ? kTimezone : 0) | (u.locale.changes ? kLocale : 0) |
                    (u.quiet_hours.changes ? kQuietHours : 0) | (u.admin.changes ? kAdmin : 0) |
                    (u.preferences.changes && !u.preferences.value ? kPreferencesCleared : 0) |
                    (u.data.changes && !u.data.value ? kDataCleared : 0) |
                    (has_null ? kDataHasNull : 0) |
                    (dumped && dumped->size() > kUncheckedDataBytes ? kDataChecked : 0));
    ids.push_back(p.line.user_id);
    email.push_back(u.email.value);
    phone.push_back(u.phone.value);
    timezone.push_back(u.timezone.value);
    locale.push_back(u.locale.value);
    preferences.push_back(DumpedValue(u.preferences));
    quiet_start.push_back(u.quiet_hours.value ? std::optional(u.quiet_hours.value->start)
                                              : std::nullopt);
    quiet_end.push_back(u.quiet_hours.value ? std::optional(u.quiet_hours.value->end)
                                            : std::nullopt);
    admin.push_back(u.admin.value);
    data.push_back(std::move(dumped));
  }
  db::Params params;
  params.Add(db::ArrayLiteral(ids))
      .Add(db::ArrayLiteral(flags))
      .Add(db::ArrayLiteral(email))
      .Add(db::ArrayLiteral(phone))
      .Add(db::ArrayLiteral(timezone))
      .Add(db::ArrayLiteral(locale))
      .Add(db::ArrayLiteral(preferences))
      .Add(db::ArrayLiteral(quiet_start))
      .Add(db::ArrayLiteral(quiet_end))
      .Add(db::ArrayLiteral(admin))
      .Add(db::ArrayLiteral(data));
  return params;
}

}  // namespace

}  // namespace chopar::hub
