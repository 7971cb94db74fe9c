#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mustache/partials.hpp"
#include "templates/library.hpp"

namespace chopar::http {

// What POST /v1/templates/preview adds for layouts and partials
// (docs/api.md "Previewing a template"): the partials a request gives
// inline, which stand before the stored ones of its ?tenant= (a change
// tried before it is stored; the spec's partials cases), and the email
// shown inside its layout.
class PreviewPartials final : public mustache::PartialSource {
 public:
  // `body`'s "partials": absent or null, or an object of at most 50 names
  // (1–100 bytes) → Mustache text (at most templates::kMaxPartialBytes).
  // Throws core::RequestError kInvalidField "partials" or
  // "partials.<name>" (the text's line and column when it does not parse).
  PreviewPartials(const nlohmann::json& body, templates::RenderLibrary library);
  [[nodiscard]] const mustache::MustacheText* FindPartial(
      std::string_view name, mustache::Escaping escaping) const override;
  [[nodiscard]] const templates::RenderLibrary& library() const { return library_; }

 private:
  std::unique_ptr<mustache::PartialMap> given_;
  templates::RenderLibrary library_;
};

// The email of `rendered` (a preview's texts: {"title", "body", "email":
// {…}}) inside layout `key` as the worker would send it (its
// unsubscribe_url "#unsubscribe", no link): {"key", "html", "text"}.
// `values` is the preview's context, the layout's data. Throws
// core::RequestError kInvalidField "layout" when there is no such layout,
// "data" when it cannot be rendered.
nlohmann::json EmailInLayout(const nlohmann::json& rendered, const std::string& key,
                             const PreviewPartials& partials, const nlohmann::json& values,
                             const std::string& locale);

}  // namespace chopar::http
