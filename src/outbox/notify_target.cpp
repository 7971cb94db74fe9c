#include "outbox/notify_target.hpp"

#include <kainjow/mustache.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <variant>

#include "core/time_format.hpp"

namespace chopar::outbox {
namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

data ToMustache(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      data object{data::type::object};
      for (const auto& [key, member] : value.items()) object.set(key, ToMustache(member));
      return object;
    }
    case nlohmann::json::value_t::array: {
      data list{data::type::list};
      for (const auto& item : value) list.push_back(ToMustache(item));
      return list;
    }
    case nlohmann::json::value_t::string:
      return data(value.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return data(value.get<bool>());
    case nlohmann::json::value_t::null:
      // Renders as nothing and is false in a section.
      return data(false);
    default:
      return data(value.dump());
  }
}

// Renders a template as plain text (no HTML escaping: titles and bodies are
// text, and each channel escapes for itself).
std::string Render(const std::string& source, const data& context) {
  mustache view(source);
  view.set_custom_escape([](const std::string& text) { return text; });
  return view.render(context);
}

void RequireParses(const std::string& source, const char* key, const std::string& target) {
  mustache view(source);
  if (!view.is_valid()) {
    throw std::invalid_argument("notify target " + target + ": " + key +
                                " is not a valid template: " + view.error_message());
  }
}

}  // namespace

NotifyTarget::NotifyTarget(const TargetSettings& settings, db::Pool& pool, const core::Clock& clock,
                           core::MetricsRegistry& metrics)
    : settings_(settings), pool_(pool), clock_(clock), metrics_(metrics) {
  RequireParses(settings.title, "title", settings.name);
  RequireParses(settings.body, "body", settings.name);
  RequireParses(settings.link, "link", settings.name);
}

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
  const data view = ToMustache(context);
  nlohmann::json request = {{"user_id", *user_id},
                            {"type", event.type},
                            {"title", Render(settings_.title, view)},
                            {"body", Render(settings_.body, view)},
                            {"dedup_key", "event:" + event.event_id},
                            {"critical", settings_.critical},
                            {"data", {{"event_id", event.event_id}, {"payload", payload}}}};
  if (std::string link = Render(settings_.link, view); !link.empty())
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
