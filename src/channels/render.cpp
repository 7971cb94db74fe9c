#include "channels/render.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "core/encoding.hpp"
#include "core/text.hpp"

namespace chopar::channels {
namespace {

constexpr Words kEnglish{"Open", "You receive this because of your notification settings.",
                         "Unsubscribe from these emails"};
constexpr Words kUzbek{"Ochish", "Siz bu xabarni bildirishnoma sozlamalaringiz tufayli oldingiz.",
                       "Bu xatlarga obunani bekor qilish"};

// The email layout's pieces: a centred 560-pixel card that shrinks on
// small screens, inline styles only.
constexpr std::string_view kFont =
    "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

// A colour a style attribute may hold: #rgb or #rrggbb, nothing that
// could end the declaration.
bool IsHexColor(std::string_view color) {
  if ((color.size() != 4 && color.size() != 7) || color[0] != '#') return false;
  return std::all_of(color.begin() + 1, color.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// The email's own HTML: the template's email.html, or the title as a
// heading and the body; what a layout's {{{content}}} is.
std::string HtmlContent(const Message& message) {
  if (message.html) return *message.html + "\n";
  std::string html = "<h1 style=\"margin:0 0 12px;font-size:20px;line-height:1.3;\">" +
                     HtmlEscape(message.title) + "</h1>\n";
  if (!message.body.empty()) {
    html += "<p style=\"margin:0 0 16px;\">" + HtmlEscapeLines(message.body) + "</p>\n";
  }
  return html;
}

// The context a stored layout renders with (docs/api.md "Layouts"): the
// notification's data, and over it what the built-in layout shows.
nlohmann::json LayoutValues(const Message& message, const EmailContent& content,
                            const std::optional<std::string>& link, const Words& words,
                            std::string own) {
  nlohmann::json values = message.data.is_object() ? message.data : nlohmann::json::object();
  values["content"] = std::move(own);
  values["subject"] = content.subject;
  values["title"] = message.title;
  values["body"] = message.body;
  values["link"] = link ? nlohmann::json(*link) : nlohmann::json(nullptr);
  values["open"] = words.open;
  values["unsubscribe_url"] = content.unsubscribe_url;
  values["unsubscribe"] = words.unsubscribe;
  values["preferences"] = words.preferences;
  values["locale"] = message.locale;
  values["notification"] = {{"id", message.notification_id}, {"type", message.type}};
  nlohmann::json branding = nullptr;
  if (message.branding) {
    const Branding& b = *message.branding;
    const auto optional = [](const std::optional<std::string>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    branding = {{"logo_url", optional(b.logo_url)},
                {"primary_color", optional(b.primary_color)},
                {"sender_name", optional(b.sender_name)},
                {"footer", optional(b.footer)}};
  }
  values["branding"] = std::move(branding);
  return values;
}

std::string EmailHtml(const Message& message, const std::optional<std::string>& link,
                      const Words& words, const std::string& subject,
                      const std::string& unsubscribe_url) {
  const Branding* branding = message.branding ? &*message.branding : nullptr;
  std::string button_color = "#2563eb";
  if (branding != nullptr && branding->primary_color && IsHexColor(*branding->primary_color)) {
    button_color = *branding->primary_color;
  }
  std::string html =
      "<!doctype html>\n<html lang=\"" + HtmlEscape(message.locale) +
      "\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      "<title>" +
      HtmlEscape(subject) +
      "</title></head>\n"
      "<body style=\"margin:0;padding:0;background:#f4f4f5;\">\n"
      "<table role=\"presentation\" width=\"100%\" cellspacing=\"0\" cellpadding=\"0\" "
      "style=\"background:#f4f4f5;\"><tr><td align=\"center\" style=\"padding:24px 12px;\">\n"
      "<table role=\"presentation\" width=\"100%\" cellspacing=\"0\" cellpadding=\"0\" "
      "style=\"max-width:560px;background:#ffffff;border-radius:8px;" +
      std::string(kFont) +
      "color:#18181b;\"><tr><td style=\"padding:24px;font-size:16px;line-height:1.5;\">\n";
  if (branding != nullptr && branding->logo_url) {
    html += "<img src=\"" + HtmlEscape(*branding->logo_url) + "\" alt=\"" +
            HtmlEscape(branding->sender_name.value_or("")) +
            "\" style=\"display:block;max-height:48px;max-width:200px;margin:0 0 16px;\">\n";
  }
  html += HtmlContent(message);
  if (link) {
    html +=
        "<table role=\"presentation\" cellspacing=\"0\" cellpadding=\"0\" "
        "style=\"margin-top:16px;\"><tr>"
        "<td style=\"border-radius:6px;background:" +
        button_color + ";\"><a href=\"" + HtmlEscape(*link) +
        "\" style=\"display:inline-block;padding:12px 20px;color:#ffffff;text-decoration:none;"
        "font-weight:600;\">" +
        std::string(words.open) + "</a></td></tr></table>\n";
  }
  html += "</td></tr></table>\n";
  if (branding != nullptr && branding->footer) {
    html += "<p style=\"max-width:560px;margin:16px auto 0;" + std::string(kFont) +
            "font-size:12px;line-height:1.5;color:#52525b;\">" +
            HtmlEscapeLines(*branding->footer) + "</p>\n";
  }
  html += "<p style=\"max-width:560px;margin:16px auto 0;" + std::string(kFont) +
          "font-size:12px;line-height:1.5;color:#71717a;\">" + HtmlEscape(words.unsubscribe) +
          " <a href=\"" + HtmlEscape(unsubscribe_url) + "\" style=\"color:#71717a;\">" +
          std::string(words.preferences) + "</a></p>\n</td></tr></table>\n</body></html>\n";
  return html;
}

}  // namespace

std::string CutCodePoints(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  }
  if (chars <= max_chars) return std::string(text);
  if (max_chars == 0) return {};
  // Keep max_chars - 1 code points and end with "…".
  std::size_t kept = 0;
  std::size_t end = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (kept == max_chars - 1) {
      end = i;
      break;
    }
    ++kept;
  }
  return std::string(text.substr(0, end)) + "…";
}

const Words& WordsFor(std::string_view locale) {
  if (locale == "uz" || locale.starts_with("uz-")) return kUzbek;
  return kEnglish;
}

std::optional<std::string> AbsoluteLink(const Message& message, std::string_view public_url) {
  if (!message.link) return std::nullopt;
  return std::string(core::WithoutTrailingSlashes(public_url)) + *message.link;
}

std::string HtmlEscape(std::string_view text) { return core::HtmlEscape(text); }

std::string HtmlEscapeLines(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    out += HtmlEscape(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    out += "<br>\n";
    start = end + 1;
  }
}

std::string RenderTelegramHtml(const Message& message, std::string_view public_url) {
  std::string text;
  if (message.text) {
    text = *message.text;
  } else {
    text = "<b>" + HtmlEscape(message.title) + "</b>";
    if (!message.body.empty()) text += "\n" + HtmlEscape(message.body);
  }
  if (const auto link = AbsoluteLink(message, public_url)) {
    text += "\n<a href=\"" + HtmlEscape(*link) + "\">" +
            std::string(WordsFor(message.locale).open) + "</a>";
  }
  return text;
}

nlohmann::json RenderPushPayload(const Message& message, std::string_view public_url) {
  const auto link = AbsoluteLink(message, public_url);
  return {{"id", message.notification_id},
          {"title", message.title},
          {"body", message.body},
          {"url", link ? nlohmann::json(*link) : nlohmann::json(nullptr)},
          {"type", message.type}};
}

std::string RenderSmsText(const Message& message, std::string_view public_url,
                          std::size_t max_chars) {
  std::string text = message.text.value_or(message.title);
  if (!message.text && !message.body.empty()) text += ": " + message.body;
  const auto link = AbsoluteLink(message, public_url);
  if (!link) return CutCodePoints(text, max_chars);
  // Keep the link whole; shorten the words before it.
  const std::size_t link_chars = link->size() + 1;
  if (link_chars + 10 > max_chars) return CutCodePoints(text, max_chars);
  return CutCodePoints(text, max_chars - link_chars) + " " + *link;
}

EmailContent RenderEmail(const Message& message, std::string_view public_url,
                         std::string unsubscribe_url) {
  const Words& words = WordsFor(message.locale);
  EmailContent content;
  content.subject = message.subject.value_or(message.title);
  content.unsubscribe_url = std::move(unsubscribe_url);
  const auto link = AbsoluteLink(message, public_url);

  if (message.text) {
    content.text = *message.text + "\n\n";
  } else {
    content.text = message.title + "\n\n";
    if (!message.body.empty()) content.text += message.body + "\n\n";
  }
  if (link) content.text += std::string(words.open) + ": " + *link + "\n\n";
  if (message.branding && message.branding->footer) {
    content.text += *message.branding->footer + "\n\n";
  }
  content.text += "-- \n" + std::string(words.unsubscribe) + " " + std::string(words.preferences) +
                  ":\n" + content.unsubscribe_url + "\n";
  content.html = EmailHtml(message, link, words, content.subject, content.unsubscribe_url);
  if (message.layout) {
    // A stored layout that cannot render (over its budget) leaves the
    // built-in one: the email still goes.
    try {
      std::string own_text = message.text.value_or(
          message.body.empty() ? message.title : message.title + "\n\n" + message.body);
      std::string html =
          message.layout->html(LayoutValues(message, content, link, words, HtmlContent(message)));
      std::string text =
          message.layout->text(LayoutValues(message, content, link, words, std::move(own_text)));
      content.html = std::move(html);
      content.text = std::move(text);
    } catch (const std::exception& e) {
      spdlog::warn("email of notification {}: layout {} not used ({}); the built-in one instead",
                   message.notification_id, message.layout_key.value_or(""), e.what());
    }
  }
  return content;
}

}  // namespace chopar::channels
