#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>
#include <string_view>

namespace chopar::net {

// Where a URL that a client chose (a Web Push endpoint) may lead. Such URLs
// must not make chopar call into its own network: loopback (127.0.0.0/8,
// ::1), private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local and cloud
// metadata (169.254/16, fe80::/10), carrier-grade NAT (100.64/10), the
// unspecified, multicast, broadcast and reserved ranges, and IPv4 written
// inside IPv6 (::ffff:a.b.c.d, 64:ff9b::a.b.c.d) by the IPv4 it carries.
// Pure; thread-safe.

// Whether `address` (AF_INET or AF_INET6; anything else is not) is public.
bool IsPublicAddress(const sockaddr& address);

// For an IP literal ("127.1", "2130706433", "[::1]", "::ffff:10.0.0.1"),
// whether it is public; nullopt when `host` is not an IP literal (a name,
// resolved later). Accepts the IPv4 forms inet_aton and libcurl accept.
std::optional<bool> IsPublicAddressLiteral(std::string_view host);

// Whether `host` may be a public host: an IP literal that is public, or a
// name other than "localhost" and names under ".localhost" (RFC 6761), which
// always mean this machine. Names are checked again once resolved, at
// connect time (HttpRequest::public_addresses_only).
bool IsPublicHost(std::string_view host);

// The host of an absolute URL as libcurl reads it (IPv6 without brackets),
// lower-cased; nullopt when the URL does not parse.
std::optional<std::string> UrlHost(std::string_view url);

}  // namespace chopar::net
