#include "outbox/event.hpp"

#include <date/date.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace chopar::outbox {
namespace {

// `n` as `width` digits, zero-padded.
void AppendDigits(std::string& out, long long n, int width) {
  char digits[8];
  for (int i = width - 1; i >= 0; --i, n /= 10) digits[i] = static_cast<char>('0' + n % 10);
  out.append(digits, static_cast<std::size_t>(width));
}

// core::FormatRfc3339 without its stream: every event's body carries one.
void AppendRfc3339(std::string& out, core::TimePoint t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
  const auto day = std::chrono::floor<date::days>(seconds);
  const date::year_month_day ymd(day);
  const date::hh_mm_ss<std::chrono::seconds> time(seconds - day);
  AppendDigits(out, static_cast<int>(ymd.year()), 4);
  out += '-';
  AppendDigits(out, static_cast<unsigned>(ymd.month()), 2);
  out += '-';
  AppendDigits(out, static_cast<unsigned>(ymd.day()), 2);
  out += 'T';
  AppendDigits(out, time.hours().count(), 2);
  out += ':';
  AppendDigits(out, time.minutes().count(), 2);
  out += ':';
  AppendDigits(out, time.seconds().count(), 2);
  out += 'Z';
}

}  // namespace

std::string EventBody(const Event& event) {
  std::string body;
  body.reserve(event.payload.size() + event.type.size() + 128);
  body += R"({"id":")";
  body += event.event_id;
  body += R"(","type":)";
  // Types are dot-separated tokens (the table's CHECK): nothing to escape,
  // unless a row got past it.
  const bool plain = std::all_of(event.type.begin(), event.type.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  body += plain ? '"' + event.type + '"' : nlohmann::json(event.type).dump();
  body += R"(,"user_id":)";
  body += event.user_id ? std::to_string(*event.user_id) : "null";
  body += R"(,"created_at":")";
  AppendRfc3339(body, event.created_at);
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
