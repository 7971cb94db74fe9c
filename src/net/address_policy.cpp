#include "net/address_policy.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/text.hpp"
#include "net/curl_handles.hpp"

namespace chopar::net {
namespace {

struct Range4 {
  std::uint32_t network;
  int prefix;
};

constexpr std::uint32_t Ip4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// IANA's special-purpose IPv4 registry, less nothing that a push service
// could sit on.
constexpr std::array<Range4, 15> kNonPublic4 = {{
    {Ip4(0, 0, 0, 0), 8},        // "this network", the unspecified address
    {Ip4(10, 0, 0, 0), 8},       // private
    {Ip4(100, 64, 0, 0), 10},    // carrier-grade NAT
    {Ip4(127, 0, 0, 0), 8},      // loopback
    {Ip4(169, 254, 0, 0), 16},   // link-local, cloud metadata (169.254.169.254)
    {Ip4(172, 16, 0, 0), 12},    // private
    {Ip4(192, 0, 0, 0), 24},     // IETF protocol assignments
    {Ip4(192, 0, 2, 0), 24},     // documentation
    {Ip4(192, 88, 99, 0), 24},   // 6to4 relay anycast
    {Ip4(192, 168, 0, 0), 16},   // private
    {Ip4(198, 18, 0, 0), 15},    // benchmarking
    {Ip4(198, 51, 100, 0), 24},  // documentation
    {Ip4(203, 0, 113, 0), 24},   // documentation
    {Ip4(224, 0, 0, 0), 4},      // multicast
    {Ip4(240, 0, 0, 0), 4},      // reserved, broadcast
}};

bool IsPublic4(std::uint32_t address) {
  for (const Range4& range : kNonPublic4) {
    const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix);
    if ((address & mask) == range.network) return false;
  }
  return true;
}

std::uint32_t Embedded4(const std::uint8_t* bytes) {
  return (std::uint32_t{bytes[12]} << 24) | (std::uint32_t{bytes[13]} << 16) |
         (std::uint32_t{bytes[14]} << 8) | bytes[15];
}

bool IsPublic6(const in6_addr& address) {
  const std::uint8_t* b = address.s6_addr;
  static constexpr std::uint8_t kZero[10] = {};
  // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (mapped).
  if (std::memcmp(b, kZero, 10) == 0) {
    if (b[10] == 0xff && b[11] == 0xff) return IsPublic4(Embedded4(b));
    if (b[10] == 0 && b[11] == 0) return false;
  }
  // 64:ff9b::/96, NAT64: judged by the IPv4 it reaches.
  static constexpr std::uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
  if (std::memcmp(b, kNat64, 12) == 0) return IsPublic4(Embedded4(b));
  if ((b[0] & 0xfe) == 0xfc) return false;                  // fc00::/7 unique local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return false;  // fe80::/10 link-local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return false;  // fec0::/10 site-local (deprecated)
  if (b[0] == 0xff) return false;                           // multicast
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return false;   // documentation
  if (b[0] == 0x20 && b[1] == 0x02) return IsPublic4(Ip4(b[2], b[3], b[4], b[5]));  // 6to4
  return true;
}

}  // namespace

bool IsPublicAddress(const sockaddr& address) {
  if (address.sa_family == AF_INET) {
    sockaddr_in v4{};
    std::memcpy(&v4, &address, sizeof(v4));
    return IsPublic4(ntohl(v4.sin_addr.s_addr));
  }
  if (address.sa_family == AF_INET6) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &address, sizeof(v6));
    return IsPublic6(v6.sin6_addr);
  }
  return false;
}

std::optional<bool> IsPublicAddressLiteral(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || host.size() > 64) return std::nullopt;
  const std::string text(host);
  in6_addr v6{};
  // A zone ("fe80::1%eth0") is only ever on a link-local address.
  const std::string without_zone = text.substr(0, text.find('%'));
  if (inet_pton(AF_INET6, without_zone.c_str(), &v6) == 1) {
    return text.find('%') == std::string::npos && IsPublic6(v6);
  }
  in_addr v4{};
  if (inet_aton(text.c_str(), &v4) == 1) return IsPublic4(ntohl(v4.s_addr));
  return std::nullopt;
}

bool IsPublicHost(std::string_view host) {
  if (const auto literal = IsPublicAddressLiteral(host)) return *literal;
  std::string name = core::AsciiLower(host);
  while (!name.empty() && name.back() == '.') name.pop_back();  // "localhost." too
  return !name.empty() && name != "localhost" && !name.ends_with(".localhost");
}

std::optional<std::string> UrlHost(std::string_view url) {
  const CurlUrl handle(curl_url());
  if (!handle) return std::nullopt;
  const std::string text(url);
  if (curl_url_set(handle.get(), CURLUPART_URL, text.c_str(), 0) != CURLUE_OK) return std::nullopt;
  char* host = nullptr;
  if (curl_url_get(handle.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK || host == nullptr) {
    return std::nullopt;
  }
  std::string out = core::AsciiLower(host);
  curl_free(host);
  if (out.size() >= 2 && out.front() == '[' && out.back() == ']')
    out = out.substr(1, out.size() - 2);
  return out;
}

}  // namespace chopar::net
