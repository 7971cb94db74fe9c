#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "mustache/text.hpp"

namespace chopar::mustache {

// A partial's source parsed once for each escaping (a partial is escaped
// as the text that includes it: HTML in an email's html, as it is in its
// text). Immutable; safe to share between threads.
class Partial {
 public:
  // Throws SyntaxError as MustacheText does.
  explicit Partial(std::string_view source)
      : html_(source, Escaping::kHtml), plain_(source, Escaping::kNone) {}
  [[nodiscard]] const MustacheText& For(Escaping escaping) const {
    return escaping == Escaping::kHtml ? html_ : plain_;
  }
  [[nodiscard]] const std::string& source() const { return html_.source(); }

 private:
  MustacheText html_;
  MustacheText plain_;
};

// Partials by name from a fixed map (previews of texts given inline, the
// spec's tests). Immutable once built; thread-safe.
class PartialMap final : public PartialSource {
 public:
  // Parses every source; throws SyntaxError for the first that does not
  // parse.
  explicit PartialMap(const std::map<std::string, std::string>& sources);
  [[nodiscard]] const MustacheText* FindPartial(std::string_view name,
                                                Escaping escaping) const override;

 private:
  std::map<std::string, Partial, std::less<>> partials_;
};

}  // namespace chopar::mustache
