#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/channel_kind.hpp"
#include "mustache/text.hpp"

namespace chopar::templates {

// A text a locale block of a template may hold (docs/api.md "Templates and
// localization"): the in-app title and body, then each registered channel's
// own fields (core::ChannelInfo::fields) in the order of
// core::AllChannels(). A small value: the text's place in that list.
class Target {
 public:
  static const Target kTitle;
  static const Target kBody;
  // The built-in channels' fields, which the built-in channels register
  // first (checked where the list is built).
  static const Target kEmailSubject;
  static const Target kEmailHtml;
  static const Target kEmailText;
  static const Target kTelegramText;
  static const Target kPushTitle;
  static const Target kPushBody;
  static const Target kSmsText;

  constexpr explicit Target(std::uint8_t index) : index_(index) {}
  [[nodiscard]] constexpr std::size_t index() const { return index_; }
  constexpr auto operator<=>(const Target&) const = default;

 private:
  std::uint8_t index_;
};

inline constexpr Target Target::kTitle{0};
inline constexpr Target Target::kBody{1};
inline constexpr Target Target::kEmailSubject{2};
inline constexpr Target Target::kEmailHtml{3};
inline constexpr Target Target::kEmailText{4};
inline constexpr Target Target::kTelegramText{5};
inline constexpr Target Target::kPushTitle{6};
inline constexpr Target Target::kPushBody{7};
inline constexpr Target Target::kSmsText{8};

struct TargetInfo {
  // The channel block it sits in ("email"), or none for title and body.
  std::optional<core::ChannelKind> channel;
  std::string_view key;    // the member name inside its block ("html")
  mustache::Escaping escaping;  // HTML for email.html and telegram.text, else none
  std::size_t max_source;  // longest template accepted, in bytes
  std::size_t max_output;  // longest rendering sent, in bytes (see RenderError)
  // Which of the in-app texts it stands for (for title and body, itself).
  core::StandsFor stands_for;
};

// Every target of the registered channels, in order. Built from the channel
// registry when first asked for (see core::RegisterChannel).
std::span<const Target> AllTargets();
const TargetInfo& InfoOf(Target target);

// "title", "email.html", …: the target's path inside a locale block.
std::string TargetPath(Target target);

}  // namespace chopar::templates
