#include "channels/chat/whatsapp_channel.hpp"

#include <nlohmann/json.hpp>

#include "channels/outcome_unknown.hpp"

namespace chopar::channels::chat {
namespace {

using std::chrono::steady_clock;

constexpr std::chrono::milliseconds kMaxWait{2000};

// Whether an answer says the business number sends too fast (not one
// recipient: 131056 is a pair's limit and rests nothing else).
bool NumberThrottled(const net::HttpResponse& response) {
  if (response.status == 429) return true;
  const auto answer = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  return answer.is_object() && answer.contains("error") && answer["error"].is_object() &&
         answer["error"].value("code", 0LL) == 130429;
}

}  // namespace

WhatsAppChannel::WhatsAppChannel(WhatsAppSettings settings, net::HttpClient& http)
    : settings_(std::move(settings)),
      messages_url_(settings_.api_url + "/" + settings_.phone_number_id + "/messages"),
      http_(http) {}

std::vector<Outcome> WhatsAppChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> message_of;  // index into `messages` of each request
  const auto now = steady_clock::now();
  const auto rest_until = rests_.Until(settings_.phone_number_id);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (!m.address) {
      outcomes[i] = Outcome::Permanent("whatsapp: the user has no WhatsApp number");
      continue;
    }
    if (auto problem = WhatsAppNumberProblem(*m.address)) {
      outcomes[i] = Outcome::Permanent("whatsapp: the number " + *problem);
      continue;
    }
    TemplateChoice choice = ChooseTemplate(m, settings_);
    if (!choice.chosen) {
      outcomes[i] = Outcome::Permanent("whatsapp: " + choice.problem);
      continue;
    }
    if (rest_until > now + kMaxWait) {
      outcomes[i] = Outcome::Retry("whatsapp: the business number's rate limit asks to wait",
                                   RestLeft(rest_until, now));
      continue;
    }
    net::HttpRequest request;
    request.url = messages_url_;
    request.headers = {"Content-Type: application/json",
                       "Authorization: Bearer " + settings_.access_token};
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.body = WhatsAppTemplateBody(*m.address, *choice.chosen);
    request.timeout = settings_.timeout;
    request.not_before = rest_until;
    requests.push_back(std::move(request));
    message_of.push_back(i);
  }

  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  const auto answered_at = std::chrono::system_clock::now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = message_of[j];
    const net::HttpResponse& response = responses[j];
    if (auto unanswered = UnansweredHttpOutcome(response, "whatsapp")) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    outcomes[i] = WhatsAppOutcome(response, answered_at);
    if (NumberThrottled(response)) {
      const auto wait = outcomes[i].retry_after.value_or(std::chrono::seconds(1));
      rests_.Rest(settings_.phone_number_id, steady_clock::now() + wait);
    }
  }
  return outcomes;
}

}  // namespace chopar::channels::chat
