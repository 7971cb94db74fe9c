#include "outbox/event.hpp"

#include <nlohmann/json.hpp>

#include "core/time_format.hpp"

namespace chopar::outbox {

std::string EventBody(const Event& event) {
  std::string body;
  body.reserve(event.payload.size() + event.type.size() + 128);
  body += R"({"id":")";
  body += event.event_id;
  body += R"(","type":)";
  body += nlohmann::json(event.type).dump();
  body += R"(,"user_id":)";
  body += event.user_id ? std::to_string(*event.user_id) : "null";
  body += R"(,"created_at":")";
  body += core::FormatRfc3339(event.created_at);
  body += R"(","payload":)";
  body += event.payload;
  body += '}';
  return body;
}

std::vector<std::string> ParseTextArray(std::string_view text) {
  std::vector<std::string> items;
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    text = text.substr(1, text.size() - 2);
  }
  while (!text.empty()) {
    const auto comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

}  // namespace chopar::outbox
