#include "hub/notification_content.hpp"

#include <algorithm>

#include "core/request_error.hpp"

namespace chopar::hub {
namespace {

using templates::Target;

// The targets a request's own title or body replaces.
bool ReplacedByRequest(Target target, bool has_title, bool has_body) {
  switch (templates::InfoOf(target).stands_for) {
    case core::StandsFor::kTitle:
      return has_title;
    case core::StandsFor::kBody:
      return has_body;
    case core::StandsFor::kTitleAndBody:
      return has_title || has_body;
  }
  return false;
}

}  // namespace

std::string CutToCodePoints(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++chars == max_chars) {
      // The code point that starts here is the last that fits: keep the
      // text whole if it is the last one, else cut before it and add "…".
      std::size_t end = i + 1;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      if (end == text.size()) return text;
      return text.substr(0, i) + "…";
    }
  }
  return text;
}

NotificationContent ComposeContent(const NotificationRequest& request,
                                   const templates::Template* tmpl, const std::string& user_locale,
                                   const nlohmann::json& context,
                                   const std::vector<core::ChannelKind>& chosen,
                                   const mustache::PartialSource* partials) {
  NotificationContent content;
  content.title = request.title;
  content.body = request.body;
  if (!request.actions.empty()) content.actions = ActionsJson(request.actions);
  content.tags = request.tags;
  if (tmpl == nullptr) {
    if (content.title.empty()) {
      throw core::InvalidField("title",
                               "title is required: type " + request.type + " has no template");
    }
    return content;
  }

  const bool has_title = !request.title.empty();
  const bool has_body = !request.body.empty();
  const std::string& locale = tmpl->ResolveLocale(user_locale);
  const templates::LocaleTexts& texts = tmpl->locales.find(locale)->second;
  const mustache::RenderContext values(context);
  try {
    if (!has_title)
      content.title = CutToCodePoints(*texts.Render(Target::kTitle, values, partials), 500);
    if (!has_body) {
      content.body =
          CutToCodePoints(texts.Render(Target::kBody, values, partials).value_or(""), 10000);
    }
  } catch (const templates::RenderError& e) {
    throw core::InvalidField("data", "template " + request.type + " (" + locale + "): " + e.what());
  }
  if (content.title.empty()) {
    throw core::InvalidField("data",
                             "template " + request.type + " (" + locale +
                                 ") rendered an empty title: data lacks what the title names");
  }
  content.tags = MergeTags(tmpl->tags, request.tags);
  if (request.actions.empty() && texts.HasActions()) {
    const std::string where = "template " + request.type + " (" + locale + ")";
    try {
      const std::vector<NotificationAction> actions =
          ActionsFromJson(texts.RenderActions(values, partials));
      for (std::size_t i = 0; i < actions.size(); ++i)
        CheckAction(actions[i], "actions[" + std::to_string(i) + "]");
      content.actions = ActionsJson(actions);
    } catch (const templates::RenderError& e) {
      throw core::InvalidField("data", where + ": " + e.what());
    } catch (const core::RequestError& e) {
      throw core::InvalidField("data", where + " rendered " + e.what());
    }
  }

  for (core::ChannelKind channel : chosen) {
    if (!texts.HasChannelBlock(channel)) continue;
    nlohmann::json block = nlohmann::json::object();
    for (Target target : templates::AllTargets()) {
      const auto& info = templates::InfoOf(target);
      if (info.channel != channel || ReplacedByRequest(target, has_title, has_body)) continue;
      try {
        if (auto text = texts.Render(target, values, partials))
          block[std::string(info.key)] = std::move(*text);
      } catch (const std::exception& e) {
        block = {{"error", "template " + request.type + " (" + locale + "): " + e.what()}};
        break;
      }
    }
    if (block.empty()) continue;
    if (content.channels.is_null()) content.channels = nlohmann::json::object();
    content.channels[std::string(core::ChannelName(channel))] = std::move(block);
  }
  if (tmpl->layout && std::ranges::find(chosen, core::ChannelKind::kEmail) != chosen.end()) {
    if (content.channels.is_null()) content.channels = nlohmann::json::object();
    nlohmann::json& email =
        content.channels[std::string(core::ChannelName(core::ChannelKind::kEmail))];
    if (email.is_null()) email = nlohmann::json::object();
    if (!email.contains("error")) {
      email["layout"] = {{"key", *tmpl->layout},
                         {"tenant", request.tenant ? nlohmann::json(*request.tenant) : nullptr}};
    }
  }
  return content;
}

}  // namespace chopar::hub
