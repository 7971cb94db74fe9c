#include "hub/user_import_csv.hpp"

#include <charconv>
#include <optional>
#include <set>
#include <string_view>

#include "core/request_error.hpp"
#include "core/text.hpp"
#include "hub/user_request.hpp"

namespace chopar::hub {
namespace {

constexpr std::string_view kDataPrefix = "data.";

bool IsTextMember(std::string_view name) {
  return name == "email" || name == "phone" || name == "timezone" || name == "locale";
}

// Whether `text` is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// The whole of `text` as an int64, or nullopt.
std::optional<std::int64_t> WholeNumber(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A data.<key> cell: a JSON number, true, false or null as that value, any
// other text as a string. (Told apart without a JSON parser: most cells of
// a large file are short texts and numbers.)
nlohmann::json DataValue(const std::string& cell) {
  if (cell == "true") return true;
  if (cell == "false") return false;
  if (cell == "null") return nullptr;
  if (!IsJsonNumber(cell)) return cell;
  if (const auto whole = WholeNumber(cell)) return *whole;
  return nlohmann::json::parse(cell);
}

}  // namespace

UserCsvColumns::UserCsvColumns(const std::vector<std::string>& header) {
  std::set<std::string> seen;
  bool has_id = false;
  for (const std::string& raw : header) {
    const std::string name(core::TrimBlanks(raw));
    if (!seen.insert(name).second) {
      throw core::InvalidField(name, "column \"" + name + "\" appears twice");
    }
    if (name == "id") {
      has_id = true;
      columns_.push_back({Kind::kId, name});
    } else if (name.starts_with(kDataPrefix) && name.size() > kDataPrefix.size()) {
      columns_.push_back({Kind::kData, name.substr(kDataPrefix.size())});
    } else if (IsTextMember(name)) {
      columns_.push_back({Kind::kText, name});
    } else if (IsUserUpdateMember(name) && name != "data") {
      columns_.push_back({Kind::kJson, name});
    } else {
      throw core::InvalidField(name, "unknown column \"" + name +
                                         "\": id, email, phone, timezone, locale, admin, "
                                         "preferences, quiet_hours, addresses, tenants or "
                                         "data.<key>");
    }
  }
  if (!has_id) throw core::InvalidField("id", "the header row must name the column id");
}

nlohmann::json UserCsvColumns::Row(const std::vector<std::string>& cells) const {
  if (cells.size() != columns_.size()) {
    throw core::RequestError(core::ErrorCode::kInvalidField,
                             "the row has " + std::to_string(cells.size()) +
                                 " fields, the header " + std::to_string(columns_.size()));
  }
  nlohmann::json line = nlohmann::json::object();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Column& column = columns_[i];
    const std::string& cell = cells[i];
    if (cell.empty()) continue;
    switch (column.kind) {
      case Kind::kId: {
        // A number as the JSON line has it; any other text as it is, which
        // the line's parser refuses by name.
        const auto id = WholeNumber(core::TrimBlanks(cell));
        line["id"] = id ? nlohmann::json(*id) : nlohmann::json(cell);
        break;
      }
      case Kind::kText:
        line[column.name] = cell;
        break;
      case Kind::kData:
        line["data"][column.name] = DataValue(cell);
        break;
      case Kind::kJson: {
        nlohmann::json value = nlohmann::json::parse(cell, nullptr, false);
        if (value.is_discarded()) {
          throw core::InvalidField(column.name, column.name + " must be JSON in the CSV cell");
        }
        line[column.name] = std::move(value);
        break;
      }
    }
  }
  return line;
}

}  // namespace chopar::hub
