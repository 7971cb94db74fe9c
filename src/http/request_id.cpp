#include "http/request_id.hpp"

#include <algorithm>

#include "core/encoding.hpp"

namespace chopar::http {
namespace {

constexpr std::size_t kMaxLength = 128;

bool Usable(std::string_view id) {
  if (id.empty() || id.size() > kMaxLength) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_.:/+=@").find(c) != std::string_view::npos;
  });
}

}  // namespace

std::string RequestIdFor(std::optional<std::string_view> header) {
  if (header && Usable(*header)) return std::string(*header);
  return core::HexEncode(core::RandomBytes(16));
}

}  // namespace chopar::http
