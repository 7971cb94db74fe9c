#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chopar::db {

// Statement parameters in text format. nullopt is SQL NULL.
class Params {
 public:
  Params() = default;
  template <typename... Args>
  explicit Params(const Args&... args) {
    values_.reserve(sizeof...(args));
    (Add(args), ...);
  }

  Params& Add(std::nullopt_t) {
    values_.emplace_back(std::nullopt);
    return *this;
  }
  Params& Add(std::string value) {
    values_.emplace_back(std::move(value));
    return *this;
  }
  Params& Add(std::string_view value) { return Add(std::string(value)); }
  Params& Add(const char* value) { return Add(std::string(value)); }
  Params& Add(bool value) { return Add(std::string(value ? "t" : "f")); }
  template <typename T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  Params& Add(T value) {
    return Add(std::to_string(value));
  }
  template <typename T>
  Params& Add(const std::optional<T>& value) {
    if (!value) return Add(std::nullopt);
    return Add(*value);
  }

  [[nodiscard]] const std::vector<std::optional<std::string>>& values() const { return values_; }

 private:
  std::vector<std::optional<std::string>> values_;
};

// A PostgreSQL array literal ("{1,2,3}" or {"a","b\"c"}) for passing a list
// as one parameter, e.g. `WHERE id = ANY($1::bigint[])`.
template <typename T>
std::string ArrayLiteral(const std::vector<T>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    if constexpr (std::is_arithmetic_v<T>) {
      out += std::to_string(items[i]);
    } else {
      out += '"';
      for (char c : std::string_view(items[i])) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += '"';
    }
  }
  out += '}';
  return out;
}

}  // namespace chopar::db
