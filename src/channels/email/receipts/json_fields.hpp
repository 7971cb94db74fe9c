#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace chopar::channels::email::receipts {

// Tolerant reads of a provider's webhook JSON: a member that is missing or
// of another type than expected reads as absent, so one odd field never
// fails a whole batch. Pure; thread-safe.

// The member `name` of `object`; nullptr when `object` is not an object or
// has no such member.
const nlohmann::json* Member(const nlohmann::json& object, const char* name);

// The string member `name`, or "" when it is missing or not a string.
std::string Text(const nlohmann::json& object, const char* name);

// The array member `name`, or an empty array when it is missing or not an array.
const nlohmann::json& Items(const nlohmann::json& object, const char* name);

// The object member `name`, or an empty object when it is missing or not an object.
const nlohmann::json& Object(const nlohmann::json& object, const char* name);

}  // namespace chopar::channels::email::receipts
