#include "outbox/notify_target.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <variant>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "templates/target.hpp"

namespace chopar::outbox {
namespace {

using mustache::MustacheText;
using mustache::RenderBudget;

mustache::MustacheText Parse(const std::string& source, const char* key,
                             const std::string& target) {
  try {
    // Plain text: titles and bodies are text, and each channel escapes for itself.
    return mustache::MustacheText(source, mustache::Escaping::kNone);
  } catch (const mustache::SyntaxError& e) {
    throw std::invalid_argument("notify target " + target + ": " + key +
                                " is not a valid template: " + e.what());
  }
}

// `text` rendered within the budget of an in-app `target`; a render over
// it fails the event (core::RequestError).
std::string Render(const mustache::MustacheText& text, const char* key, templates::Target target,
                   const mustache::RenderContext& context) {
  try {
    return text.Render(context, mustache::RenderBudget{templates::InfoOf(target).max_output});
  } catch (const mustache::RenderLimitError& e) {
    throw core::InvalidField(key, std::string("notify target ") + key + " " + e.what());
  }
}

}  // namespace

NotifyTarget::NotifyTarget(const TargetSettings& settings, db::Pool& pool, const core::Clock& clock,
                           core::MetricsRegistry& metrics)
    : settings_(settings),
      title_(Parse(settings.title, "title", settings.name)),
      body_(Parse(settings.body, "body", settings.name)),
      link_(Parse(settings.link, "link", settings.name)),
      pool_(pool),
      clock_(clock),
      metrics_(metrics) {}

hub::NotificationRequest NotifyTarget::RequestFor(const Event& event) const {
  const nlohmann::json payload = nlohmann::json::parse(event.payload);
  std::optional<std::int64_t> user_id = event.user_id;
  if (const auto it = payload.find("user_id");
      payload.is_object() && it != payload.end() && it->is_number_integer()) {
    user_id = it->get<std::int64_t>();
  }
  if (!user_id)
    throw core::InvalidField("user_id", "the event has no user_id (nor payload.user_id)");

  nlohmann::json context = {{"id", event.event_id},
                            {"type", event.type},
                            {"user_id", *user_id},
                            {"created_at", core::FormatRfc3339(event.created_at)},
                            {"payload", payload}};
  const mustache::RenderContext view(context);
  nlohmann::json request = {{"user_id", *user_id},
                            {"type", event.type},
                            {"title", Render(title_, "title", templates::Target::kTitle, view)},
                            {"body", Render(body_, "body", templates::Target::kBody, view)},
                            {"dedup_key", "event:" + event.event_id},
                            {"critical", settings_.critical},
                            {"data", {{"event_id", event.event_id}, {"payload", payload}}}};
  if (std::string link = Render(link_, "link", templates::Target::kTitle, view); !link.empty())
    request["link"] = std::move(link);
  if (!settings_.channels.empty()) request["channels"] = settings_.channels;
  // The same validation as POST /v1/notifications: one definition of a valid notification.
  return hub::ParseNotificationRequest(request);
}

std::vector<PublishOutcome> NotifyTarget::Publish(std::span<const Event* const> events) {
  std::vector<PublishOutcome> outcomes(events.size(), PublishOutcome::Ok());
  std::vector<hub::NotificationRequest> requests;
  std::vector<std::size_t> positions;  // requests[k] is for events[positions[k]]
  for (std::size_t i = 0; i < events.size(); ++i) {
    try {
      requests.push_back(RequestFor(*events[i]));
      positions.push_back(i);
    } catch (const core::RequestError& e) {
      outcomes[i] = PublishOutcome::Failed(std::string(e.what()));
    } catch (const nlohmann::json::exception& e) {
      outcomes[i] = PublishOutcome::Failed(std::string("payload: ") + e.what());
    }
  }
  if (requests.empty()) return outcomes;
  auto tx = pool_.Begin("notify_events");
  const auto results = hub::NotifyService::NotifyIn(tx, requests, clock_.Now());
  tx.Commit();
  metrics_.CountCommitted(results);
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (const auto* error = std::get_if<core::RequestError>(&results[k])) {
      outcomes[positions[k]] = PublishOutcome::Failed(error->what());
    }
  }
  return outcomes;
}

}  // namespace chopar::outbox
