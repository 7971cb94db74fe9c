#include "db/lsn.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace chopar::db {
namespace {

thread_local ReadYourWritesScope* innermost = nullptr;

std::optional<std::uint32_t> ParseHalf(std::string_view hex) {
  if (hex.empty() || hex.size() > 8) return std::nullopt;
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
  if (error != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<Lsn> ParseLsn(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto high = ParseHalf(text.substr(0, slash));
  const auto low = ParseHalf(text.substr(slash + 1));
  if (!high || !low) return std::nullopt;
  return (static_cast<Lsn>(*high) << 32) | *low;
}

std::string FormatLsn(Lsn lsn) {
  char text[20];
  std::snprintf(text, sizeof text, "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xFFFFFFFFu));
  return text;
}

ReadYourWritesScope::ReadYourWritesScope(std::optional<Lsn> read_after, bool capture)
    : read_after_(read_after), capture_(capture), outer_(innermost) {
  innermost = this;
}

ReadYourWritesScope::~ReadYourWritesScope() { innermost = outer_; }

bool CapturingWriteLsn() { return innermost != nullptr && innermost->capture_; }

void RecordWriteLsn(Lsn lsn) {
  if (innermost == nullptr) return;
  innermost->written_ = std::max(innermost->written_.value_or(0), lsn);
}

std::optional<Lsn> ReadAfterLsn() {
  if (innermost == nullptr) return std::nullopt;
  // A read after the caller's own write in this request sees it too.
  if (innermost->written_)
    return std::max(innermost->read_after_.value_or(0), *innermost->written_);
  return innermost->read_after_;
}

}  // namespace chopar::db
