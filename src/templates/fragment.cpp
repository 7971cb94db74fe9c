#include "templates/fragment.hpp"

#include <set>

#include "core/request_error.hpp"

namespace chopar::templates {
namespace {

mustache::MustacheText ParseText(const nlohmann::json& body, const std::string& field,
                                 std::size_t max_bytes, mustache::Escaping escaping) {
  const auto it = body.find(field);
  if (it == body.end() || !it->is_string())
    throw core::InvalidField(field, field + " is required: a string (a Mustache text)");
  const auto& source = it->get_ref<const std::string&>();
  if (source.size() > max_bytes) {
    throw core::InvalidField(field,
                             field + " is longer than " + std::to_string(max_bytes) + " bytes");
  }
  try {
    return mustache::MustacheText(source, escaping);
  } catch (const mustache::SyntaxError& e) {
    throw core::InvalidField(field, field + ": " + e.what());
  }
}

}  // namespace

std::string_view FragmentKindName(FragmentKind kind) {
  return kind == FragmentKind::kLayout ? "layout" : "partial";
}

bool IsValidFragmentKey(std::string_view key) {
  if (key.empty() || key.size() > 100) return false;
  const auto lower_or_digit = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (!lower_or_digit(key.front())) return false;
  for (char c : key) {
    if (!lower_or_digit(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

Fragment ParseFragment(FragmentKind kind, const std::string& key, const nlohmann::json& body) {
  if (!body.is_object()) throw core::InvalidJson("the body must be a JSON object");
  const bool layout = kind == FragmentKind::kLayout;
  std::set<std::string> known = {"key", "tenant", "version", "created_at", "updated_at", "text"};
  if (layout) known.insert("html");
  for (const auto& [name, value] : body.items()) {
    if (!known.contains(name)) throw core::InvalidField(name, "unknown field " + name);
  }
  Fragment fragment;
  fragment.kind = kind;
  fragment.key = key;
  if (!layout) {
    fragment.partial.emplace(
        ParseText(body, "text", kMaxPartialBytes, mustache::Escaping::kNone).source());
    fragment.document = {{"text", fragment.partial->source()}};
    return fragment;
  }
  fragment.html = ParseText(body, "html", kMaxLayoutBytes, mustache::Escaping::kHtml);
  if (fragment.html->source().find(kContentTag) == std::string::npos) {
    throw core::InvalidField("html",
                             "html must hold {{{content}}}, where the email's content goes");
  }
  fragment.document = {{"html", fragment.html->source()}, {"text", nullptr}};
  if (const auto text = body.find("text"); text != body.end() && !text->is_null()) {
    fragment.text = ParseText(body, "text", kMaxLayoutBytes, mustache::Escaping::kNone);
    fragment.document["text"] = fragment.text->source();
  } else {
    fragment.text = mustache::MustacheText(kContentTag, mustache::Escaping::kNone);
  }
  return fragment;
}

}  // namespace chopar::templates
