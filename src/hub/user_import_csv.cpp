#include "hub/user_import_csv.hpp"

#include <set>

#include "core/request_error.hpp"
#include "core/text.hpp"
#include "hub/user_request.hpp"

namespace chopar::hub {
namespace {

constexpr std::string_view kDataPrefix = "data.";

bool IsTextMember(std::string_view name) {
  return name == "email" || name == "phone" || name == "timezone" || name == "locale";
}

// A data.<key> cell: a JSON scalar that is not a string as itself, else the text.
nlohmann::json DataValue(const std::string& cell) {
  nlohmann::json value = nlohmann::json::parse(cell, nullptr, false);
  if (value.is_discarded() || value.is_string() || value.is_structured()) return cell;
  return value;
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
        nlohmann::json id =
            nlohmann::json::parse(std::string(core::TrimBlanks(cell)), nullptr, false);
        line["id"] = id.is_discarded() ? nlohmann::json(cell) : id;
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
