#include "channels/email/receipts/json_fields.hpp"

namespace chopar::channels::email::receipts {

const nlohmann::json* Member(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string Text(const nlohmann::json& object, const char* name) {
  const nlohmann::json* value = Member(object, name);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

const nlohmann::json& Items(const nlohmann::json& object, const char* name) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json* value = Member(object, name);
  return value != nullptr && value->is_array() ? *value : kEmpty;
}

const nlohmann::json& Object(const nlohmann::json& object, const char* name) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const nlohmann::json* value = Member(object, name);
  return value != nullptr && value->is_object() ? *value : kEmpty;
}

}  // namespace chopar::channels::email::receipts
