#include "templates/rendering.hpp"

namespace chopar::templates {

nlohmann::json MakeContext(nlohmann::json data, const std::optional<ContextUser>& user,
                           const std::optional<ContextNotification>& notification) {
  if (!data.is_object()) {
    if (!user && !notification) return data;
    data = nlohmann::json::object();
  }
  if (user) {
    data["user"] = {{"id", user->id},
                    {"locale", user->locale},
                    {"timezone", user->timezone},
                    {"data", user->data}};
  }
  if (notification) {
    auto optional = [](const auto& value) {
      return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    data["notification"] = {{"id", optional(notification->id)},
                            {"type", notification->type},
                            {"link", optional(notification->link)},
                            {"created_at", optional(notification->created_at)}};
  }
  return data;
}

nlohmann::json RenderAll(const LocaleTexts& texts, const mustache::RenderContext& context,
                         const mustache::PartialSource* partials) {
  TargetTexts rendered;
  for (Target target : AllTargets()) {
    if (auto text = texts.Render(target, context, partials))
      rendered.emplace_back(target, std::move(*text));
  }
  nlohmann::json block = BlockOf(rendered);
  if (nlohmann::json actions = texts.RenderActions(context, partials); !actions.is_null())
    block["actions"] = std::move(actions);
  return block;
}

}  // namespace chopar::templates
