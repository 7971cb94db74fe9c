#include "channels/email/channel.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>

#include "channels/unsubscribe.hpp"
#include "core/encoding.hpp"
#include "testing/fake_smtp_server.hpp"

namespace chopar::channels::email {
namespace {

using testing::FakeSmtpServer;
using Stage = FakeSmtpServer::Stage;
using namespace std::chrono_literals;

const std::string kUzbekTitle = "Vazifa muddati yaqinlashdi — oʻqing";

// ---- A small MIME reader, independent of the code under test. ----

std::string DecodeBase64(std::string text) {
  for (auto& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return core::Base64UrlDecode(text).value_or("<bad base64>");
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string DecodeQuotedPrintable(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') {
      out += text[i];
    } else if (text.compare(i + 1, 2, "\r\n") == 0) {
      i += 2;  // soft line break
    } else if (i + 2 < text.size() && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += "<bad qp>";
    }
  }
  return out;
}

// RFC 2047: encoded-words (B and Q) decoded; whitespace between two adjacent
// encoded-words dropped.
std::string DecodeHeaderValue(const std::string& value) {
  static const std::regex kWord(R"(=\?([^?]+)\?([BbQq])\?([^?]*)\?=)");
  std::string out;
  auto last_end = value.cbegin();
  bool previous_was_word = false;
  for (auto it = std::sregex_iterator(value.begin(), value.end(), kWord);
       it != std::sregex_iterator(); ++it) {
    const std::string between(last_end, value.cbegin() + it->position());
    if (!(previous_was_word && std::all_of(between.begin(), between.end(),
                                           [](char c) { return c == ' ' || c == '\t'; }))) {
      out += between;
    }
    const std::string encoding = (*it)[2].str();
    std::string payload = (*it)[3].str();
    if (encoding == "B" || encoding == "b") {
      out += DecodeBase64(payload);
    } else {
      for (auto& c : payload)
        if (c == '_') c = ' ';
      out += DecodeQuotedPrintable(payload);
    }
    last_end = value.cbegin() + it->position() + it->length();
    previous_was_word = true;
  }
  out += std::string(last_end, value.cend());
  return out;
}

struct MimePart {
  std::multimap<std::string, std::string> headers;  // lower-case names, unfolded values
  std::string body;                                 // raw (still transfer-encoded)

  [[nodiscard]] std::string Header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  [[nodiscard]] std::string Param(const std::string& header, const std::string& param) const {
    const std::regex re(param + R"(=\"?([^\";]+)\"?)", std::regex::icase);
    std::smatch match;
    const std::string value = Header(header);
    return std::regex_search(value, match, re) ? match[1].str() : "";
  }
  [[nodiscard]] std::string DecodedBody() const {
    const std::string encoding = Header("content-transfer-encoding");
    if (encoding == "quoted-printable") return DecodeQuotedPrintable(body);
    if (encoding == "base64") return DecodeBase64(std::regex_replace(body, std::regex("\r\n"), ""));
    return body;
  }
};

MimePart ParseEntity(const std::string& text) {
  MimePart part;
  const auto split = text.find("\r\n\r\n");
  const std::string head = text.substr(0, split);
  part.body = split == std::string::npos ? "" : text.substr(split + 4);
  // Unfold: a CRLF followed by whitespace continues the previous line.
  const std::string unfolded = std::regex_replace(head, std::regex("\r\n([ \t])"), "$1");
  std::size_t start = 0;
  while (start < unfolded.size()) {
    auto end = unfolded.find("\r\n", start);
    if (end == std::string::npos) end = unfolded.size();
    const std::string line = unfolded.substr(start, end - start);
    const auto colon = line.find(':');
    EXPECT_NE(colon, std::string::npos) << "not a header line: " << line;
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      part.headers.emplace(name, value);
    }
    start = end + 2;
  }
  return part;
}

struct ParsedEmail {
  MimePart top;
  std::vector<MimePart> parts;
};

ParsedEmail ParseEmail(const std::string& data) {
  ParsedEmail email{ParseEntity(data), {}};
  const std::string boundary = email.top.Param("content-type", "boundary");
  EXPECT_FALSE(boundary.empty());
  const std::string delimiter = "\r\n--" + boundary;
  std::string body = "\r\n" + email.top.body;
  std::size_t at = body.find(delimiter);
  while (at != std::string::npos) {
    const std::size_t after = at + delimiter.size();
    if (body.compare(after, 2, "--") == 0) break;  // close delimiter
    const std::size_t content = body.find("\r\n", after) + 2;
    const std::size_t next = body.find(delimiter, content);
    EXPECT_NE(next, std::string::npos) << "unterminated part";
    if (next == std::string::npos) break;
    email.parts.push_back(ParseEntity(body.substr(content, next - content)));
    at = next;
  }
  return email;
}

// ---- Fixtures ----

Message UzbekMessage(std::int64_t delivery_id, std::string email) {
  Message m;
  m.delivery_id = delivery_id;
  m.notification_id = 1000 + delivery_id;
  m.user_id = 7;
  m.channel = core::ChannelKind::kEmail;
  m.type = "task.due";
  m.title = kUzbekTitle;
  m.body = "Hisobotni juma kuni soat 18:00 gacha topshiring.\n.Nuqta bilan boshlangan qator";
  m.link = "/tasks/42";
  m.locale = "uz";
  m.email = std::move(email);
  return m;
}

class EmailChannelTest : public ::testing::Test {
 protected:
  EmailSettings Settings() const {
    EmailSettings s;
    s.smtp_url = server_.url();
    s.from = "Choʻpar <noreply@chopar.example.uz>";
    s.public_url = "https://app.example.uz/";
    s.unsubscribe_secret = "inbox-secret";
    s.timeout = 5s;
    return s;
  }
  std::vector<Outcome> SendOne(const EmailSettings& settings, const Message& m) {
    EmailChannel channel(settings, clock_);
    return channel.Send(std::span<const Message>(&m, 1));
  }

  core::SimulatedClock clock_{
      core::TimePoint{std::chrono::seconds(1748944800)}};  // 2025-06-03 10:00 UTC
  FakeSmtpServer server_;
};

FakeSmtpServer::Script ReplyAt(Stage at, std::string reply) {
  return [at, reply](Stage stage, const FakeSmtpServer::Session&) {
    return stage == at ? FakeSmtpServer::Action{reply} : FakeSmtpServer::Action{};
  };
}

FakeSmtpServer::Script DropAt(Stage at) {
  return [at](Stage stage, const FakeSmtpServer::Session&) {
    FakeSmtpServer::Action action;
    action.drop = stage == at;
    return action;
  };
}

TEST_F(EmailChannelTest, SendsMimeMessageThatParsesBackToTheOriginal) {
  const auto outcomes = SendOne(Settings(), UzbekMessage(5, "aziza@example.uz"));
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_EQ(outcomes[0].kind, OutcomeKind::kSent) << outcomes[0].detail;

  const auto received = server_.messages();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].mail_from, "noreply@chopar.example.uz");
  EXPECT_EQ(received[0].rcpt_to, std::vector<std::string>{"aziza@example.uz"});
  for (char c : received[0].data)
    ASSERT_LT(static_cast<unsigned char>(c), 0x80) << "8-bit data in a 7-bit message";

  const ParsedEmail email = ParseEmail(received[0].data);
  const MimePart& top = email.top;
  EXPECT_EQ(DecodeHeaderValue(top.Header("subject")), kUzbekTitle);
  EXPECT_EQ(DecodeHeaderValue(top.Header("from")), "Choʻpar <noreply@chopar.example.uz>");
  EXPECT_EQ(top.Header("to"), "aziza@example.uz");
  EXPECT_EQ(top.Header("date"), "Tue, 03 Jun 2025 10:00:00 +0000");
  EXPECT_EQ(top.Header("mime-version"), "1.0");
  EXPECT_TRUE(std::regex_match(top.Header("message-id"),
                               std::regex(R"(<5\.[0-9a-f]{24}@chopar\.example\.uz>)")))
      << top.Header("message-id");
  EXPECT_EQ(outcomes[0].provider_message_id, top.Header("message-id"));
  const std::string unsubscribe =
      "https://app.example.uz/v1/unsubscribe?user=7&type=task.due&channel=email&sig=" +
      SignUnsubscribe("inbox-secret", 7, {"type", "task.due"}, core::ChannelKind::kEmail);
  EXPECT_EQ(top.Header("list-unsubscribe"), "<" + unsubscribe + ">");
  EXPECT_EQ(top.headers.count("list-unsubscribe-post"), 0u) << "one-click is off unless configured";
  EXPECT_TRUE(top.Header("content-type").starts_with("multipart/alternative;"));

  ASSERT_EQ(email.parts.size(), 2u);
  const MimePart& text = email.parts[0];
  const MimePart& html = email.parts[1];
  EXPECT_EQ(text.Header("content-type"), "text/plain; charset=UTF-8");
  EXPECT_EQ(html.Header("content-type"), "text/html; charset=UTF-8");
  const std::string plain = text.DecodedBody();
  const std::string markup = html.DecodedBody();
  EXPECT_NE(plain.find(kUzbekTitle), std::string::npos);
  EXPECT_NE(plain.find("\r\n.Nuqta bilan boshlangan qator"), std::string::npos)
      << "a leading dot survives";
  EXPECT_NE(plain.find("Ochish: https://app.example.uz/tasks/42"), std::string::npos) << plain;
  EXPECT_NE(plain.find(unsubscribe), std::string::npos);
  EXPECT_NE(markup.find(">" + kUzbekTitle + "</h1>"), std::string::npos) << markup;
  EXPECT_NE(markup.find("<a href=\"https://app.example.uz/tasks/42\" style="), std::string::npos)
      << markup;
  EXPECT_NE(markup.find(">Ochish</a>"), std::string::npos) << markup;
  EXPECT_NE(markup.find("href=\"" + HtmlEscape(unsubscribe) + "\""), std::string::npos);
}

TEST_F(EmailChannelTest, OneClickUnsubscribeHeaderWhenConfigured) {
  EmailSettings settings = Settings();
  settings.one_click_unsubscribe = true;
  ASSERT_EQ(SendOne(settings, UzbekMessage(1, "a@example.uz"))[0].kind, OutcomeKind::kSent);
  const ParsedEmail email = ParseEmail(server_.messages().at(0).data);
  EXPECT_EQ(email.top.Header("list-unsubscribe-post"), "List-Unsubscribe=One-Click");
}

TEST_F(EmailChannelTest, RecipientTemporarilyRefused451IsRetry) {
  server_.SetScript(ReplyAt(Stage::kRcptTo, "451 4.3.0 Mailbox temporarily unavailable"));
  const auto outcome = SendOne(Settings(), UzbekMessage(1, "a@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_NE(outcome.detail.find("451 4.3.0 Mailbox temporarily unavailable"), std::string::npos)
      << outcome.detail;
  EXPECT_EQ(server_.message_count(), 0u);
}

TEST_F(EmailChannelTest, UnknownRecipient550IsPermanentWithTheReply) {
  server_.SetScript(ReplyAt(Stage::kRcptTo, "550 5.1.1 No such user here"));
  const auto outcome = SendOne(Settings(), UzbekMessage(1, "nobody@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcome.detail.find("RCPT TO: 550 5.1.1 No such user here"), std::string::npos)
      << outcome.detail;
}

TEST_F(EmailChannelTest, RepliesAtTheEndOfDataDecideToo) {
  server_.SetScript(ReplyAt(Stage::kDataEnd, "552 5.3.4 Message too big"));
  EXPECT_EQ(SendOne(Settings(), UzbekMessage(1, "a@example.uz")).at(0).kind,
            OutcomeKind::kPermanent);
  server_.SetScript(ReplyAt(Stage::kDataEnd, "452 4.3.1 Insufficient system storage"));
  EXPECT_EQ(SendOne(Settings(), UzbekMessage(2, "a@example.uz")).at(0).kind, OutcomeKind::kRetry);
  EXPECT_EQ(server_.message_count(), 0u);
}

TEST_F(EmailChannelTest, ServerRefusingTheSessionIsRetryNotPermanent) {
  server_.SetScript(ReplyAt(Stage::kGreeting, "554 5.3.2 Service unavailable"));
  EXPECT_EQ(SendOne(Settings(), UzbekMessage(1, "a@example.uz")).at(0).kind, OutcomeKind::kRetry);
}

TEST_F(EmailChannelTest, DroppedConnectionBeforeTheMessageEndedIsRetry) {
  for (const Stage stage : {Stage::kGreeting, Stage::kRcptTo, Stage::kData}) {
    server_.SetScript(DropAt(stage));
    const auto outcome = SendOne(Settings(), UzbekMessage(1, "a@example.uz")).at(0);
    EXPECT_EQ(outcome.kind, OutcomeKind::kRetry)
        << static_cast<int>(stage) << ": " << outcome.detail;
  }
  EXPECT_EQ(server_.message_count(), 0u);
}

// The server had the whole message, its final "." included, and the
// connection went before its reply: it may have queued the message.
TEST_F(EmailChannelTest, DroppedConnectionAfterTheMessageEndedIsOutcomeUnknown) {
  server_.SetScript(DropAt(Stage::kDataEnd));
  const auto outcome = SendOne(Settings(), UzbekMessage(1, "a@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kUnknown) << outcome.detail;
  EXPECT_TRUE(outcome.detail.starts_with("outcome unknown: smtp: ")) << outcome.detail;
}

TEST_F(EmailChannelTest, NoServerListeningIsRetry) {
  EmailSettings settings = Settings();
  {
    FakeSmtpServer gone;
    settings.smtp_url = gone.url();
  }
  const auto outcome = SendOne(settings, UzbekMessage(1, "a@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry) << outcome.detail;
}

// A server that takes 10 s (cut short when it stops) to answer at `at`.
FakeSmtpServer::Script SlowAt(Stage at) {
  return [at](Stage stage, const FakeSmtpServer::Session&) {
    FakeSmtpServer::Action action;
    if (stage == at) action.delay = 10s;
    return action;
  };
}

TEST_F(EmailChannelTest, TimeoutBeforeTheMessageWasSentIsRetry) {
  server_.SetScript(SlowAt(Stage::kMailFrom));
  EmailSettings settings = Settings();
  settings.timeout = 300ms;
  const auto outcome = SendOne(settings, UzbekMessage(1, "a@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_NE(outcome.detail.find("Timeout"), std::string::npos) << outcome.detail;
  EXPECT_EQ(server_.message_count(), 0u);
}

// The server accepted the message and its 250 came after chopar's timeout:
// one message received, and the outcome is final, never a retry.
TEST_F(EmailChannelTest, TimeoutAfterTheEndOfDataIsOutcomeUnknownNotRetry) {
  server_.SetScript(SlowAt(Stage::kDataEnd));
  EmailSettings settings = Settings();
  settings.timeout = 300ms;
  const auto outcome = SendOne(settings, UzbekMessage(1, "a@example.uz")).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kUnknown) << outcome.detail;
  EXPECT_NE(outcome.detail.find("Timeout"), std::string::npos) << outcome.detail;
  EXPECT_EQ(server_.message_count(), 1u);
}

TEST_F(EmailChannelTest, RequiredStartTlsNeverFallsBackToPlaintext) {
  EmailSettings settings = Settings();
  settings.smtp_url = server_.url() + "?starttls=required";
  EmailChannel channel(settings, clock_);
  EXPECT_EQ(channel.starttls(), StartTls::kRequired);
  EXPECT_EQ(channel.curl_url(), server_.url());
  const Message m = UzbekMessage(1, "a@example.uz");
  const auto outcome = channel.Send(std::span<const Message>(&m, 1)).at(0);
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_NE(outcome.detail.find("STARTTLS"), std::string::npos) << outcome.detail;
  for (const auto& command : server_.commands()) {
    EXPECT_FALSE(command.starts_with("MAIL")) << "sent in plaintext: " << command;
    EXPECT_FALSE(command.starts_with("AUTH")) << "sent in plaintext: " << command;
  }
  EXPECT_EQ(server_.message_count(), 0u);
}

TEST_F(EmailChannelTest, CredentialsImplyRequiredStartTlsUnlessSaidOtherwise) {
  EmailSettings settings = Settings();
  settings.username = "mailer";
  settings.password = "s3cret";
  EXPECT_EQ(EmailChannel(settings, clock_).starttls(), StartTls::kRequired);
  settings.starttls = StartTls::kOff;
  EXPECT_EQ(EmailChannel(settings, clock_).starttls(), StartTls::kOff);
  settings.smtp_url = server_.url() + "?tls=yes";
  EXPECT_THROW(EmailChannel(settings, clock_), std::invalid_argument);
  settings.smtp_url = "http://127.0.0.1:25";
  EXPECT_THROW(EmailChannel(settings, clock_), std::invalid_argument);
}

// Opportunistic STARTTLS logs in in clear text when no STARTTLS is offered
// (or a man in the middle strips the offer): with credentials it is refused
// at start rather than left to leak the password silently.
TEST_F(EmailChannelTest, OpportunisticStartTlsWithCredentialsIsRefusedAtStart) {
  EmailSettings settings = Settings();
  settings.starttls = StartTls::kOpportunistic;
  EXPECT_EQ(EmailChannel(settings, clock_).starttls(), StartTls::kOpportunistic)
      << "no credentials";
  settings.username = "mailer";
  settings.password = "s3cret";
  try {
    EmailChannel channel(settings, clock_);
    ADD_FAILURE() << "opportunistic STARTTLS with a password was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("clear text"), std::string::npos) << e.what();
  }
  settings.starttls.reset();
  settings.smtp_url += "?starttls=opportunistic";
  EXPECT_THROW(EmailChannel(settings, clock_), std::invalid_argument);
}

TEST_F(EmailChannelTest, AuthenticatesWithAuthPlain) {
  server_.RequireAuth("mailer", "s3cret");
  EmailSettings settings = Settings();
  settings.username = "mailer";
  settings.password = "s3cret";
  settings.starttls = StartTls::kOff;  // the fake speaks plaintext only
  ASSERT_EQ(SendOne(settings, UzbekMessage(1, "a@example.uz")).at(0).kind, OutcomeKind::kSent);
  EXPECT_EQ(server_.messages().at(0).auth_user, "mailer");

  settings.password = "wrong";
  const auto refused = SendOne(settings, UzbekMessage(2, "a@example.uz")).at(0);
  EXPECT_EQ(refused.kind, OutcomeKind::kRetry) << "a bad password is not the message's fault";
  EXPECT_EQ(server_.message_count(), 1u);
}

TEST_F(EmailChannelTest, BatchGetsOneOutcomePerMessageInOrder) {
  server_.SetScript([](Stage stage, const FakeSmtpServer::Session& session) {
    FakeSmtpServer::Action action;
    if (stage == Stage::kRcptTo && session.rcpt_to.back() == "gone@example.uz")
      action.reply = "550 5.1.1 Gone";
    if (stage == Stage::kRcptTo && session.rcpt_to.back() == "later@example.uz")
      action.reply = "450 4.2.1 Later";
    return action;
  });
  std::vector<Message> batch = {
      UzbekMessage(1, "ok1@example.uz"), UzbekMessage(2, "gone@example.uz"),
      UzbekMessage(3, "later@example.uz"), UzbekMessage(4, "ok2@example.uz")};
  batch.push_back(UzbekMessage(5, "unused"));
  batch.back().email.reset();
  EmailChannel channel(Settings(), clock_);
  const auto outcomes = channel.Send(batch);
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(server_.message_count(), 2u);
}

TEST_F(EmailChannelTest, ReusesTheConnectionAcrossBatches) {
  EmailChannel channel(Settings(), clock_);
  for (int i = 1; i <= 5; ++i) {
    const Message m = UzbekMessage(i, "a@example.uz");
    ASSERT_EQ(channel.Send(std::span<const Message>(&m, 1)).at(0).kind, OutcomeKind::kSent);
  }
  EXPECT_EQ(server_.message_count(), 5u);
  EXPECT_EQ(server_.connections(), 1);
}

// The fake holds every end-of-data reply until `kTogether` messages are
// waiting for it at the same moment (or gives up after a while and answers
// anyway). One message at a time could never gather them: reaching the
// barrier proves the sessions really ran concurrently.
TEST_F(EmailChannelTest, ManyMessagesInFlightAtOnce) {
  constexpr int kMessages = 200;
  constexpr int kTogether = 50;
  struct Barrier {
    std::mutex mutex;
    std::condition_variable cv;
    int waiting = 0;
    bool reached = false;
  };
  auto barrier = std::make_shared<Barrier>();
  server_.SetScript([barrier](Stage stage, const FakeSmtpServer::Session&) {
    FakeSmtpServer::Action action;
    if (stage != Stage::kDataEnd) return action;
    std::unique_lock lock(barrier->mutex);
    if (++barrier->waiting >= kTogether) {
      barrier->reached = true;
      barrier->cv.notify_all();
    }
    barrier->cv.wait_for(lock, 20s, [&] { return barrier->reached; });
    action.delay = 50ms;  // a slow server: every message takes a while
    return action;
  });
  EmailSettings settings = Settings();
  settings.max_in_flight = 64;
  std::vector<Message> batch;
  for (int i = 0; i < kMessages; ++i)
    batch.push_back(UzbekMessage(i + 1, "user" + std::to_string(i) + "@example.uz"));
  EmailChannel channel(settings, clock_);
  const auto started = std::chrono::steady_clock::now();
  const auto outcomes = channel.Send(batch);
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  {
    std::lock_guard lock(barrier->mutex);
    EXPECT_TRUE(barrier->reached) << "never had " << kTogether
                                  << " messages in flight at once (peak "
                                  << server_.peak_connections() << " connections)";
  }
  for (const auto& outcome : outcomes)
    ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(server_.message_count(), static_cast<std::size_t>(kMessages));
  EXPECT_LE(server_.peak_connections(), 64);
  std::cout << "[ measured ] " << kMessages
            << " emails, server answering after 50 ms, max_in_flight " << settings.max_in_flight
            << ": " << elapsed.count() << " ms, " << server_.connections() << " connections, peak "
            << server_.peak_connections() << " at once\n";
}

}  // namespace
}  // namespace chopar::channels::email
