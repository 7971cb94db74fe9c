// The delivery channels, as the server knows them (docs/api.md "Channels").
#include "http/channel_routes.hpp"

#include "core/channel_kind.hpp"
#include "http/message.hpp"
#include "templates/target.hpp"

namespace chopar::http {
namespace {

// The fields a template's block for `kind` may give ("subject", "html", …).
nlohmann::json TemplateFields(core::ChannelKind kind) {
  nlohmann::json fields = nlohmann::json::array();
  for (templates::Target target : templates::AllTargets()) {
    const templates::TargetInfo& info = templates::InfoOf(target);
    if (info.channel == kind) fields.push_back(info.key);
  }
  return fields;
}

struct GetChannels {
  Response operator()(const Request& /*request*/) const {
    return JsonResponse(200, ChannelsDocument());
  }
};

}  // namespace

nlohmann::json ChannelsDocument() {
  nlohmann::json channels = nlohmann::json::array();
  for (core::ChannelKind kind : core::AllChannels()) {
    const core::ChannelInfo& info = core::InfoOf(kind);
    channels.push_back({{"name", info.name},
                        {"address", info.address},
                        {"default", info.on_by_default},
                        {"template_fields", TemplateFields(kind)},
                        {"settings", info.settings_section}});
  }
  return {{"channels", std::move(channels)}};
}

void RegisterChannelRoutes(Router& router) {
  router.Add("GET", "/v1/channels", Auth::kNone, GetChannels{});
}

}  // namespace chopar::http
