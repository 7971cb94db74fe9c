#include "workflow/settings.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "workflow/json_members.hpp"

namespace chopar::workflow {

DigestSettings ParseDigest(const nlohmann::json& object, std::string_view name,
                           std::span<const std::string_view> also_known) {
  std::vector<std::string_view> known{"window_seconds", "key", "max_items"};
  known.insert(known.end(), also_known.begin(), also_known.end());
  const Members m(object, std::string(name), known);
  DigestSettings s;
  s.window = std::chrono::seconds(m.Int("window_seconds", 1, kMaxWindowSeconds));
  s.max_items = m.Int("max_items", 1, kMaxDigestItems, s.max_items);
  if (const nlohmann::json* key = m.Find("key")) {
    if (!key->is_string() || key->get_ref<const std::string&>().size() > 1000)
      throw core::InvalidField(m.Field("key"),
                               m.Field("key") + " must be a text of at most 1000 characters");
    try {
      s.key = DigestKey(key->get<std::string>());
    } catch (const mustache::SyntaxError& e) {
      throw core::InvalidField(m.Field("key"), m.Field("key") + ": " + e.what());
    }
  }
  return s;
}

ThrottleSettings ParseThrottle(const nlohmann::json& object, std::string_view name,
                               std::span<const std::string_view> also_known) {
  std::vector<std::string_view> known{"limit", "window_seconds"};
  known.insert(known.end(), also_known.begin(), also_known.end());
  const Members m(object, std::string(name), known);
  return {.limit = m.Int("limit", 1, kMaxThrottleLimit),
          .window = std::chrono::seconds(m.Int("window_seconds", 1, kMaxWindowSeconds))};
}

namespace {

EscalateSettings ParseEscalate(const nlohmann::json& object) {
  const Members m(object, "escalate", {"after_seconds", "channels"});
  EscalateSettings s;
  s.after = std::chrono::seconds(m.Int("after_seconds", 1, kMaxWindowSeconds));
  const nlohmann::json* channels = m.Find("channels");
  if (channels == nullptr || !channels->is_array() || channels->empty())
    throw core::InvalidField("escalate.channels",
                             "escalate.channels must be a non-empty array of channel names");
  for (const auto& name : *channels) {
    const auto kind = name.is_string() ? core::ParseChannel(name.get<std::string>()) : std::nullopt;
    if (!kind || s.Holds(*kind))
      throw core::InvalidField("escalate.channels", "escalate.channels: " + name.dump() +
                                                        " is unknown or repeated; expected " +
                                                        core::ChannelNamesText());
    s.channels.push_back(*kind);
  }
  return s;
}

}  // namespace

DigestKey::DigestKey(std::string_view source) {
  if (!source.empty())
    text_ = std::make_shared<const mustache::MustacheText>(source, mustache::Escaping::kNone);
}

std::string DigestKey::Render(const nlohmann::json& data) const {
  if (!text_) return {};
  std::string key;
  try {
    key = text_->Render(mustache::RenderContext(data),
                        mustache::RenderBudget{kMaxDigestKeyRenderBytes});
  } catch (const mustache::RenderLimitError& e) {
    throw core::InvalidField("data", std::string("digest.key ") + e.what());
  }
  if (key.size() <= kMaxDigestKeyBytes) return key;
  // A keyed hash rather than a prefix: two long keys that share their first
  // 255 bytes are still two windows.
  return "sha256:" + core::HexEncode(core::HmacSha256("chopar digest key", key));
}

std::string_view DigestKey::source() const {
  return text_ ? std::string_view(text_->source()) : std::string_view();
}

bool EscalateSettings::Holds(core::ChannelKind channel) const {
  return std::ranges::find(channels, channel) != channels.end();
}

WorkflowSettings ParseWorkflowSettings(const nlohmann::json& digest, const nlohmann::json& throttle,
                                       const nlohmann::json& escalate) {
  WorkflowSettings settings;
  if (digest.is_object()) settings.digest = ParseDigest(digest, "digest");
  if (throttle.is_object()) settings.throttle = ParseThrottle(throttle, "throttle");
  if (escalate.is_object()) settings.escalate = ParseEscalate(escalate);
  return settings;
}

}  // namespace chopar::workflow
