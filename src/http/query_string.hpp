#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chopar::http {

// The parameters of a query string ("a=1&b=x%20y"), decoded, in order. A name
// without '=' has the empty value; empty pieces ("a=1&&b=2") are skipped.
// Value type; accessors never modify it.
class QueryParams {
 public:
  QueryParams() = default;

  // Parses the part after '?' (without it). Throws core::RequestError
  // kInvalidField for a malformed percent escape (field "query") or a %00
  // (field: the parameter's name, or "query" in a name).
  static QueryParams Parse(std::string_view query);

  // The first value of `name`, if present.
  [[nodiscard]] std::optional<std::string> Get(std::string_view name) const;
  [[nodiscard]] bool Has(std::string_view name) const { return Get(name).has_value(); }

  // The first value of `name` as an integer in [min, max]; nullopt when the
  // parameter is absent. Throws core::RequestError kInvalidField naming the
  // parameter for anything else (empty, not a decimal integer, out of range).
  [[nodiscard]] std::optional<std::int64_t> GetInt(std::string_view name, std::int64_t min,
                                                   std::int64_t max) const;
  // "true"/"1" or "false"/"0"; nullopt when absent; else RequestError kInvalidField.
  [[nodiscard]] std::optional<bool> GetBool(std::string_view name) const;

  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& items() const {
    return items_;
  }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace chopar::http
