#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/channel_kind.hpp"
#include "templates/mustache_text.hpp"

namespace chopar::templates {

// The texts a locale block of a template may hold (docs/api.md "Templates
// and localization"): the in-app title and body, and each channel's own.
enum class Target : std::uint8_t {
  kTitle,
  kBody,
  kEmailSubject,
  kEmailHtml,
  kEmailText,
  kTelegramText,
  kPushTitle,
  kPushBody,
  kSmsText,
};
inline constexpr std::size_t kTargetCount = 9;
inline constexpr std::array<Target, kTargetCount> kAllTargets = {
    Target::kTitle,     Target::kBody,      Target::kEmailSubject,
    Target::kEmailHtml, Target::kEmailText, Target::kTelegramText,
    Target::kPushTitle, Target::kPushBody,  Target::kSmsText};

struct TargetInfo {
  // The channel block it sits in ("email"), or none for title and body.
  std::optional<core::ChannelKind> channel;
  std::string_view key;    // the member name inside its block ("html")
  Escaping escaping;       // HTML for email.html and telegram.text, else none
  std::size_t max_source;  // longest template accepted, in bytes
  std::size_t max_output;  // longest rendering sent, in bytes (see RenderError)
};
const TargetInfo& InfoOf(Target target);

// "title", "email.html", …: the target's path inside a locale block.
std::string TargetPath(Target target);

}  // namespace chopar::templates
