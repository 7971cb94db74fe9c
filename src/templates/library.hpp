#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "mustache/text.hpp"
#include "templates/fragment_store.hpp"
#include "templates/target.hpp"

namespace chopar::templates {

// The partials and layouts the texts of one notification render with:
// snapshots of the process's caches, seen from one tenant (its own first,
// then the global ones; without a tenant, the global ones). Cheap to make
// and copy (two shared pointers and the tenant), immutable; a
// mustache::PartialSource any number of threads may use. What it found
// stays alive as long as it does.
class RenderLibrary final : public mustache::PartialSource {
 public:
  // Nothing: partials render as nothing, no layout is found.
  RenderLibrary() = default;
  RenderLibrary(std::shared_ptr<const FragmentStore::Map> layouts,
                std::shared_ptr<const FragmentStore::Map> partials,
                std::optional<std::string> tenant)
      : layouts_(std::move(layouts)), partials_(std::move(partials)), tenant_(std::move(tenant)) {}

  [[nodiscard]] const mustache::MustacheText* FindPartial(
      std::string_view name, mustache::Escaping escaping) const override;
  // The layout `key`, or null when there is none.
  [[nodiscard]] std::shared_ptr<const Fragment> FindLayout(std::string_view key) const;

 private:
  std::shared_ptr<const FragmentStore::Map> layouts_;
  std::shared_ptr<const FragmentStore::Map> partials_;
  std::optional<std::string> tenant_;
};

// A RenderLibrary fetched when a render first asks for a partial, so that
// texts without partials (most) cost nothing more: what notify renders a
// notification's texts with. One render's, on one thread: not thread-safe.
class LazyPartials final : public mustache::PartialSource {
 public:
  explicit LazyPartials(std::function<RenderLibrary()> fetch) : fetch_(std::move(fetch)) {}
  [[nodiscard]] const mustache::MustacheText* FindPartial(
      std::string_view name, mustache::Escaping escaping) const override {
    if (!library_) library_ = fetch_();
    return library_->FindPartial(name, escaping);
  }

 private:
  std::function<RenderLibrary()> fetch_;
  mutable std::optional<RenderLibrary> library_;
};

// A layout with the partials it includes: what an email is wrapped in when
// it is sent (channels::EmailLayout) or previewed. Copyable; thread-safe.
struct BoundLayout {
  std::shared_ptr<const Fragment> layout;
  RenderLibrary library;

  // The layout's html or text rendered with `values` (the layout's context:
  // "content" and the rest, docs/api.md "Layouts"), within twice the
  // target's max_output. Throws RenderError (kEmailHtml, kEmailText).
  [[nodiscard]] std::string Html(const nlohmann::json& values) const;
  [[nodiscard]] std::string Text(const nlohmann::json& values) const;
  // The same with the layout's partials looked up in `partials` instead
  // (a preview's: the partials it gives inline, then the library's).
  [[nodiscard]] std::string Html(const nlohmann::json& values,
                                 const mustache::PartialSource& partials) const;
  [[nodiscard]] std::string Text(const nlohmann::json& values,
                                 const mustache::PartialSource& partials) const;
};

}  // namespace chopar::templates
