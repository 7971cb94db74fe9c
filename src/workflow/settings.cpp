#include "workflow/settings.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::workflow {
namespace {

// One settings object under its name ("digest"): field names in errors are
// "<name>.<member>".
class Members {
 public:
  Members(const nlohmann::json& object, std::string_view name,
          std::initializer_list<std::string_view> known)
      : object_(object), name_(name) {
    for (const auto& [member, value] : object.items()) {
      if (std::ranges::find(known, member) == known.end())
        throw core::InvalidField(Field(member), "unknown member " + Field(member));
    }
  }

  [[nodiscard]] std::string Field(std::string_view member) const {
    return std::string(name_) + "." + std::string(member);
  }

  [[nodiscard]] const nlohmann::json* Find(std::string_view member) const {
    const auto it = object_.find(member);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  // An integer in [low, high]; `fallback` when absent, required without one.
  [[nodiscard]] int Int(std::string_view member, int low, int high,
                        std::optional<int> fallback = std::nullopt) const {
    const nlohmann::json* value = Find(member);
    if (value == nullptr) {
      if (fallback) return *fallback;
      throw core::InvalidField(Field(member), Field(member) + " is required");
    }
    if (!value->is_number_integer() || value->get<std::int64_t>() < low ||
        value->get<std::int64_t>() > high) {
      throw core::InvalidField(Field(member), Field(member) + " must be an integer from " +
                                                  std::to_string(low) + " to " +
                                                  std::to_string(high));
    }
    return static_cast<int>(value->get<std::int64_t>());
  }

 private:
  const nlohmann::json& object_;
  std::string_view name_;
};

DigestSettings ParseDigest(const nlohmann::json& object) {
  const Members m(object, "digest", {"window_seconds", "key", "max_items"});
  DigestSettings s;
  s.window = std::chrono::seconds(m.Int("window_seconds", 1, kMaxWindowSeconds));
  s.max_items = m.Int("max_items", 1, kMaxDigestItems, s.max_items);
  if (const nlohmann::json* key = m.Find("key")) {
    if (!key->is_string() || key->get_ref<const std::string&>().size() > 1000)
      throw core::InvalidField("digest.key",
                               "digest.key must be a text of at most 1000 characters");
    try {
      s.key = DigestKey(key->get<std::string>());
    } catch (const mustache::SyntaxError& e) {
      throw core::InvalidField("digest.key", std::string("digest.key: ") + e.what());
    }
  }
  return s;
}

ThrottleSettings ParseThrottle(const nlohmann::json& object) {
  const Members m(object, "throttle", {"limit", "window_seconds"});
  return {.limit = m.Int("limit", 1, kMaxThrottleLimit),
          .window = std::chrono::seconds(m.Int("window_seconds", 1, kMaxWindowSeconds))};
}

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
  if (digest.is_object()) settings.digest = ParseDigest(digest);
  if (throttle.is_object()) settings.throttle = ParseThrottle(throttle);
  if (escalate.is_object()) settings.escalate = ParseEscalate(escalate);
  return settings;
}

}  // namespace chopar::workflow
