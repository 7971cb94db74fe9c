#include "channels/chat/whatsapp.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "channels/chat/chat_format.hpp"
#include "channels/render.hpp"

namespace chopar::channels::chat {
namespace {

// A template's body is at most 1,024 characters with its own text: the
// title and the body leave room for it.
constexpr std::size_t kMaxTitleParameter = 200;
constexpr std::size_t kMaxBodyParameter = 700;
constexpr std::size_t kMaxDataParameter = 700;
constexpr std::size_t kMaxParameters = 10;
constexpr std::size_t kMaxTemplateName = 512;

// Meta refuses a parameter with a line break, a tab or more than four
// spaces in a row (error 132018): each becomes one space.
std::string OneLine(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string Parameter(std::string_view text, std::size_t max_chars) {
  std::string line = OneLine(text);
  // An empty parameter is refused too.
  return line.empty() ? "-" : CutCodePoints(line, max_chars);
}

std::string LanguageFor(std::string_view locale, const WhatsAppSettings& settings) {
  const bool approved = std::find(settings.languages.begin(), settings.languages.end(), locale) !=
                        settings.languages.end();
  return approved ? std::string(locale) : settings.default_language;
}

// Graph's error object of an answer, or an empty object.
nlohmann::json GraphError(const net::HttpResponse& response) {
  const auto answer = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) return nlohmann::json::object();
  const auto it = answer.find("error");
  return it != answer.end() && it->is_object() ? *it : nlohmann::json::object();
}

std::string Describe(const net::HttpResponse& response, const nlohmann::json& error) {
  std::string detail = "whatsapp " + std::to_string(response.status);
  if (const auto m = error.find("message"); m != error.end() && m->is_string()) {
    detail += ": " + CutCodePoints(m->get<std::string>(), 300);
  }
  if (const auto c = error.find("code"); c != error.end() && c->is_number_integer()) {
    detail += " (code " + std::to_string(c->get<long long>()) + ")";
  }
  return detail;
}

bool OneOf(long long code, std::initializer_list<long long> codes) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

}  // namespace

bool IsTemplateName(std::string_view name) {
  return !name.empty() && name.size() <= kMaxTemplateName &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
         });
}

std::optional<std::string> WhatsAppNumberProblem(std::string_view text) {
  const bool digits =
      text.size() >= 8 && text.size() <= 16 && text[0] == '+' && text[1] != '0' &&
      std::all_of(text.begin() + 1, text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) return std::nullopt;
  return "must be a phone number in E.164, \"+\" and 7 to 15 digits (\"+998901234567\")";
}

TemplateChoice ChooseTemplate(const Message& message, const WhatsAppSettings& settings) {
  WhatsAppTemplate chosen{settings.template_name, LanguageFor(message.locale, settings), {}};
  const nlohmann::json& data = message.data;
  const auto name = data.is_object() ? data.find("whatsapp_template") : data.end();
  if (name != data.end()) {
    if (!name->is_string() || !IsTemplateName(name->get_ref<const std::string&>())) {
      return {std::nullopt,
              "data.whatsapp_template must be an approved template's name: lowercase letters, "
              "digits and '_'"};
    }
    chosen.name = name->get<std::string>();
  }
  const auto parameters = data.is_object() ? data.find("whatsapp_parameters") : data.end();
  if (parameters == data.end()) {
    chosen.parameters = {Parameter(message.title, kMaxTitleParameter),
                         Parameter(message.body, kMaxBodyParameter)};
    return {std::move(chosen), ""};
  }
  const bool strings = parameters->is_array() && parameters->size() <= kMaxParameters &&
                       std::all_of(parameters->begin(), parameters->end(),
                                   [](const nlohmann::json& p) { return p.is_string(); });
  if (!strings) {
    return {std::nullopt, "data.whatsapp_parameters must be an array of at most " +
                              std::to_string(kMaxParameters) + " strings"};
  }
  for (const auto& p : *parameters) {
    chosen.parameters.push_back(Parameter(p.get_ref<const std::string&>(), kMaxDataParameter));
  }
  return {std::move(chosen), ""};
}

std::string WhatsAppTemplateBody(std::string_view number, const WhatsAppTemplate& chosen) {
  nlohmann::json text_parameters = nlohmann::json::array();
  for (const std::string& p : chosen.parameters) {
    text_parameters.push_back({{"type", "text"}, {"text", p}});
  }
  nlohmann::json tmpl = {{"name", chosen.name}, {"language", {{"code", chosen.language}}}};
  if (!chosen.parameters.empty()) {
    tmpl["components"] =
        nlohmann::json::array({{{"type", "body"}, {"parameters", std::move(text_parameters)}}});
  }
  const nlohmann::json body = {
      {"messaging_product", "whatsapp"},
      {"recipient_type", "individual"},
      {"to", number.starts_with('+') ? number.substr(1) : number},
      {"type", "template"},
      {"template", std::move(tmpl)},
  };
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Outcome WhatsAppOutcome(const net::HttpResponse& response,
                        std::chrono::system_clock::time_point now) {
  if (response.status >= 200 && response.status < 300) {
    const auto answer = nlohmann::json::parse(response.body, nullptr, false);
    if (answer.is_object() && answer.contains("messages") && answer["messages"].is_array() &&
        !answer["messages"].empty() && answer["messages"][0].is_object()) {
      const auto& id = answer["messages"][0]["id"];
      if (id.is_string()) return Outcome::Sent(id.get<std::string>());
    }
    return Outcome::Sent();
  }
  const nlohmann::json error = GraphError(response);
  const std::string detail = Describe(response, error);
  const long long code = error.value("code", 0LL);
  const auto wait = RetryAfterHeader(response, now);
  // The number is not on WhatsApp (or can no longer take messages).
  if (code == 131026) return Outcome::AddressGone(detail);
  if (OneOf(code, {130429, 131056, 131048, 80007, 4, 131000, 131016, 133004, 190})) {
    return Outcome::Retry(detail, wait);
  }
  if (response.status == 429 || response.status >= 500) return Outcome::Retry(detail, wait);
  return Outcome::Permanent(detail);
}

}  // namespace chopar::channels::chat
