#include "net/aws_sigv4.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/encoding.hpp"

namespace chopar::net {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

// A path segment or query name/value as SigV4 encodes it: RFC 3986's
// unreserved characters kept, every other byte %XX in capitals.
std::string UriEncode(std::string_view text) { return core::PercentEncode(text); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded ('+' stays: SigV4 queries are not HTML forms), so that a
// query sent encoded or not signs the same.
std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string CanonicalUri(std::string_view path, bool normalize) {
  if (path.empty()) return "/";
  std::vector<std::string_view> segments;
  for (const std::string_view segment : Split(path, '/')) {
    if (!normalize) {
      segments.push_back(segment);
    } else if (segment.empty() || segment == ".") {
      continue;
    } else if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else {
      segments.push_back(segment);
    }
  }
  std::string uri;
  if (!normalize) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (i > 0) uri += '/';
      uri += UriEncode(segments[i]);
    }
    return uri.empty() ? "/" : uri;
  }
  for (const std::string_view segment : segments) uri += "/" + UriEncode(segment);
  const bool trailing_slash = path.back() == '/';
  if (uri.empty()) return "/";
  if (trailing_slash) uri += '/';
  return uri;
}

std::string CanonicalQuery(std::string_view query) {
  if (query.empty()) return "";
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string_view pair : Split(query, '&')) {
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    const std::string_view name = pair.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1);
    pairs.emplace_back(UriEncode(PercentDecode(name)), UriEncode(PercentDecode(value)));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string canonical;
  for (const auto& [name, value] : pairs) {
    if (!canonical.empty()) canonical += '&';
    canonical += name + "=" + value;
  }
  return canonical;
}

// A header's value as SigV4 signs it: trimmed, each run of spaces one.
std::string CanonicalValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsAmzDate(std::string_view date) {
  if (date.size() != 16 || date[8] != 'T' || date[15] != 'Z') return false;
  for (std::size_t i = 0; i < 15; ++i) {
    if (i != 8 && (date[i] < '0' || date[i] > '9')) return false;
  }
  return true;
}

}  // namespace

std::string AmzDate(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[17];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

SigV4Signature SignV4(const SigV4Request& request, const AwsCredentials& credentials,
                      const AwsScope& scope, std::string_view amz_date) {
  if (!IsAmzDate(amz_date)) {
    throw std::invalid_argument("a SigV4 date is YYYYMMDDTHHMMSSZ, not " + std::string(amz_date));
  }
  // Repeated headers sign as one, their values in order, comma-separated.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string& joined = headers[Lower(name)];
    if (!joined.empty()) joined += ',';
    joined += CanonicalValue(value);
  }
  SigV4Signature signature;
  std::string canonical_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    if (!signature.signed_headers.empty()) signature.signed_headers += ';';
    signature.signed_headers += name;
  }
  signature.canonical_request =
      request.method + "\n" + CanonicalUri(request.path, request.normalize_path) + "\n" +
      CanonicalQuery(request.query) + "\n" + canonical_headers + "\n" + signature.signed_headers +
      "\n" + core::HexEncode(core::Sha256(request.body));
  const std::string date(amz_date.substr(0, 8));
  const std::string credential_scope =
      date + "/" + scope.region + "/" + scope.service + "/aws4_request";
  signature.string_to_sign = std::string(kAlgorithm) + "\n" + std::string(amz_date) + "\n" +
                             credential_scope + "\n" +
                             core::HexEncode(core::Sha256(signature.canonical_request));
  const std::string date_key = core::HmacSha256("AWS4" + credentials.secret_access_key, date);
  const std::string region_key = core::HmacSha256(date_key, scope.region);
  const std::string service_key = core::HmacSha256(region_key, scope.service);
  const std::string signing_key = core::HmacSha256(service_key, "aws4_request");
  signature.authorization =
      std::string(kAlgorithm) + " Credential=" + credentials.access_key_id + "/" +
      credential_scope + ", SignedHeaders=" + signature.signed_headers +
      ", Signature=" + core::HexEncode(core::HmacSha256(signing_key, signature.string_to_sign));
  return signature;
}

}  // namespace chopar::net
