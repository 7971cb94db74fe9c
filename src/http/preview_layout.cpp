#include "http/preview_layout.hpp"

#include <map>

#include "channels/render.hpp"
#include "core/request_error.hpp"
#include "templates/fragment.hpp"

namespace chopar::http {
namespace {

constexpr std::size_t kMaxPreviewPartials = 50;

std::unique_ptr<mustache::PartialMap> ParseGiven(const nlohmann::json& body) {
  const auto it = body.find("partials");
  if (it == body.end() || it->is_null()) return nullptr;
  if (!it->is_object() || it->size() > kMaxPreviewPartials) {
    throw core::InvalidField("partials", "partials must be an object of at most " +
                                             std::to_string(kMaxPreviewPartials) +
                                             " names → Mustache texts");
  }
  std::map<std::string, std::string> sources;
  for (const auto& [name, text] : it->items()) {
    const std::string field = "partials." + name;
    if (name.empty() || name.size() > 100 || !text.is_string() ||
        text.get_ref<const std::string&>().size() > templates::kMaxPartialBytes) {
      throw core::InvalidField(field, field +
                                          " must be a name of 1 to 100 bytes and a string of "
                                          "at most " +
                                          std::to_string(templates::kMaxPartialBytes) + " bytes");
    }
    try {
      (void)mustache::MustacheText(text.get_ref<const std::string&>(), mustache::Escaping::kNone);
    } catch (const mustache::SyntaxError& e) {
      throw core::InvalidField(field, field + ": " + e.what());
    }
    sources.emplace(name, text.get<std::string>());
  }
  return std::make_unique<mustache::PartialMap>(sources);
}

}  // namespace

PreviewPartials::PreviewPartials(const nlohmann::json& body, templates::RenderLibrary library)
    : given_(ParseGiven(body)), library_(std::move(library)) {}

const mustache::MustacheText* PreviewPartials::FindPartial(std::string_view name,
                                                           mustache::Escaping escaping) const {
  if (given_) {
    if (const auto* found = given_->FindPartial(name, escaping)) return found;
  }
  return library_.FindPartial(name, escaping);
}

nlohmann::json EmailInLayout(const nlohmann::json& rendered, const std::string& key,
                             const PreviewPartials& partials, const nlohmann::json& values,
                             const std::string& locale) {
  templates::BoundLayout bound{partials.library().FindLayout(key), partials.library()};
  if (!bound.layout) throw core::InvalidField("layout", "layout " + key + " does not exist");
  channels::Message message;
  message.channel = core::ChannelKind::kEmail;
  message.locale = locale;
  message.data = values;
  message.title = rendered.value("title", "");
  message.body = rendered.value("body", "");
  if (const auto email = rendered.find("email"); email != rendered.end())
    channels::ApplyChannelTexts(message, *email);
  message.layout_key = key;
  // RenderEmail falls back on the built-in layout when the stored one
  // cannot render (the email still goes); a preview says why instead.
  auto failure = std::make_shared<std::string>();
  const auto keep = [failure](auto render) {
    return [failure, render](const nlohmann::json& v) {
      try {
        return render(v);
      } catch (const std::exception& e) {
        *failure = e.what();
        throw;
      }
    };
  };
  // The layout's partials as the texts': the inline ones first. RenderEmail
  // renders before it returns, while `partials` lives.
  message.layout = channels::EmailLayout{
      keep([bound, &partials](const nlohmann::json& v) { return bound.Html(v, partials); }),
      keep([bound, &partials](const nlohmann::json& v) { return bound.Text(v, partials); })};
  const channels::EmailContent email = channels::RenderEmail(message, "", "#unsubscribe");
  if (!failure->empty()) throw core::InvalidField("data", *failure);
  return {{"key", key}, {"html", email.html}, {"text", email.text}};
}

}  // namespace chopar::http
