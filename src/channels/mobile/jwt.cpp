#include "channels/mobile/jwt.hpp"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>

#include <stdexcept>

#include "core/encoding.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::channels::mobile {
namespace {

constexpr int kEs256Half = 32;  // bytes of r and of s
constexpr std::size_t kEs256Size = 2 * kEs256Half;

[[noreturn]] void Fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("openssl: ") + what);
}

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* Bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

// The key types each algorithm accepts: a token must never verify with a key
// of another kind than its header claims.
bool KeyFits(EVP_PKEY* key, JwtAlgorithm algorithm) {
  if (algorithm == JwtAlgorithm::kRs256) return EVP_PKEY_is_a(key, "RSA") == 1;
  return EVP_PKEY_is_a(key, "EC") == 1 && EVP_PKEY_get_bits(key) == 256;
}

// JWS wants ES256 signatures as the fixed-size r || s; OpenSSL speaks DER.
std::string DerToRaw(const std::string& der) {
  const unsigned char* cursor = Bytes(der);
  const core::EcdsaSig sig(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der.size())));
  if (!sig) Fail("d2i_ECDSA_SIG");
  std::string raw(kEs256Size, '\0');
  if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), Bytes(raw), kEs256Half) != kEs256Half ||
      BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), Bytes(raw) + kEs256Half, kEs256Half) !=
          kEs256Half) {
    Fail("BN_bn2binpad");
  }
  return raw;
}

std::optional<std::string> RawToDer(std::string_view raw) {
  if (raw.size() != kEs256Size) return std::nullopt;
  core::EcdsaSig sig(ECDSA_SIG_new());
  core::Bignum r(BN_bin2bn(Bytes(raw), kEs256Half, nullptr));
  core::Bignum s(BN_bin2bn(Bytes(raw) + kEs256Half, kEs256Half, nullptr));
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) Fail("ECDSA_SIG_set0");
  // ECDSA_SIG_set0 took r and s.
  (void)r.release();
  (void)s.release();
  const int size = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (size <= 0) Fail("i2d_ECDSA_SIG (size)");
  std::string der(static_cast<std::size_t>(size), '\0');
  unsigned char* cursor = Bytes(der);
  if (i2d_ECDSA_SIG(sig.get(), &cursor) != size) Fail("i2d_ECDSA_SIG");
  return der;
}

}  // namespace

std::string SignJwt(const nlohmann::json& header, const nlohmann::json& claims, EVP_PKEY* key,
                    JwtAlgorithm algorithm) {
  if (!KeyFits(key, algorithm)) {
    throw std::runtime_error(algorithm == JwtAlgorithm::kRs256 ? "RS256 needs an RSA key"
                                                               : "ES256 needs a P-256 key");
  }
  const std::string signing_input =
      core::Base64UrlEncode(header.dump()) + "." + core::Base64UrlEncode(claims.dump());
  core::EvpMdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) Fail("EVP_MD_CTX_new");
  if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) <= 0)
    Fail("EVP_DigestSignInit");
  std::size_t size = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &size, Bytes(signing_input), signing_input.size()) <= 0) {
    Fail("EVP_DigestSign (size)");
  }
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), Bytes(signature), &size, Bytes(signing_input),
                     signing_input.size()) <= 0) {
    Fail("EVP_DigestSign");
  }
  signature.resize(size);
  if (algorithm == JwtAlgorithm::kEs256) signature = DerToRaw(signature);
  return signing_input + "." + core::Base64UrlEncode(signature);
}

std::optional<DecodedJwt> VerifyJwt(std::string_view token, EVP_PKEY* public_key) {
  const auto first = token.find('.');
  const auto second = token.find('.', first == std::string_view::npos ? first : first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  const auto header_text = core::Base64UrlDecode(token.substr(0, first));
  const auto claims_text = core::Base64UrlDecode(token.substr(first + 1, second - first - 1));
  auto signature = core::Base64UrlDecode(token.substr(second + 1));
  if (!header_text || !claims_text || !signature) return std::nullopt;
  DecodedJwt decoded{nlohmann::json::parse(*header_text, nullptr, false),
                     nlohmann::json::parse(*claims_text, nullptr, false)};
  if (!decoded.header.is_object() || !decoded.claims.is_object()) return std::nullopt;
  const auto alg = decoded.header.find("alg");
  if (alg == decoded.header.end() || !alg->is_string()) return std::nullopt;
  JwtAlgorithm algorithm;
  if (*alg == "RS256") {
    algorithm = JwtAlgorithm::kRs256;
  } else if (*alg == "ES256") {
    algorithm = JwtAlgorithm::kEs256;
    signature = RawToDer(*signature);
    if (!signature) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!KeyFits(public_key, algorithm)) return std::nullopt;

  const std::string_view signing_input = token.substr(0, second);
  core::EvpMdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) Fail("EVP_MD_CTX_new");
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, public_key) <= 0) {
    Fail("EVP_DigestVerifyInit");
  }
  const int verified = EVP_DigestVerify(ctx.get(), Bytes(*signature), signature->size(),
                                        Bytes(signing_input), signing_input.size());
  ERR_clear_error();
  if (verified != 1) return std::nullopt;
  return decoded;
}

}  // namespace chopar::channels::mobile
