#include "channels/webpush/vapid.hpp"

#include <curl/curl.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/encoding.hpp"
#include "core/openssl_handles.hpp"
#include "net/curl_handles.hpp"

namespace chopar::channels::webpush {
namespace {

using MdCtx = core::EvpMdCtx;
using EcdsaSig = core::EcdsaSig;
using net::CurlString;
using net::CurlUrl;

std::string DecodeKey(std::string_view text, std::string_view setting, std::size_t size) {
  const auto bytes = core::Base64UrlDecode(text);
  if (!bytes) throw std::invalid_argument(std::string(setting) + " is not base64url");
  if (bytes->size() != size) {
    throw std::invalid_argument(std::string(setting) + " must decode to " + std::to_string(size) + " bytes, not " +
                                std::to_string(bytes->size()));
  }
  return *bytes;
}

std::optional<std::string> UrlPart(CURLU* url, CURLUPart part) {
  char* raw = nullptr;
  if (curl_url_get(url, part, &raw, 0) != CURLUE_OK) return std::nullopt;
  CurlString owned(raw);
  return std::string(owned.get());
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

[[noreturn]] void Fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("openssl: ") + what);
}

}  // namespace

VapidKeys GenerateVapidKeys() {
  const P256KeyPair pair = GenerateP256KeyPair();
  return {core::Base64UrlEncode(pair.public_key), core::Base64UrlEncode(pair.private_key)};
}

std::optional<std::string> UrlOrigin(std::string_view url) {
  CurlUrl parsed(curl_url());
  if (!parsed) return std::nullopt;
  if (curl_url_set(parsed.get(), CURLUPART_URL, std::string(url).c_str(), 0) != CURLUE_OK) return std::nullopt;
  auto scheme = UrlPart(parsed.get(), CURLUPART_SCHEME);
  auto host = UrlPart(parsed.get(), CURLUPART_HOST);
  if (!scheme || !host || host->empty()) return std::nullopt;
  *scheme = Lower(*scheme);
  if (*scheme != "https" && *scheme != "http") return std::nullopt;
  std::string origin = *scheme + "://" + Lower(*host);
  if (const auto port = UrlPart(parsed.get(), CURLUPART_PORT)) {
    const bool is_default = (*scheme == "https" && *port == "443") || (*scheme == "http" && *port == "80");
    if (!is_default) origin += ":" + *port;
  }
  return origin;
}

VapidSigner::VapidSigner(std::string_view public_key, std::string_view private_key, std::string subject,
                         const core::Clock& clock)
    : subject_(std::move(subject)), clock_(clock) {
  P256KeyPair pair{DecodeKey(public_key, "vapid_public_key", kP256PublicKeySize),
                   DecodeKey(private_key, "vapid_private_key", kP256PrivateKeySize)};
  try {
    key_ = P256PrivateKey(pair);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("vapid_public_key / vapid_private_key: ") + e.what());
  }
  public_key_b64_ = core::Base64UrlEncode(pair.public_key);
  if (!subject_.starts_with("mailto:") && !subject_.starts_with("https:")) {
    throw std::invalid_argument("subject must be a mailto: or https: URI (RFC 8292 §2.1)");
  }
}

std::string VapidSigner::SignToken(std::string_view audience) const {
  const auto exp = std::chrono::duration_cast<std::chrono::seconds>(
      (clock_.Now() + kTokenLifetime).time_since_epoch());
  const nlohmann::json header = {{"typ", "JWT"}, {"alg", "ES256"}};
  const nlohmann::json claims = {{"aud", audience}, {"exp", exp.count()}, {"sub", subject_}};
  const std::string signing_input =
      core::Base64UrlEncode(header.dump()) + "." + core::Base64UrlEncode(claims.dump());

  MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) Fail("EVP_MD_CTX_new");
  if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) <= 0) Fail("EVP_DigestSignInit");
  const auto* input = reinterpret_cast<const unsigned char*>(signing_input.data());
  std::size_t der_size = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &der_size, input, signing_input.size()) <= 0) Fail("EVP_DigestSign (size)");
  std::string der(der_size, '\0');
  auto* der_bytes = reinterpret_cast<unsigned char*>(der.data());
  if (EVP_DigestSign(ctx.get(), der_bytes, &der_size, input, signing_input.size()) <= 0) Fail("EVP_DigestSign");

  // JWS wants the fixed-size r || s, OpenSSL gives an ASN.1 SEQUENCE.
  const unsigned char* cursor = der_bytes;
  const EcdsaSig sig(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der_size)));
  if (!sig) Fail("d2i_ECDSA_SIG");
  std::string raw(64, '\0');
  auto* raw_bytes = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), raw_bytes, 32) != 32 ||
      BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), raw_bytes + 32, 32) != 32) {
    Fail("BN_bn2binpad");
  }
  return signing_input + "." + core::Base64UrlEncode(raw);
}

std::string VapidSigner::Authorization(const std::string& origin) {
  const core::TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  if (const auto it = cache_.find(origin); it != cache_.end() && it->second.expires - now > kRenewBefore) {
    return it->second.header;
  }
  std::erase_if(cache_, [&](const auto& entry) { return entry.second.expires - now <= kRenewBefore; });
  Cached fresh{"vapid t=" + SignToken(origin) + ", k=" + public_key_b64_, now + kTokenLifetime};
  return cache_.insert_or_assign(origin, std::move(fresh)).first->second.header;
}

}  // namespace chopar::channels::webpush
