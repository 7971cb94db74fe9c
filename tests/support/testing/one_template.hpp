#pragma once

#include <memory>
#include <string_view>

#include "templates/template.hpp"
#include "templates/template_store.hpp"

namespace chopar::testing {

// One template for one type: what a service renders with when the type has
// one, without a template store. Thread-safe.
class OneTemplate : public templates::TemplateLookup {
 public:
  explicit OneTemplate(templates::Template tmpl)
      : tmpl_(std::make_shared<const templates::Template>(std::move(tmpl))) {}
  [[nodiscard]] std::shared_ptr<const templates::Template> Find(
      std::string_view type) const override {
    return type == tmpl_->type ? tmpl_ : nullptr;
  }

 private:
  std::shared_ptr<const templates::Template> tmpl_;
};

}  // namespace chopar::testing
