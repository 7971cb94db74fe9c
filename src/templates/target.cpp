#include "templates/target.hpp"

namespace chopar::templates {
namespace {

using core::ChannelKind;

// The in-app title and body are cut to the database's limits instead (see
// RenderNotification), so their output limit only bounds the work.
constexpr std::array<TargetInfo, kTargetCount> kInfo = {{
    {std::nullopt, "title", Escaping::kNone, 2000, 64 * 1024},
    {std::nullopt, "body", Escaping::kNone, 20000, 256 * 1024},
    {ChannelKind::kEmail, "subject", Escaping::kNone, 2000, 2000},
    {ChannelKind::kEmail, "html", Escaping::kHtml, 100000, 512 * 1024},
    {ChannelKind::kEmail, "text", Escaping::kNone, 50000, 256 * 1024},
    {ChannelKind::kTelegram, "text", Escaping::kHtml, 8000, 4096 * 4},
    {ChannelKind::kPush, "title", Escaping::kNone, 2000, 2000},
    {ChannelKind::kPush, "body", Escaping::kNone, 8000, 4000},
    {ChannelKind::kSms, "text", Escaping::kNone, 2000, 2000},
}};

}  // namespace

const TargetInfo& InfoOf(Target target) { return kInfo[static_cast<std::size_t>(target)]; }

std::string TargetPath(Target target) {
  const TargetInfo& info = InfoOf(target);
  if (!info.channel) return std::string(info.key);
  return std::string(core::ChannelName(*info.channel)) + "." + std::string(info.key);
}

}  // namespace chopar::templates
