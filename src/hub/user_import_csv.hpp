#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace chopar::hub {

// The CSV form of a user import (`chopar users import FILE.csv`; docs/api.md
// "Bulk import"): a header row names the columns, a row is one user, turned
// into the JSON line POST /v1/users/import takes. Columns:
//   id                          the user's id (required)
//   email, phone, timezone, locale
//                               the cell is the text
//   data.<key>                  the cell is data's member <key>: a JSON
//                               number, true, false or null as that value,
//                               anything else as a string
//   any other member of PUT /v1/users/{id} (admin, preferences, quiet_hours,
//   addresses, tenants)        the cell is that member's JSON ("true",
//                               "{""start"": ""22:00"", ""end"": ""07:00""}")
// An empty cell leaves its member out (kept as stored). Pure; a value.
class UserCsvColumns {
 public:
  // Throws core::RequestError kInvalidField naming the column for an
  // unknown or repeated one, or a header without "id".
  explicit UserCsvColumns(const std::vector<std::string>& header);

  // The JSON line of one row. Throws core::RequestError kInvalidField for a
  // row with another number of cells, or a cell that is not the JSON its
  // column takes.
  [[nodiscard]] nlohmann::json Row(const std::vector<std::string>& cells) const;

 private:
  enum class Kind { kId, kText, kData, kJson };
  struct Column {
    Kind kind;
    std::string name;  // the member, or data's key
  };
  std::vector<Column> columns_;
};

}  // namespace chopar::hub
