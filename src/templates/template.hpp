#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mustache/text.hpp"
#include "templates/target.hpp"
#include "workflow/settings.hpp"

namespace chopar::templates {

// Texts by the target they are for, in the order of AllTargets().
using TargetTexts = std::vector<std::pair<Target, std::string>>;

// The texts in the shape of a locale block ({"title", "body", "email":
// {"subject", "html", "text"}, …}): the inverse of LocaleTexts::Parse, the
// shape a block is stored, shown and previewed in.
nlohmann::json BlockOf(const TargetTexts& texts);

// A button of a template's locale block: its label and url are Mustache
// texts rendered like the title; an event is a plain name.
struct ActionTexts {
  mustache::MustacheText label;
  std::optional<mustache::MustacheText> url;
  std::optional<std::string> event;
};

// The parsed texts of one locale block ({"title", "body", "email": {…}, …,
// "actions": [{"label", "url" | "event"}]}). `title` is always there. Move-only; immutable once
// parsed, so any number of threads may render it at once.
class LocaleTexts {
 public:
  // The block's texts as their sources, shaped as the block was given
  // ({"title", "body", "email": {"html", …}, …}, only the texts present):
  // the stored form, which the API also shows.
  [[nodiscard]] nlohmann::json Sources() const;
  [[nodiscard]] const mustache::MustacheText* Find(Target target) const;
  [[nodiscard]] bool Has(Target target) const { return Find(target) != nullptr; }
  // Whether the block has any text of `channel`'s own block.
  [[nodiscard]] bool HasChannelBlock(core::ChannelKind channel) const;

  // Renders `target`, its {{> name}} tags from `partials` (none: they
  // render as nothing), or nullopt when the block has no such text. Throws
  // RenderError when the output grows longer than the target's max_output,
  // the render takes more than mustache::kMaxRenderSteps or partials nest
  // too deep (the render is stopped there: see mustache::RenderBudget).
  [[nodiscard]] std::optional<std::string> Render(
      Target target, const mustache::RenderContext& context,
      const mustache::PartialSource* partials = nullptr) const;
  // The block's actions rendered ([{"label", "url"} | {"label", "event"}]),
  // null when it has none. Throws RenderError (target kTitle: a label is
  // held to the title's budget of work) naming the action.
  [[nodiscard]] nlohmann::json RenderActions(
      const mustache::RenderContext& context,
      const mustache::PartialSource* partials = nullptr) const;
  [[nodiscard]] bool HasActions() const { return !actions_.empty(); }

  // Parses `block`. Field names in errors are `field_prefix` + the path
  // inside the block ("locales.uz." + "email.html"). Throws
  // core::RequestError kInvalidField: not an object, unknown members, a
  // missing title, a text that is not a string or too long, or a text that
  // does not parse (the message gives the line and column); "actions" not
  // an array of 1 or 2 objects {"label", "url"} or {"label", "event"}, a
  // url that does not start as an internal path, an event not of the
  // notification type grammar.
  static LocaleTexts Parse(const nlohmann::json& block, const std::string& field_prefix);

 private:
  std::vector<std::optional<mustache::MustacheText>> texts_ =
      std::vector<std::optional<mustache::MustacheText>>(AllTargets().size());
  std::vector<ActionTexts> actions_;
};

// A rendering that cannot be sent: its output is over the target's limit,
// or it takes more work than a render may.
class RenderError : public std::runtime_error {
 public:
  RenderError(Target target, const std::string& what) : std::runtime_error(what), target_(target) {}
  [[nodiscard]] Target target() const { return target_; }

 private:
  Target target_;
};

// A notification type's template (PUT /v1/templates/{type}; docs/api.md
// "Templates and localization"). Move-only, immutable once parsed; shared
// between threads as std::shared_ptr<const Template>.
struct Template {
  std::string type;
  std::optional<std::string> category;
  std::string default_locale;
  std::map<std::string, LocaleTexts, std::less<>> locales;  // has default_locale
  // Workflow settings, stored and returned as given: null or a JSON object.
  nlohmann::json digest = nullptr;
  nlohmann::json throttle = nullptr;
  nlohmann::json escalate = nullptr;
  // The type's workflow steps as given (null: none; docs/api.md "Workflows
  // with steps"), parsed into workflows.steps. Not combined with the three
  // settings above, which GET shows converted into steps.
  nlohmann::json steps = nullptr;
  // Tags every notification of the type carries (a request's own are
  // added to them): distinct, at most 10.
  std::vector<std::string> tags;
  // The email layout (docs/api.md "Layouts"): none, the built-in one; else
  // a layout's key, the notification's tenant's own first.
  std::optional<std::string> layout;
  // The same, parsed (workflow::ParseWorkflowSettings): what notify and the
  // claim read.
  workflow::WorkflowSettings workflows;
  // The PUT body this was parsed from: what a version of it stores
  // (templates/versions.hpp).
  nlohmann::json source;

  // The locale a user with `user_locale` gets: that locale when the
  // template has it, else its language part ("uz-Cyrl" → "uz"), else
  // default_locale.
  [[nodiscard]] const std::string& ResolveLocale(std::string_view user_locale) const;
  [[nodiscard]] const LocaleTexts& TextsFor(std::string_view user_locale) const {
    return locales.find(ResolveLocale(user_locale))->second;
  }
};

// Parses and validates a PUT body for `type` (a valid notification type).
// Every text is parsed here, once. Throws core::RequestError
// (kInvalidJson when the body is not an object; kInvalidField naming the
// field: unknown members, a bad category or locale name, default_locale not
// among the locales, tags not an array of at most 10 distinct tags, digest/throttle/escalate not an
// object or null, the text errors of LocaleTexts::Parse, and last the settings' own errors of
// workflow::ParseWorkflowSettings).
Template ParseTemplate(const std::string& type, const nlohmann::json& body);

// ^[a-z]+(\.[a-z_]+)*$, at most 100 characters: a category name (the
// notification type grammar).
bool IsValidCategory(std::string_view category);
// "uz", "en", "uz-Cyrl", "pt-BR": two or three lower-case letters, then an
// optional "-" and 2 to 8 letters or digits (the users.locale CHECK).
bool IsValidLocale(std::string_view locale);

}  // namespace chopar::templates
