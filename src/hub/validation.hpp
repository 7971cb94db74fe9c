#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace chopar::hub {

// Throws core::RequestError kInvalidJson ("the body must be a JSON object")
// unless `body` is an object.
void RequireObject(const nlohmann::json& body);

// Field readers for request bodies. Each throws core::RequestError
// kInvalidField naming the field when it is missing (Require…), has the
// wrong type or length, or holds the NUL character (which PostgreSQL cannot
// store). Lengths count UTF-8 code points.
std::int64_t RequireId(const nlohmann::json& body, const char* field);
std::string RequireString(const nlohmann::json& body, const char* field, std::size_t min_length,
                          std::size_t max_length);
// nullopt when absent or null.
std::optional<std::string> OptionalString(const nlohmann::json& body, const char* field,
                                          std::size_t min_length, std::size_t max_length);

// Throws core::RequestError kInvalidField naming `field` if any string or key
// in `value` (a JSON object stored as jsonb) holds the NUL character.
void RequireNoNul(const nlohmann::json& value, const char* field);

// ^[a-z]+(\.[a-z_]+)*$ — the notification type grammar.
bool IsValidType(std::string_view type);
// ^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$ — a tenant's key (the tenants CHECK).
bool IsValidTenantKey(std::string_view key);
// An internal path: starts with "/", the second character is neither "/" nor
// "\", and no whitespace or control characters. Mirrors the database CHECK.
bool IsInternalLink(std::string_view link);
// A plausible address: one "@", non-empty local part, a dotted domain, no spaces.
bool IsValidEmail(std::string_view email);
// Normalises common phone input ("+998 90 123-45-67", "00998901234567") to
// E.164 ("+998901234567"); nullopt if it is not a phone number with a country code.
std::optional<std::string> NormalizePhone(std::string_view phone);
// "HH:MM" (00:00–23:59) to minutes after midnight; nullopt if malformed.
std::optional<int> ParseClockTime(std::string_view text);

}  // namespace chopar::hub
