#include "core/sealed_box.hpp"

#include <stdexcept>

#include "core/aes_gcm.hpp"
#include "core/encoding.hpp"

namespace chopar::core {
namespace {

// The first byte of a sealed value: how it was sealed, so another way can
// come beside this one and old values still open.
constexpr char kVersion = '\x01';

void CheckKey(std::string_view key) {
  if (key.size() != kSealedBoxKeyBytes) {
    throw std::invalid_argument("a sealed box's key must be 32 bytes");
  }
}

}  // namespace

std::string Seal(std::string_view key, std::string_view context, std::string_view plaintext) {
  CheckKey(key);
  const std::string nonce = RandomBytes(kAesGcmNonceBytes);
  std::string sealed(1, kVersion);
  sealed += nonce;
  sealed += AesGcmSeal(key, nonce, context, plaintext);
  return sealed;
}

std::optional<std::string> Open(std::string_view key, std::string_view context,
                                std::string_view sealed) {
  CheckKey(key);
  if (sealed.size() < kSealedBoxOverhead || sealed[0] != kVersion) return std::nullopt;
  return AesGcmOpen(key, sealed.substr(1, kAesGcmNonceBytes), context,
                    sealed.substr(1 + kAesGcmNonceBytes));
}

}  // namespace chopar::core
