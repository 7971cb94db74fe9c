#include "templates/target.hpp"

#include <stdexcept>
#include <vector>

namespace chopar::templates {
namespace {

struct Targets {
  std::vector<Target> targets;
  std::vector<TargetInfo> infos;
};

Targets BuildTargets() {
  Targets all;
  auto add = [&](const TargetInfo& info) {
    all.targets.emplace_back(static_cast<std::uint8_t>(all.infos.size()));
    all.infos.push_back(info);
  };
  // The in-app title and body are cut to the database's limits instead (see
  // RenderNotification), so their output limit only bounds the work.
  add({std::nullopt, "title", mustache::Escaping::kNone, 2000, 64 * 1024, core::StandsFor::kTitle});
  add({std::nullopt, "body", mustache::Escaping::kNone, 20000, 256 * 1024, core::StandsFor::kBody});
  for (const core::ChannelKind kind : core::AllChannels()) {
    for (const core::MessageField& field : core::InfoOf(kind).fields) {
      add({kind, field.key,
           field.html_escaped ? mustache::Escaping::kHtml : mustache::Escaping::kNone,
           field.max_source, field.max_output, field.stands_for});
    }
  }
  const auto at = [&](Target target) {
    const TargetInfo& info = all.infos.at(target.index());
    return std::pair(info.channel, info.key);
  };
  if (at(Target::kEmailHtml) !=
          std::pair(std::optional(core::ChannelKind::kEmail), std::string_view("html")) ||
      at(Target::kSmsText) !=
          std::pair(std::optional(core::ChannelKind::kSms), std::string_view("text"))) {
    throw std::logic_error("the built-in channels' template fields are out of order");
  }
  return all;
}

const Targets& Registered() {
  static const Targets targets = BuildTargets();
  return targets;
}

}  // namespace

std::span<const Target> AllTargets() { return Registered().targets; }

const TargetInfo& InfoOf(Target target) { return Registered().infos[target.index()]; }

std::string TargetPath(Target target) {
  const TargetInfo& info = InfoOf(target);
  if (!info.channel) return std::string(info.key);
  return std::string(core::ChannelName(*info.channel)) + "." + std::string(info.key);
}

}  // namespace chopar::templates
