#include "channels/chat/webhook_url.hpp"

#include <algorithm>

#include "net/address_policy.hpp"

namespace chopar::channels::chat {

std::optional<std::string> WebhookUrlProblem(std::string_view url, bool allow_local) {
  const bool https = url.starts_with("https://");
  const bool http = url.starts_with("http://");
  if (!https && !(http && allow_local)) return "must be an https:// webhook URL";
  if (std::any_of(url.begin(), url.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte <= 0x20 || byte == 0x7F;
      })) {
    return "must not contain spaces or control characters";
  }
  const auto host = net::UrlHost(url);
  if (!host || host->empty()) return "must be a URL with a host";
  if (!allow_local && !net::IsPublicHost(*host)) {
    return "must be on a public address, not loopback, private, link-local or metadata";
  }
  return std::nullopt;
}

}  // namespace chopar::channels::chat
