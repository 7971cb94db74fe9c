#include "channels/sms/eskiz_channel.hpp"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "channels/outcome_unknown.hpp"
#include "channels/render.hpp"
#include "channels/sms/eskiz_callback.hpp"
#include "channels/sms/eskiz_form.hpp"
#include "channels/sms/queries.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "db/params.hpp"

namespace chopar::channels::sms {
namespace {

enum class Plan { kSend, kReconcile, kDone };

struct Item {
  std::size_t index = 0;  // into the batch
  Plan plan = Plan::kDone;
  bool marked = false;      // this call set outcome_unknown
  std::string provider_id;  // kReconcile: Eskiz's id from an earlier attempt
  // What to write back (only for marked or reconciled deliveries).
  bool still_unknown = false;
  std::optional<std::string> new_provider_id;
  std::optional<std::string> final_status;
  bool forget_provider_id = false;
};

std::string PhoneDigits(const std::optional<std::string>& phone) {
  if (!phone) return "";
  std::string digits;
  for (char c : *phone) {
    if (c >= '0' && c <= '9') digits += c;
  }
  return digits;
}

// Eskiz's own explanation ("message" of its JSON), or the start of the body.
std::string Reason(const net::HttpResponse& r) {
  std::string text = "eskiz HTTP " + std::to_string(r.status);
  const auto body = core::ParseJsonOrDiscarded(r.body);
  if (!body.is_discarded() && body.is_object() && body.contains("message")) {
    const auto& message = body["message"];
    text += ": " + (message.is_string() ? message.get<std::string>() : message.dump());
  } else if (!r.body.empty()) {
    text += ": " + r.body.substr(0, 200);
  }
  return text;
}

std::optional<std::string> IdOf(const nlohmann::json& value) {
  if (value.is_string() && !value.get<std::string>().empty()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  return std::nullopt;
}

}  // namespace

EskizChannel::EskizChannel(EskizSettings settings, net::HttpClient& http, db::Pool& pool,
                           const core::Clock& clock)
    : settings_(std::move(settings)),
      http_(http),
      pool_(pool),
      clock_(clock),
      tokens_(settings_, http_, pool_, clock_) {}

std::vector<Outcome> EskizChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<Item> items;
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (PhoneDigits(messages[i].phone).empty()) {
      outcomes[i] = Outcome::Permanent("eskiz: no phone number");
      continue;
    }
    Item item;
    item.index = i;
    item.plan = Plan::kSend;
    items.push_back(std::move(item));
    ids.push_back(messages[i].delivery_id);
  }
  if (items.empty()) return outcomes;

  // Decide per delivery, marking the ones about to be sent.
  {
    auto conn = pool_.Acquire();
    const auto rows = conn->Exec(queries::kEskizBeginSends, db::ArrayLiteral(ids));
    std::map<std::int64_t, int> row_of;
    for (int r = 0; r < rows.Rows(); ++r) row_of[rows.Int(r, "id")] = r;
    for (Item& item : items) {
      const auto found = row_of.find(messages[item.index].delivery_id);
      if (found == row_of.end()) continue;  // no such row: nothing to mark, send
      const int r = found->second;
      if (rows.Bool(r, "may_send")) {
        item.marked = true;
      } else if (const auto id = rows.OptString(r, "provider_message_id")) {
        item.plan = Plan::kReconcile;
        item.provider_id = *id;
      } else if (rows.Bool(r, "outcome_unknown")) {
        item.plan = Plan::kDone;
        outcomes[item.index] =
            OutcomeUnknown("eskiz", "an earlier attempt got no answer");
      } else {
        item.plan = Plan::kDone;
        outcomes[item.index] = Outcome::Retry("eskiz: another sender is sending this delivery right now",
                                              std::chrono::duration_cast<std::chrono::seconds>(settings_.timeout) +
                                                  std::chrono::seconds(5));
        outcomes[item.index].provider_may_hold = true;
      }
    }
  }

  const auto build = [&](const Item& item, const std::string& token) {
    net::HttpRequest request;
    request.timeout = settings_.timeout;
    request.headers = {"Authorization: Bearer " + token, "Accept: application/json", "Expect:"};
    if (item.plan == Plan::kReconcile) {
      request.method = "GET";
      request.url = settings_.base_url + "/api/message/sms/status_by_id/" +
                    core::PercentEncode(item.provider_id);
      return request;
    }
    const Message& m = messages[item.index];
    std::vector<FormField> fields = {{"mobile_phone", PhoneDigits(m.phone)},
                                     {"message", RenderSmsText(m, settings_.public_url, settings_.max_chars)},
                                     {"from", settings_.from}};
    if (!settings_.callback_url.empty()) fields.push_back({"callback_url", settings_.callback_url});
    const MultipartForm form = BuildMultipartForm(fields);
    request.method = "POST";
    request.url = settings_.base_url + "/api/message/sms/send";
    request.headers.push_back("Content-Type: " + form.content_type);
    AddDeliveryHeaders(request.headers, m.delivery_id);
    request.body = form.body;
    return request;
  };

  std::vector<Item*> active;
  for (Item& item : items) {
    if (item.plan != Plan::kDone) active.push_back(&item);
  }
  std::vector<net::HttpResponse> responses(active.size());
  std::vector<std::optional<std::string>> failures(active.size());  // no token: why
  if (!active.empty()) {
    const auto token = tokens_.Current();
    if (!token.token) {
      for (auto& f : failures) f = token.error;
    } else {
      std::vector<net::HttpRequest> requests;
      for (const Item* item : active) requests.push_back(build(*item, *token.token));
      responses = http_.PerformAll(requests);
      std::vector<std::size_t> rejected;
      for (std::size_t k = 0; k < responses.size(); ++k) {
        if (responses[k].status == 401) rejected.push_back(k);
      }
      if (!rejected.empty()) {
        const auto fresh = tokens_.Refresh(*token.token);
        if (!fresh.token) {
          for (std::size_t k : rejected) failures[k] = fresh.error;
        } else {
          std::vector<net::HttpRequest> again;
          for (std::size_t k : rejected) again.push_back(build(*active[k], *fresh.token));
          auto second = http_.PerformAll(again);
          for (std::size_t j = 0; j < rejected.size(); ++j) responses[rejected[j]] = std::move(second[j]);
        }
      }
    }
  }

  const core::TimePoint answered_at = clock_.Now();  // what an HTTP-date Retry-After counts from
  for (std::size_t k = 0; k < active.size(); ++k) {
    Item& item = *active[k];
    Outcome& outcome = outcomes[item.index];
    const net::HttpResponse& r = responses[k];
    if (failures[k]) {
      outcome = Outcome::Retry(*failures[k]);
      continue;
    }
    const auto body = core::ParseJsonOrDiscarded(r.body);
    if (item.plan == Plan::kReconcile) {
      if (r.status == 200 && r.error == CURLE_OK && body.is_object() && body.contains("data") && body["data"].is_object()) {
        outcome = Outcome::Sent(item.provider_id);
        const auto& status = body["data"].value("status", nlohmann::json());
        if (status.is_string() && IsFinalEskizStatus(status.get<std::string>())) item.final_status = status.get<std::string>();
      } else if (r.status == 404) {
        item.forget_provider_id = true;
        outcome = Outcome::Retry("eskiz has no message " + item.provider_id +
                                 ": it will be sent at the next attempt");
      } else {
        outcome = r.status == 0
                      ? Outcome::Retry("eskiz status_by_id: " + r.error_message)
                      : Outcome::Retry("status_by_id: " + Reason(r),
                                       r.status == 429
                                           ? net::ParseRetryAfter(
                                                 r.Header("retry-after").value_or(""), answered_at)
                                           : std::nullopt);
        // Eskiz has the message and did not say what became of it.
        outcome.provider_may_hold = true;
      }
      continue;
    }
    // A send.
    if (auto unanswered = UnansweredHttpOutcome(r, "eskiz")) {
      item.still_unknown = unanswered->kind == OutcomeKind::kUnknown;
      outcome = std::move(*unanswered);
    } else if (r.status >= 200 && r.status < 300) {
      item.new_provider_id = body.is_object() && body.contains("id") ? IdOf(body["id"]) : std::nullopt;
      outcome = Outcome::Sent(item.new_provider_id);
    } else if (r.status == 401) {
      outcome = Outcome::Retry(Reason(r) + " (token rejected right after a fresh login)");
    } else if (r.status == 429) {
      outcome = Outcome::Retry(
          Reason(r), net::ParseRetryAfter(r.Header("retry-after").value_or(""), answered_at));
    } else if (r.status >= 500) {
      outcome = Outcome::Retry(Reason(r));
    } else {
      outcome = Outcome::Permanent(Reason(r));
    }
  }

  nlohmann::json answers = nlohmann::json::array();
  for (const Item& item : items) {
    if (!item.marked && item.plan != Plan::kReconcile) continue;
    answers.push_back({{"id", messages[item.index].delivery_id},
                       {"outcome_unknown", item.still_unknown},
                       {"provider_message_id", item.new_provider_id ? nlohmann::json(*item.new_provider_id) : nlohmann::json()},
                       {"provider_status", item.final_status ? nlohmann::json(*item.final_status) : nlohmann::json()},
                       {"forget_provider_id", item.forget_provider_id}});
  }
  if (!answers.empty()) {
    auto conn = pool_.Acquire();
    conn->Exec(queries::kEskizRecordAnswers, answers.dump());
  }
  return outcomes;
}

}  // namespace chopar::channels::sms
