#include "hub/user_import.hpp"

#include <algorithm>
#include <utility>

#include "db/errors.hpp"
#include "db/params.hpp"
#include "hub/preferences.hpp"
#include "hub/queries.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Written by the set-based statement: everything but addresses and tenants,
// which have tables of their own.
bool IsSetBased(const UserUpdate& update) {
  return !update.addresses.changes && !update.tenants.changes;
}

// A merge PUT checks against what is stored: preferences or data given.
bool MergesStored(const UserUpdate& update) {
  return (update.preferences.changes && update.preferences.value) ||
         (update.data.changes && update.data.value);
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

// The parameters of queries/import_users.sql: one array per column of its
// unnest, an element per line.
db::Params ImportParams(const std::vector<UserImport::Pending>& lines);

}  // namespace

ImportLine ParseImportLine(const nlohmann::json& body) {
  RequireObject(body);
  ImportLine line;
  line.user_id = RequireId(body, "id");
  nlohmann::json rest = body;
  rest.erase("id");
  line.update = ParseUserUpdate(rest);
  return line;
}

UserImport::UserImport(db::Pool& pool, UserService& users, Options options)
    : pool_(pool), users_(users), options_(std::move(options)) {
  options_.batch = std::max<std::size_t>(options_.batch, 1);
}

void UserImport::AddJsonLine(std::string_view text, std::int64_t number) {
  if (IsBlank(text)) return;
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    ++counts_.received;
    Refuse(number, core::RequestError(core::ErrorCode::kInvalidJson,
                                      std::string("malformed JSON: ") + e.what()));
    return;
  }
  AddLine(body, number);
}

void UserImport::AddLine(const nlohmann::json& body, std::int64_t number) {
  ++counts_.received;
  ImportLine line;
  try {
    line = ParseImportLine(body);
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
  ++counts_.received;
  Refuse(number, error);
}

void UserImport::Finish() { Flush(); }

void UserImport::Refuse(std::int64_t number, const core::RequestError& error) {
  ++counts_.failed;
  ImportLineError refused{number, error.code(), error.field(), error.what()};
  if (options_.on_error) options_.on_error(refused);
  if (errors_.size() < options_.max_errors) errors_.push_back(std::move(refused));
}

void UserImport::Flush() {
  std::vector<Pending> set_based, one_by_one;
  for (Pending& p : pending_) {
    (IsSetBased(p.line.update) ? set_based : one_by_one).push_back(std::move(p));
  }
  pending_.clear();
  pending_ids_.clear();
  if (!set_based.empty()) WriteSetBased(std::move(set_based));
  WriteOneByOne(one_by_one);
}

std::vector<UserImport::Pending> UserImport::WithinBounds(db::Transaction& tx,
                                                          std::vector<Pending> lines) {
  std::vector<std::size_t> merging;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (MergesStored(lines[i].line.update)) merging.push_back(i);
  }
  if (merging.empty()) return lines;
  std::vector<std::int64_t> ids;
  std::vector<std::optional<std::string>> data;
  std::vector<bool> data_clear;
  for (const std::size_t i : merging) {
    const UserUpdate& update = lines[i].line.update;
    ids.push_back(lines[i].line.user_id);
    data.push_back(DumpedValue(update.data));
    data_clear.push_back(update.data.changes && !update.data.value);
  }
  const auto stored = tx.Exec(queries::kImportUsersStored, db::ArrayLiteral(ids),
                              db::ArrayLiteral(data), db::ArrayLiteral(data_clear));
  std::vector<bool> refused(lines.size(), false);
  for (int row = 0; row < stored.Rows(); ++row) {
    const std::size_t i = merging.at(static_cast<std::size_t>(stored.Int(row, "line_index")));
    const UserUpdate& update = lines[i].line.update;
    try {
      if (update.preferences.changes && update.preferences.value) {
        CheckStoredPreferences(
            MergedPreferences(stored.IsNull(row, "preferences")
                                  ? nlohmann::json::object()
                                  : nlohmann::json::parse(stored.Text(row, "preferences")),
                              *update.preferences.value),
            "preferences");
      }
      if (update.data.changes && update.data.value &&
          stored.Int(row, "data_bytes") > static_cast<std::int64_t>(kMaxUserDataBytes)) {
        throw core::InvalidField("data", "data would be " +
                                             std::to_string(stored.Int(row, "data_bytes")) +
                                             " bytes once merged, over the " +
                                             std::to_string(kMaxUserDataBytes) + " allowed");
      }
    } catch (const core::RequestError& e) {
      Refuse(lines[i].number, e);
      refused[i] = true;
    }
  }
  std::vector<Pending> kept;
  kept.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!refused[i]) kept.push_back(std::move(lines[i]));
  }
  return kept;
}

void UserImport::WriteSetBased(std::vector<Pending> lines) {
  std::vector<Pending> again;
  try {
    auto tx = pool_.Begin("import_users");
    lines = WithinBounds(tx, std::move(lines));
    if (lines.empty()) return;
    const auto row = tx.Exec(queries::kImportUsers, ImportParams(lines));
    if (!row.IsNull(0, "zone_moved") && users_.options().timezone_changed) {
      for (const std::int64_t id : IdsOf(row.String(0, "zone_moved"))) {
        users_.options().timezone_changed(tx, id);
      }
    }
    tx.Commit();
    counts_.created += row.Int(0, "created");
    counts_.updated += row.Int(0, "updated");
    if (!row.IsNull(0, "again")) {
      const std::set<std::int64_t> ids = IdsOf(row.String(0, "again"));
      for (Pending& p : lines) {
        if (ids.contains(p.line.user_id)) again.push_back(std::move(p));
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
  std::vector<std::int64_t> ids;
  std::vector<bool> email_set, phone_set, timezone_set, locale_set, quiet_set, admin_set,
      preferences_clear, data_clear;
  std::vector<std::optional<std::string>> email, phone, timezone, locale, preferences, quiet_start,
      quiet_end, data;
  std::vector<std::optional<bool>> admin;
  for (const auto& p : lines) {
    const UserUpdate& u = p.line.update;
    ids.push_back(p.line.user_id);
    email_set.push_back(u.email.changes);
    email.push_back(u.email.value);
    phone_set.push_back(u.phone.changes);
    phone.push_back(u.phone.value);
    timezone_set.push_back(u.timezone.changes);
    timezone.push_back(u.timezone.value);
    locale_set.push_back(u.locale.changes);
    locale.push_back(u.locale.value);
    preferences.push_back(DumpedValue(u.preferences));
    quiet_set.push_back(u.quiet_hours.changes);
    quiet_start.push_back(u.quiet_hours.value ? std::optional(u.quiet_hours.value->start)
                                              : std::nullopt);
    quiet_end.push_back(u.quiet_hours.value ? std::optional(u.quiet_hours.value->end)
                                            : std::nullopt);
    admin_set.push_back(u.admin.changes);
    admin.push_back(u.admin.value);
    preferences_clear.push_back(u.preferences.changes && !u.preferences.value);
    data.push_back(DumpedValue(u.data));
    data_clear.push_back(u.data.changes && !u.data.value);
  }
  db::Params params;
  params.Add(db::ArrayLiteral(ids))
      .Add(db::ArrayLiteral(email_set))
      .Add(db::ArrayLiteral(email))
      .Add(db::ArrayLiteral(phone_set))
      .Add(db::ArrayLiteral(phone))
      .Add(db::ArrayLiteral(timezone_set))
      .Add(db::ArrayLiteral(timezone))
      .Add(db::ArrayLiteral(locale_set))
      .Add(db::ArrayLiteral(locale))
      .Add(db::ArrayLiteral(preferences))
      .Add(db::ArrayLiteral(quiet_set))
      .Add(db::ArrayLiteral(quiet_start))
      .Add(db::ArrayLiteral(quiet_end))
      .Add(db::ArrayLiteral(admin_set))
      .Add(db::ArrayLiteral(admin))
      .Add(db::ArrayLiteral(preferences_clear))
      .Add(db::ArrayLiteral(data))
      .Add(db::ArrayLiteral(data_clear));
  return params;
}

}  // namespace

}  // namespace chopar::hub
