#include "testing/webhook_verifier.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <sstream>
#include <vector>

namespace chopar::testing {
namespace {

std::string DecodeBase64(const std::string& text) {
  std::vector<unsigned char> out(text.size() / 4 * 3 + 3);
  const int length =
      EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                      static_cast<int>(text.size()));
  if (length < 0) return "";
  // EVP_DecodeBlock counts the padding as zero bytes.
  int padding = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '='; ++it) ++padding;
  return std::string(reinterpret_cast<const char*>(out.data()),
                     static_cast<std::size_t>(length - padding));
}

std::string EncodeBase64(const unsigned char* bytes, int length) {
  std::vector<unsigned char> out(static_cast<std::size_t>(4 * ((length + 2) / 3) + 1));
  const int written = EVP_EncodeBlock(out.data(), bytes, length);
  return std::string(reinterpret_cast<const char*>(out.data()), static_cast<std::size_t>(written));
}

}  // namespace

std::string WebhookSignatureProblem(const std::string& secret,
                                    const std::map<std::string, std::string>& headers,
                                    const std::string& body) {
  const auto id = headers.find("webhook-id");
  const auto timestamp = headers.find("webhook-timestamp");
  const auto signature = headers.find("webhook-signature");
  if (id == headers.end() || timestamp == headers.end() || signature == headers.end()) {
    return "a webhook-id, webhook-timestamp or webhook-signature header is missing";
  }
  const std::string prefix = "whsec_";
  const std::string key =
      DecodeBase64(secret.rfind(prefix, 0) == 0 ? secret.substr(prefix.size()) : secret);
  const std::string content = id->second + "." + timestamp->second + "." + body;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac, &mac_length);
  const std::string expected = "v1," + EncodeBase64(mac, static_cast<int>(mac_length));
  std::istringstream entries(signature->second);
  for (std::string entry; entries >> entry;) {
    if (entry == expected) return "";
  }
  return "webhook-signature " + signature->second + " does not match " + expected;
}

}  // namespace chopar::testing
