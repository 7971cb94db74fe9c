#include "templates/library.hpp"

#include "templates/template.hpp"

namespace chopar::templates {
namespace {

std::string RenderPart(const mustache::MustacheText& text, Target target,
                       const nlohmann::json& values, const mustache::PartialSource& partials) {
  try {
    return text.Render(mustache::RenderContext(values),
                       mustache::RenderBudget{2 * InfoOf(target).max_output}, &partials);
  } catch (const mustache::RenderLimitError& e) {
    throw RenderError(target, "layout " + TargetPath(target) + " " + e.what());
  }
}

}  // namespace

const mustache::MustacheText* RenderLibrary::FindPartial(std::string_view name,
                                                         mustache::Escaping escaping) const {
  if (!partials_) return nullptr;
  const auto* found = FragmentStore::FindIn(*partials_, name, tenant_);
  return found == nullptr ? nullptr : &(*found)->partial->For(escaping);
}

std::shared_ptr<const Fragment> RenderLibrary::FindLayout(std::string_view key) const {
  if (!layouts_) return nullptr;
  const auto* found = FragmentStore::FindIn(*layouts_, key, tenant_);
  return found == nullptr ? nullptr : *found;
}

std::string BoundLayout::Html(const nlohmann::json& values) const {
  return RenderPart(*layout->html, Target::kEmailHtml, values, library);
}

std::string BoundLayout::Text(const nlohmann::json& values) const {
  return RenderPart(*layout->text, Target::kEmailText, values, library);
}

std::string BoundLayout::Html(const nlohmann::json& values,
                              const mustache::PartialSource& partials) const {
  return RenderPart(*layout->html, Target::kEmailHtml, values, partials);
}

std::string BoundLayout::Text(const nlohmann::json& values,
                              const mustache::PartialSource& partials) const {
  return RenderPart(*layout->text, Target::kEmailText, values, partials);
}

}  // namespace chopar::templates
