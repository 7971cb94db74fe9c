#include "templates/template.hpp"

#include <cctype>
#include <set>

#include "core/request_error.hpp"
#include "core/tags.hpp"
#include "core/type_name.hpp"
#include "templates/fragment.hpp"
#include "workflow/steps.hpp"

namespace chopar::templates {
namespace {

void RejectUnknown(const nlohmann::json& object, const std::set<std::string, std::less<>>& known,
                   const std::string& prefix) {
  for (const auto& [key, value] : object.items()) {
    if (!known.contains(key))
      throw core::InvalidField(prefix + key, "unknown field " + prefix + key);
  }
}

mustache::MustacheText ParseText(const nlohmann::json& value, Target target,
                                 const std::string& field) {
  if (!value.is_string())
    throw core::InvalidField(field, field + " must be a string (a Mustache template)");
  const auto& source = value.get_ref<const std::string&>();
  if (source.size() > InfoOf(target).max_source) {
    throw core::InvalidField(
        field, field + " is longer than " + std::to_string(InfoOf(target).max_source) + " bytes");
  }
  try {
    return mustache::MustacheText(source, InfoOf(target).escaping);
  } catch (const mustache::SyntaxError& e) {
    throw core::InvalidField(field, field + ": " + e.what());
  }
}

// The bounds of an action's texts: a label renders to at most 100 code
// points (checked after rendering), a url to an internal path.
constexpr std::size_t kMaxActionLabelSource = 1000;
constexpr std::size_t kMaxActionLabelOutput = 4 * 1024;
constexpr std::size_t kMaxActionUrlSource = 2000;
constexpr std::size_t kMaxActionUrlOutput = 8 * 1024;

mustache::MustacheText ParseActionText(const nlohmann::json& value, std::size_t max_source,
                                       const std::string& field) {
  if (!value.is_string())
    throw core::InvalidField(field, field + " must be a string (a Mustache template)");
  const auto& source = value.get_ref<const std::string&>();
  if (source.empty() || source.size() > max_source) {
    throw core::InvalidField(field,
                             field + " must be 1 to " + std::to_string(max_source) + " bytes");
  }
  try {
    return mustache::MustacheText(source, mustache::Escaping::kNone);
  } catch (const mustache::SyntaxError& e) {
    throw core::InvalidField(field, field + ": " + e.what());
  }
}

// A block's "actions": 1 or 2 buttons (docs/api.md "Actions and tags").
std::vector<ActionTexts> ParseActions(const nlohmann::json& value, const std::string& field) {
  if (!value.is_array() || value.empty() || value.size() > 2) {
    throw core::InvalidField(field, field +
                                        " must be an array of 1 or 2 objects {\"label\", "
                                        "\"url\"} or {\"label\", \"event\"}");
  }
  std::vector<ActionTexts> actions;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item_field = field + "[" + std::to_string(i) + "]";
    const nlohmann::json& item = value[i];
    if (!item.is_object()) throw core::InvalidField(item_field, item_field + " must be an object");
    RejectUnknown(item, {"label", "url", "event"}, item_field + ".");
    const auto label = item.find("label");
    if (label == item.end() || label->is_null())
      throw core::InvalidField(item_field + ".label", item_field + ".label is required");
    const auto url = item.find("url");
    const auto event = item.find("event");
    const bool has_url = url != item.end() && !url->is_null();
    const bool has_event = event != item.end() && !event->is_null();
    if (has_url == has_event)
      throw core::InvalidField(item_field, item_field + " must have either url or event");
    ActionTexts action{ParseActionText(*label, kMaxActionLabelSource, item_field + ".label"),
                       std::nullopt, std::nullopt};
    if (has_url) {
      // The rendered url is checked again; a fixed start keeps it internal.
      const std::string url_field = item_field + ".url";
      if (!url->is_string() || url->get_ref<const std::string&>().size() < 2 ||
          url->get_ref<const std::string&>()[0] != '/' ||
          url->get_ref<const std::string&>()[1] == '/' ||
          url->get_ref<const std::string&>()[1] == '\\') {
        throw core::InvalidField(url_field, url_field +
                                                " must be an internal path such as "
                                                "/tasks/{{task_id}} (no scheme, not //host)");
      }
      action.url = ParseActionText(*url, kMaxActionUrlSource, url_field);
    } else {
      if (!event->is_string() || !core::IsTypeName(event->get_ref<const std::string&>())) {
        throw core::InvalidField(item_field + ".event",
                                 item_field +
                                     ".event must match ^[a-z]+(\\.[a-z_]+)*$, e.g. "
                                     "invite.accept");
      }
      action.event = event->get<std::string>();
    }
    actions.push_back(std::move(action));
  }
  return actions;
}

}  // namespace

bool IsValidCategory(std::string_view category) { return core::IsTypeName(category); }

bool IsValidLocale(std::string_view locale) {
  const auto dash = locale.find('-');
  const std::string_view language = locale.substr(0, dash);
  if (language.size() < 2 || language.size() > 3) return false;
  for (char c : language) {
    if (c < 'a' || c > 'z') return false;
  }
  if (dash == std::string_view::npos) return true;
  const std::string_view region = locale.substr(dash + 1);
  if (region.size() < 2 || region.size() > 8) return false;
  for (char c : region) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

const mustache::MustacheText* LocaleTexts::Find(Target target) const {
  const auto& text = texts_[target.index()];
  return text ? &*text : nullptr;
}

bool LocaleTexts::HasChannelBlock(core::ChannelKind channel) const {
  for (Target target : AllTargets()) {
    if (InfoOf(target).channel == channel && Has(target)) return true;
  }
  return false;
}

std::optional<std::string> LocaleTexts::Render(Target target,
                                               const mustache::RenderContext& context,
                                               const mustache::PartialSource* partials) const {
  const mustache::MustacheText* text = Find(target);
  if (text == nullptr) return std::nullopt;
  try {
    return text->Render(context, mustache::RenderBudget{InfoOf(target).max_output}, partials);
  } catch (const mustache::RenderLimitError& e) {
    throw RenderError(target, "template " + TargetPath(target) + " " + e.what());
  }
}

nlohmann::json LocaleTexts::RenderActions(const mustache::RenderContext& context,
                                          const mustache::PartialSource* partials) const {
  if (actions_.empty()) return nullptr;
  nlohmann::json rendered = nlohmann::json::array();
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    const ActionTexts& action = actions_[i];
    const std::string field = "actions[" + std::to_string(i) + "]";
    try {
      nlohmann::json item = {
          {"label",
           action.label.Render(context, mustache::RenderBudget{kMaxActionLabelOutput}, partials)}};
      if (action.url) {
        item["url"] =
            action.url->Render(context, mustache::RenderBudget{kMaxActionUrlOutput}, partials);
      }
      if (action.event) item["event"] = *action.event;
      rendered.push_back(std::move(item));
    } catch (const mustache::RenderLimitError& e) {
      throw RenderError(Target::kTitle, "template " + field + " " + e.what());
    }
  }
  return rendered;
}

nlohmann::json BlockOf(const TargetTexts& texts) {
  nlohmann::json block = nlohmann::json::object();
  for (const auto& [target, text] : texts) {
    const TargetInfo& info = InfoOf(target);
    if (info.channel) {
      block[std::string(core::ChannelName(*info.channel))][std::string(info.key)] = text;
    } else {
      block[std::string(info.key)] = text;
    }
  }
  return block;
}

nlohmann::json LocaleTexts::Sources() const {
  TargetTexts sources;
  for (Target target : AllTargets()) {
    if (const mustache::MustacheText* text = Find(target))
      sources.emplace_back(target, text->source());
  }
  nlohmann::json block = BlockOf(sources);
  for (const ActionTexts& action : actions_) {
    nlohmann::json item = {{"label", action.label.source()}};
    if (action.url) item["url"] = action.url->source();
    if (action.event) item["event"] = *action.event;
    block["actions"].push_back(std::move(item));
  }
  return block;
}

LocaleTexts LocaleTexts::Parse(const nlohmann::json& block, const std::string& field_prefix) {
  const std::string block_field =
      field_prefix.empty() ? "" : field_prefix.substr(0, field_prefix.size() - 1);
  if (!block.is_object()) {
    throw core::InvalidField(
        block_field, block_field + " must be an object {\"title\", \"body\", \"email\", …}");
  }
  std::set<std::string, std::less<>> members = {"title", "body", "actions"};
  for (core::ChannelKind channel : core::AllChannels()) members.emplace(core::ChannelName(channel));
  RejectUnknown(block, members, field_prefix);
  for (core::ChannelKind channel : core::AllChannels()) {
    const auto it = block.find(core::ChannelName(channel));
    if (it == block.end() || it->is_null()) continue;
    const std::string channel_field = field_prefix + std::string(core::ChannelName(channel));
    if (!it->is_object())
      throw core::InvalidField(channel_field, channel_field + " must be an object");
    std::set<std::string, std::less<>> keys;
    for (Target target : AllTargets()) {
      if (InfoOf(target).channel == channel) keys.emplace(InfoOf(target).key);
    }
    RejectUnknown(*it, keys, channel_field + ".");
  }

  LocaleTexts texts;
  for (Target target : AllTargets()) {
    const TargetInfo& info = InfoOf(target);
    const nlohmann::json* holder = &block;
    if (info.channel) {
      const auto it = block.find(core::ChannelName(*info.channel));
      if (it == block.end() || it->is_null()) continue;
      holder = &*it;
    }
    const auto it = holder->find(info.key);
    if (it == holder->end() || it->is_null()) continue;
    texts.texts_[target.index()] = ParseText(*it, target, field_prefix + TargetPath(target));
  }
  if (!texts.Has(Target::kTitle)) {
    throw core::InvalidField(field_prefix + "title", field_prefix + "title is required");
  }
  if (const auto it = block.find("actions"); it != block.end() && !it->is_null())
    texts.actions_ = ParseActions(*it, field_prefix + "actions");
  return texts;
}

const std::string& Template::ResolveLocale(std::string_view user_locale) const {
  if (const auto it = locales.find(user_locale); it != locales.end()) return it->first;
  const auto dash = user_locale.find('-');
  if (dash != std::string_view::npos) {
    if (const auto it = locales.find(user_locale.substr(0, dash)); it != locales.end())
      return it->first;
  }
  return default_locale;
}

Template ParseTemplate(const std::string& type, const nlohmann::json& body) {
  if (!body.is_object()) throw core::InvalidJson("the body must be a JSON object");
  // "type", "tenant", "version", "created_at" and "updated_at" come back
  // from GET; a client may send what it read (the request's ?tenant=
  // decides whose it is).
  RejectUnknown(body,
                {"type", "category", "default_locale", "locales", "tags", "digest", "throttle",
                 "escalate", "steps", "layout", "tenant", "version", "created_at", "updated_at"},
                "");
  Template t;
  t.type = type;
  t.source = body;
  if (const auto it = body.find("type"); it != body.end() && !it->is_null() && *it != type) {
    throw core::InvalidField("type", "type must be the one in the path (" + type + ") or left out");
  }
  if (const auto it = body.find("category"); it != body.end() && !it->is_null()) {
    if (!it->is_string() || !IsValidCategory(it->get_ref<const std::string&>())) {
      throw core::InvalidField("category",
                               "category must match ^[a-z]+(\\.[a-z_]+)*$, e.g. marketing");
    }
    t.category = it->get<std::string>();
  }
  if (const auto it = body.find("tags"); it != body.end()) t.tags = core::ParseTags(*it);
  if (const auto it = body.find("layout"); it != body.end() && !it->is_null()) {
    if (!it->is_string() || !IsValidFragmentKey(it->get_ref<const std::string&>())) {
      throw core::InvalidField("layout",
                               "layout must be null (the built-in layout) or a layout's key, "
                               "^[a-z0-9][a-z0-9_.-]{0,99}$");
    }
    t.layout = it->get<std::string>();
  }
  const auto locales = body.find("locales");
  if (locales == body.end() || !locales->is_object() || locales->empty()) {
    throw core::InvalidField("locales",
                             "locales must be an object with at least one locale block, e.g. "
                             "{\"en\": {\"title\": \"…\"}}");
  }
  for (const auto& [locale, block] : locales->items()) {
    if (!IsValidLocale(locale)) {
      throw core::InvalidField("locales." + locale,
                               "locale " + locale + " must look like uz, en or uz-Cyrl");
    }
    t.locales.emplace(locale, LocaleTexts::Parse(block, "locales." + locale + "."));
  }
  const auto default_locale = body.find("default_locale");
  if (default_locale == body.end() || !default_locale->is_string()) {
    throw core::InvalidField("default_locale", "default_locale is required, e.g. \"en\"");
  }
  t.default_locale = default_locale->get<std::string>();
  if (!t.locales.contains(t.default_locale)) {
    throw core::InvalidField("default_locale",
                             "default_locale " + t.default_locale + " must be one of the locales");
  }
  for (const auto& [name, member] :
       {std::pair{"digest", &t.digest}, std::pair{"throttle", &t.throttle},
        std::pair{"escalate", &t.escalate}}) {
    const auto it = body.find(name);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_object())
      throw core::InvalidField(name, std::string(name) + " must be an object or null");
    *member = *it;
  }
  t.workflows = workflow::ParseWorkflowSettings(t.digest, t.throttle, t.escalate);
  if (const auto it = body.find("steps"); it != body.end() && !it->is_null()) {
    if (!t.digest.is_null() || !t.throttle.is_null() || !t.escalate.is_null()) {
      throw core::InvalidField(
          "steps",
          "steps replaces digest, throttle and escalate: give steps alone "
          "(as digest, throttle, delay and channel steps) or the three without it");
    }
    t.workflows.steps =
        std::make_shared<const std::vector<workflow::Step>>(workflow::ParseSteps(*it));
    t.steps = workflow::StepsJson(*t.workflows.steps);
  }
  return t;
}

}  // namespace chopar::templates
