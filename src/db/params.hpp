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
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) Params& Add(T value) {
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

namespace detail {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// `text` as a quoted element of an array literal: `"` and `\` escaped, the
// runs between them copied whole (params.cpp).
void AppendQuotedArrayElement(std::string& out, std::string_view text);

template <typename T>
void AppendArrayElement(std::string& out, const T& item) {
  if constexpr (IsOptional<T>::value) {
    if (!item) {
      out += "NULL";
    } else {
      AppendArrayElement(out, *item);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    out += item ? 't' : 'f';
  } else if constexpr (std::is_arithmetic_v<T>) {
    out += std::to_string(item);
  } else {
    AppendQuotedArrayElement(out, std::string_view(item));
  }
}

// Bytes an element takes in the literal, a guess for reserving: a text's
// length and its quotes and comma, 20 for a number.
template <typename T>
std::size_t ArrayElementSizeHint(const T& item) {
  if constexpr (IsOptional<T>::value) {
    return item ? ArrayElementSizeHint(*item) : 5;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return 20;
  } else {
    return std::string_view(item).size() + 3;
  }
}

}  // namespace detail

// A PostgreSQL array literal ("{1,2,3}", {"a","b\"c",NULL}) for passing a
// list as one parameter, e.g. `WHERE id = ANY($1::bigint[])`; nullopt
// elements are NULL. Built in one allocation: a batch's arrays of titles
// and bodies are most of the bytes chopar sends PostgreSQL.
template <typename T>
std::string ArrayLiteral(const std::vector<T>& items) {
  std::size_t size = 2;
  for (const T& item : items) size += detail::ArrayElementSizeHint(item);
  std::string out;
  out.reserve(size);
  out += '{';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    detail::AppendArrayElement(out, items[i]);
  }
  out += '}';
  return out;
}

}  // namespace chopar::db
