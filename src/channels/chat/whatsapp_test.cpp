// WhatsApp's Cloud API against a fake Graph API on 127.0.0.1 that answers as
// Meta does: the template message sent, what each Graph error means, the
// business number's rest after a throughput limit, and the signed status
// webhooks read.
#include "channels/chat/whatsapp.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "channels/chat/whatsapp_channel.hpp"
#include "channels/chat/whatsapp_provider.hpp"
#include "channels/chat/whatsapp_status.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::chat {
namespace {

using nlohmann::json;
using testing::FakeHttpServer;
using namespace std::chrono_literals;

Message ToNumber(std::string number, std::int64_t delivery_id = 7) {
  Message m;
  m.delivery_id = delivery_id;
  m.title = "Muddat yaqin";
  m.body = "Hisobot\nertaga   soat 09:00\tgacha";
  m.locale = "uz";
  m.address = std::move(number);
  return m;
}

FakeHttpServer::Response GraphError(int status, int code, std::string message,
                                    std::map<std::string, std::string> headers = {}) {
  FakeHttpServer::Response r;
  r.status = status;
  r.body = json({{"error",
                  {{"message", message},
                   {"type", "OAuthException"},
                   {"code", code},
                   {"fbtrace_id", "AbC"}}}})
               .dump();
  r.headers = std::move(headers);
  return r;
}

TEST(WhatsAppTest, NumbersAreE164) {
  EXPECT_EQ(WhatsAppNumberProblem("+998901234567"), std::nullopt);
  for (const char* refused : {"998901234567", "+0998901234", "+99890", "+99890123456789012",
                              "+998 90 123 45 67", "", "+"}) {
    EXPECT_NE(WhatsAppNumberProblem(refused), std::nullopt) << refused;
  }
}

TEST(WhatsAppTest, SendsTheConfiguredTemplateWithTitleAndBodyOnOneLineEach) {
  WhatsAppSettings settings;
  const TemplateChoice choice = ChooseTemplate(ToNumber("+998901234567"), settings);
  ASSERT_TRUE(choice.chosen) << choice.problem;
  EXPECT_EQ(choice.chosen->name, "chopar_notification");
  EXPECT_EQ(choice.chosen->language, "uz");
  EXPECT_EQ(choice.chosen->parameters,
            (std::vector<std::string>{"Muddat yaqin", "Hisobot ertaga soat 09:00 gacha"}))
      << "Meta refuses line breaks, tabs and runs of spaces in a parameter (132018)";

  const json body = json::parse(WhatsAppTemplateBody("+998901234567", *choice.chosen));
  EXPECT_EQ(body["messaging_product"], "whatsapp");
  EXPECT_EQ(body["to"], "998901234567");
  EXPECT_EQ(body["type"], "template");
  EXPECT_EQ(body["template"]["name"], "chopar_notification");
  EXPECT_EQ(body["template"]["language"]["code"], "uz");
  EXPECT_EQ(body["template"]["components"][0]["type"], "body");
  EXPECT_EQ(body["template"]["components"][0]["parameters"][1]["text"],
            "Hisobot ertaga soat 09:00 gacha");

  Message russian = ToNumber("+998901234567");
  russian.locale = "ru";
  EXPECT_EQ(ChooseTemplate(russian, settings).chosen->language, "en")
      << "a locale the templates are not approved in gets the default language";
  Message empty = ToNumber("+998901234567");
  empty.body.clear();
  EXPECT_EQ(ChooseTemplate(empty, settings).chosen->parameters[1], "-")
      << "an empty parameter is refused by Meta";
}

TEST(WhatsAppTest, TheNotificationsDataMayChooseTheTemplateAndItsParameters) {
  WhatsAppSettings settings;
  Message m = ToNumber("+998901234567");
  m.data = {{"whatsapp_template", "order_shipped"}, {"whatsapp_parameters", {"A-17", "ertaga"}}};
  const TemplateChoice choice = ChooseTemplate(m, settings);
  ASSERT_TRUE(choice.chosen);
  EXPECT_EQ(choice.chosen->name, "order_shipped");
  EXPECT_EQ(choice.chosen->parameters, (std::vector<std::string>{"A-17", "ertaga"}));

  for (const json& bad :
       {json{{"whatsapp_template", "Order Shipped"}}, json{{"whatsapp_template", 5}},
        json{{"whatsapp_parameters", "A-17"}}, json{{"whatsapp_parameters", {1, 2}}},
        json{{"whatsapp_parameters", json(std::vector<std::string>(11, "x"))}}}) {
    m.data = bad;
    const TemplateChoice refused = ChooseTemplate(m, settings);
    EXPECT_FALSE(refused.chosen) << bad.dump();
    EXPECT_NE(refused.problem.find("data.whatsapp_"), std::string::npos) << refused.problem;
  }
}

TEST(WhatsAppTest, GraphErrorsMapToOutcomes) {
  const auto now = std::chrono::system_clock::now();
  const auto outcome = [&](int status, int code, std::map<std::string, std::string> headers = {}) {
    net::HttpResponse response;
    response.status = status;
    response.body = GraphError(status, code, "x").body;
    response.headers = std::move(headers);
    return WhatsAppOutcome(response, now);
  };
  EXPECT_EQ(outcome(400, 131026).kind, OutcomeKind::kAddressGone);
  const Outcome throttled = outcome(400, 130429, {{"retry-after", "7"}});
  EXPECT_EQ(throttled.kind, OutcomeKind::kRetry);
  EXPECT_EQ(throttled.retry_after, 7s);
  for (int code : {131056, 131048, 80007, 4, 131000, 133004, 190}) {
    EXPECT_EQ(outcome(400, code).kind, OutcomeKind::kRetry) << code;
  }
  for (int code : {132000, 132001, 100, 131047, 131030}) {
    EXPECT_EQ(outcome(400, code).kind, OutcomeKind::kPermanent) << code;
  }
  EXPECT_EQ(outcome(503, 0).kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcome(429, 0).kind, OutcomeKind::kRetry);
  const Outcome detail = outcome(400, 132001);
  EXPECT_EQ(detail.detail, "whatsapp 400: x (code 132001)");

  net::HttpResponse sent;
  sent.status = 200;
  sent.body = R"({"messaging_product":"whatsapp","contacts":[{"input":"998901234567",)"
              R"("wa_id":"998901234567"}],"messages":[{"id":"wamid.HBgM"}]})";
  const Outcome accepted = WhatsAppOutcome(sent, now);
  EXPECT_EQ(accepted.kind, OutcomeKind::kSent);
  EXPECT_EQ(accepted.provider_message_id, "wamid.HBgM");
}

class WhatsAppChannelTest : public ::testing::Test {
 protected:
  WhatsAppChannel Channel() {
    WhatsAppSettings settings;
    settings.api_url = server_.url() + "/v21.0";
    settings.phone_number_id = "106540352242922";
    settings.access_token = "EAAG-token";
    settings.timeout = 5000ms;
    return WhatsAppChannel(settings, http_);
  }
  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    const json body = json::parse(request.body, nullptr, false);
    if (request.target != "/v21.0/106540352242922/messages" ||
        request.headers.count("authorization") == 0 ||
        request.headers.at("authorization") != "Bearer EAAG-token" || !body.is_object()) {
      return GraphError(401, 190, "Invalid OAuth access token");
    }
    const std::string to = body["to"];
    if (const auto it = answers_.find(to); it != answers_.end()) return it->second;
    FakeHttpServer::Response ok;
    ok.body = json({{"messages", {{{"id", "wamid." + to}}}}}).dump();
    return ok;
  }

  std::mutex mutex_;
  std::map<std::string, FakeHttpServer::Response> answers_;
  FakeHttpServer server_{[this](const FakeHttpServer::Request& r) { return Handle(r); }};
  net::HttpClient http_;
};

TEST_F(WhatsAppChannelTest, SendsEachMessageAndTheNumberRestsAfterAThroughputLimit) {
  answers_["998900000002"] = GraphError(400, 131026, "Message undeliverable");
  answers_["998900000003"] = GraphError(400, 130429, "Rate limit hit", {{"Retry-After", "30"}});
  WhatsAppChannel channel = Channel();
  const std::vector<Message> batch = {ToNumber("+998900000001", 1), ToNumber("+998900000002", 2),
                                      ToNumber("+998900000003", 3), ToNumber("998900000004", 4)};
  const auto outcomes = channel.Send(batch);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[0].provider_message_id, "wamid.998900000001");
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[2].retry_after, 30s);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kPermanent) << "not E.164: never sent";
  EXPECT_EQ(server_.request_count(), 3u);

  // The business number rests for the 30 s it was asked: the next message
  // is given back unsent, with the wait left.
  const auto later = channel.Send(std::vector<Message>{ToNumber("+998900000005", 5)});
  EXPECT_EQ(later[0].kind, OutcomeKind::kRetry);
  ASSERT_TRUE(later[0].retry_after);
  EXPECT_GT(*later[0].retry_after, 25s);
  EXPECT_EQ(server_.request_count(), 3u);
}

TEST(WhatsAppProviderTest, ReadsSecretsFromTheEnvironmentValueOrAFile) {
  ProviderValues values;
  for (const auto& key : WhatsAppKeys()) values[key.name] = key.default_value;
  values["phone_number_id"] = "106540352242922";
  EXPECT_THROW(WhatsAppSettingsFrom(values), std::invalid_argument) << "no access token";
  values["access_token"] = "EAAG-token";
  EXPECT_EQ(WhatsAppSettingsFrom(values).access_token, "EAAG-token");

  const std::string path = ::testing::TempDir() + "/whatsapp-token";
  std::ofstream(path) << "EAAG-from-file\n";
  values["access_token_file"] = path;
  EXPECT_THROW(WhatsAppSettingsFrom(values), std::invalid_argument) << "both set";
  values["access_token"] = "";
  EXPECT_EQ(WhatsAppSettingsFrom(values).access_token, "EAAG-from-file");
  values["access_token_file"] = path + ".missing";
  try {
    (void)WhatsAppSettingsFrom(values);
    ADD_FAILURE() << "an unreadable file";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("access_token_file"), std::string::npos) << e.what();
  }
  values["access_token_file"] = path;
  for (const auto& [key, bad] :
       std::vector<std::pair<std::string, std::string>>{{"phone_number_id", "+998"},
                                                        {"template", "Bad Name"},
                                                        {"languages", "en,,uz"},
                                                        {"default_language", "e"},
                                                        {"timeout_seconds", "0"},
                                                        {"api_url", "graph.facebook.com"}}) {
    ProviderValues wrong = values;
    wrong[key] = bad;
    EXPECT_THROW(WhatsAppSettingsFrom(wrong), std::invalid_argument) << key << "=" << bad;
  }
}

std::string Signed(std::string_view secret, std::string_view body) {
  return "sha256=" + core::HexEncode(core::HmacSha256(secret, body));
}

TEST(WhatsAppStatusTest, OnlyTheAppSecretsSignatureIsTaken) {
  const std::string body = R"({"object":"whatsapp_business_account","entry":[]})";
  EXPECT_TRUE(WhatsAppSignatureMatches("app-secret", body, Signed("app-secret", body)));
  std::string upper = Signed("app-secret", body);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(WhatsAppSignatureMatches("app-secret", body, "sha256=" + upper.substr(7)));
  EXPECT_FALSE(WhatsAppSignatureMatches("app-secret", body, Signed("other", body)));
  EXPECT_FALSE(WhatsAppSignatureMatches("app-secret", body + " ", Signed("app-secret", body)));
  EXPECT_FALSE(WhatsAppSignatureMatches("app-secret", body, Signed("app-secret", body).substr(7)));
  EXPECT_FALSE(WhatsAppSignatureMatches("", body, Signed("", body)));
}

TEST(WhatsAppStatusTest, ReadsTheStatusesOfEveryChange) {
  const json hook = {
      {"object", "whatsapp_business_account"},
      {"entry",
       {{{"id", "1"},
         {"changes",
          {{{"field", "messages"},
            {"value",
             {{"messaging_product", "whatsapp"},
              {"statuses",
               {{{"id", "wamid.A"}, {"status", "delivered"}, {"timestamp", "1700000000"}},
                {{"id", "wamid.B"},
                 {"status", "failed"},
                 {"errors", {{{"code", 131026}, {"title", "Message undeliverable"}}}}},
                {{"id", "wamid.C"}, {"status", "deleted"}}}}}}},
           {{"field", "messages"},
            {"value", {{"messages", {{{"from", "998901234567"}, {"type", "text"}}}}}}}}}}}}};
  const auto statuses = ParseWhatsAppStatuses(hook.dump());
  ASSERT_EQ(statuses.size(), 2u) << "an unknown status and incoming messages are skipped";
  EXPECT_EQ(statuses[0].message_id, "wamid.A");
  EXPECT_EQ(statuses[0].status, "delivered");
  EXPECT_EQ(statuses[1].status, "failed");
  EXPECT_EQ(statuses[1].error, "131026 Message undeliverable");

  EXPECT_THROW(ParseWhatsAppStatuses("[]"), core::RequestError);
  EXPECT_THROW(ParseWhatsAppStatuses("{"), core::RequestError);
  const json no_id = {
      {"entry", {{{"changes", {{{"value", {{"statuses", {{{"status", "read"}}}}}}}}}}}}};
  EXPECT_THROW(ParseWhatsAppStatuses(no_id.dump()), core::RequestError);
  json many = {{"entry", {{{"changes", {{{"value", {{"statuses", json::array()}}}}}}}}}};
  auto& list = many["entry"][0]["changes"][0]["value"]["statuses"];
  for (std::size_t i = 0; i <= kMaxStatusesPerWebhook; ++i) {
    list.push_back({{"id", "wamid." + std::to_string(i)}, {"status", "read"}});
  }
  EXPECT_THROW(ParseWhatsAppStatuses(many.dump()), core::RequestError);
}

}  // namespace
}  // namespace chopar::channels::chat
