#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "mustache/partials.hpp"
#include "mustache/text.hpp"

namespace chopar::templates {

// What a template's texts are built with besides their own: email layouts
// (PUT /v1/layouts/{key}) and Mustache partials (PUT /v1/partials/{key});
// docs/api.md "Layouts" and "Partials".
enum class FragmentKind { kLayout, kPartial };
// "layout", "partial".
std::string_view FragmentKindName(FragmentKind kind);

// ^[a-z0-9][a-z0-9_.-]{0,99}$: a layout's or a partial's key.
bool IsValidFragmentKey(std::string_view key);

// The bounds of a document's texts, in bytes (the tables' CHECKs).
inline constexpr std::size_t kMaxLayoutBytes = 100'000;
inline constexpr std::size_t kMaxPartialBytes = 50'000;
// What a layout's html must hold: where the email's content goes.
inline constexpr std::string_view kContentTag = "{{{content}}}";

// A layout or a partial, parsed once. Immutable; shared between threads as
// std::shared_ptr<const Fragment>.
struct Fragment {
  FragmentKind kind = FragmentKind::kPartial;
  std::string key;
  // The document as stored and shown: {"html", "text"} (a layout; "text"
  // null when not given) or {"text"} (a partial).
  nlohmann::json document;
  // A layout's html (HTML-escaped) and text (plain; "{{{content}}}" when
  // not given).
  std::optional<mustache::MustacheText> html;
  std::optional<mustache::MustacheText> text;
  // A partial, for either escaping.
  std::optional<mustache::Partial> partial;
};

// Parses and validates a PUT body of `kind` for `key` (a valid key). The
// members GET adds (key, tenant, created_at, updated_at, version) may be
// sent back and are ignored. Throws core::RequestError kInvalidJson (not an
// object) or kInvalidField naming the field: unknown members; a layout's
// "html" missing, not a string, longer than kMaxLayoutBytes, without
// kContentTag or not parsing (the message gives line and column); its
// "text" likewise but optional and without the tag; a partial's "text"
// missing, not a string, longer than kMaxPartialBytes or not parsing.
Fragment ParseFragment(FragmentKind kind, const std::string& key, const nlohmann::json& body);

}  // namespace chopar::templates
