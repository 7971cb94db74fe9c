#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "hub/user.hpp"

namespace chopar::http {

// The API's user object (docs/api.md "The user object").
nlohmann::json UserView(const hub::User& user);

// PUT /v1/users/{id}/telegram's answer: {"user_id", "chat_id", "active"}.
nlohmann::json TelegramView(std::int64_t user_id, const hub::TelegramConnection& telegram);

}  // namespace chopar::http
