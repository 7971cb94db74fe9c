#include "hub/validation.hpp"

#include <cctype>

#include "core/json.hpp"
#include "core/request_error.hpp"
#include "core/type_name.hpp"

namespace chopar::hub {
namespace {

std::size_t CodePoints(std::string_view text) {
  std::size_t count = 0;
  for (unsigned char c : text) count += (c & 0xC0) != 0x80;
  return count;
}

core::RequestError NulRefused(const char* field) {
  return core::InvalidField(field,
                            std::string(field) + " must not contain the NUL character (\\u0000)");
}

}  // namespace

void RequireNoNul(const nlohmann::json& value, const char* field) {
  if (core::ContainsNul(value)) throw NulRefused(field);
}

void RequireObject(const nlohmann::json& body) {
  if (!body.is_object()) throw core::InvalidJson("the body must be a JSON object");
}

std::int64_t RequireId(const nlohmann::json& body, const char* field) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null())
    throw core::InvalidField(field, std::string(field) + " is required");
  if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
    throw core::InvalidField(field, std::string(field) + " must be a positive integer");
  }
  return it->get<std::int64_t>();
}

std::optional<std::string> OptionalString(const nlohmann::json& body, const char* field,
                                          std::size_t min_length, std::size_t max_length) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw core::InvalidField(field, std::string(field) + " must be a string");
  std::string value = it->get<std::string>();
  if (value.find('\0') != std::string::npos) throw NulRefused(field);
  const std::size_t length = CodePoints(value);
  if (length < min_length || length > max_length) {
    throw core::InvalidField(field, std::string(field) + " must be " + std::to_string(min_length) +
                                        " to " + std::to_string(max_length) + " characters");
  }
  return value;
}

std::string RequireString(const nlohmann::json& body, const char* field, std::size_t min_length,
                          std::size_t max_length) {
  auto value = OptionalString(body, field, min_length, max_length);
  if (!value) throw core::InvalidField(field, std::string(field) + " is required");
  return *value;
}

bool IsValidType(std::string_view type) { return core::IsTypeName(type); }

bool IsValidTenantKey(std::string_view key) {
  if (key.empty() || key.size() > 100) return false;
  const auto allowed = [](unsigned char c, bool first) {
    if (std::isalnum(c) != 0) return true;
    return !first && (c == '.' || c == '_' || c == ':' || c == '-');
  };
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (static_cast<unsigned char>(key[i]) >= 0x80 ||
        !allowed(static_cast<unsigned char>(key[i]), i == 0))
      return false;
  }
  return true;
}

bool IsInternalLink(std::string_view link) {
  if (link.size() < 2 || link[0] != '/' || link[1] == '/' || link[1] == '\\') return false;
  for (unsigned char c : link) {
    if (c <= 0x20 || c == 0x7F) return false;
  }
  return true;
}

bool IsValidEmail(std::string_view email) {
  if (email.size() > 254) return false;
  const auto at = email.find('@');
  if (at == std::string_view::npos || at == 0 ||
      email.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  const std::string_view domain = email.substr(at + 1);
  const auto dot = domain.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == domain.size()) return false;
  for (unsigned char c : email) {
    if (c <= 0x20 || c == 0x7F) return false;
  }
  return true;
}

std::optional<std::string> NormalizePhone(std::string_view phone) {
  std::string digits;
  bool plus = false;
  for (std::size_t i = 0; i < phone.size(); ++i) {
    const char c = phone[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == '+' && digits.empty() && !plus) {
      plus = true;
    } else if (c != ' ' && c != '-' && c != '(' && c != ')' && c != '.') {
      return std::nullopt;
    }
  }
  if (!plus) {
    if (!digits.starts_with("00")) return std::nullopt;  // no country code
    digits.erase(0, 2);
  }
  if (digits.size() < 7 || digits.size() > 15 || digits[0] == '0') return std::nullopt;
  return "+" + digits;
}

std::optional<int> ParseClockTime(std::string_view text) {
  if (text.size() != 5 || text[2] != ':') return std::nullopt;
  for (std::size_t i : {0u, 1u, 3u, 4u}) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  const int hours = (text[0] - '0') * 10 + (text[1] - '0');
  const int minutes = (text[3] - '0') * 10 + (text[4] - '0');
  if (hours > 23 || minutes > 59) return std::nullopt;
  return hours * 60 + minutes;
}

}  // namespace chopar::hub
