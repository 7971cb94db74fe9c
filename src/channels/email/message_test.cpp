#include "channels/email/message.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "channels/email/channel.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::email {
namespace {

const std::string kUzbekSubject = "Vazifa muddati yaqinlashdi — oʻqing";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (;;) {
    const auto end = text.find("\r\n", start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 2;
  }
  return lines;
}

std::string DecodeBase64(std::string text) {
  for (auto& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return core::Base64UrlDecode(text).value_or("<bad base64>");
}

// Decodes a folded value made only of encoded-words (RFC 2047 B encoding).
std::string DecodeWords(const std::string& value) {
  static const std::regex kWord(R"(=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=)");
  std::string out;
  for (auto it = std::sregex_iterator(value.begin(), value.end(), kWord); it != std::sregex_iterator(); ++it) {
    out += DecodeBase64((*it)[1].str());
  }
  return out;
}

TEST(EncodeUnstructuredTest, AsciiStaysReadable) {
  EXPECT_EQ(EncodeUnstructured("Your task is due", 9), "Your task is due");
}

TEST(EncodeUnstructuredTest, LongAsciiFoldsAtSpacesWithin78) {
  std::string subject;
  for (int i = 0; i < 30; ++i) subject += "word" + std::to_string(i) + " ";
  subject.pop_back();
  const std::string encoded = EncodeUnstructured(subject, 9);
  const auto lines = Lines(encoded);
  ASSERT_GT(lines.size(), 1u);
  EXPECT_LE(lines[0].size() + 9, 78u);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].front(), ' ');
    EXPECT_LE(lines[i].size(), 78u);
  }
  // Unfolding (removing CRLF before the space) gives the text back.
  std::string unfolded;
  for (const auto& line : lines) unfolded += line;
  EXPECT_EQ(unfolded, subject);
}

TEST(EncodeUnstructuredTest, UzbekBecomesEncodedWordsThatDecodeBack) {
  const std::string encoded = EncodeUnstructured(kUzbekSubject, 9);
  EXPECT_TRUE(encoded.starts_with("=?UTF-8?B?"));
  for (const auto& line : Lines(encoded)) {
    EXPECT_LE(line.size(), 76u);
    for (char c : line) EXPECT_LT(static_cast<unsigned char>(c), 0x80);
  }
  EXPECT_EQ(DecodeWords(encoded), kUzbekSubject);
}

TEST(EncodeUnstructuredTest, LongNonAsciiSplitsOnCodePointBoundaries) {
  std::string subject;
  for (int i = 0; i < 40; ++i) subject += "oʻ—";  // 1 + 2 + 3 bytes per round
  const std::string encoded = EncodeUnstructured(subject, 9);
  const auto lines = Lines(encoded);
  ASSERT_GT(lines.size(), 2u);
  static const std::regex kWord(R"(=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=)");
  for (const auto& line : lines) {
    std::smatch match;
    const std::string word = line.front() == ' ' ? line.substr(1) : line;
    ASSERT_TRUE(std::regex_match(word, match, kWord)) << word;
    EXPECT_LE(word.size(), 75u);
    // Each word alone is valid UTF-8: it never ends inside a sequence.
    const std::string bytes = DecodeBase64(match[1].str());
    std::size_t last_lead = bytes.size() - 1;
    while (last_lead > 0 && (static_cast<unsigned char>(bytes[last_lead]) & 0xC0) == 0x80) --last_lead;
    const auto lead = static_cast<unsigned char>(bytes[last_lead]);
    const std::size_t expected = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    EXPECT_EQ(bytes.size() - last_lead, expected);
  }
  EXPECT_EQ(DecodeWords(encoded), subject);
}

TEST(EncodeUnstructuredTest, LineBreaksCannotInjectHeaders) {
  const std::string encoded = EncodeUnstructured("Hello\r\nBcc: victim@example.com", 9);
  EXPECT_EQ(encoded.find("\r\nBcc"), std::string::npos);
  EXPECT_EQ(encoded, "Hello  Bcc: victim@example.com");
  const std::string uz = EncodeUnstructured("Salom\r\nBcc: oʻ@example.com", 9);
  const auto lines = Lines(uz);
  for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].front(), ' ');
  EXPECT_EQ(DecodeWords(uz), "Salom  Bcc: oʻ@example.com");
}

TEST(QuotedPrintableTest, EncodesWhatMustBeEncoded) {
  EXPECT_EQ(EncodeQuotedPrintable("a=b"), "a=3Db");
  EXPECT_EQ(EncodeQuotedPrintable("trailing \nnext"), "trailing=20\r\nnext");
  EXPECT_EQ(EncodeQuotedPrintable(".starts with a dot"), "=2Estarts with a dot");
  EXPECT_EQ(EncodeQuotedPrintable("oʻ"), "o=CA=BB");
  EXPECT_EQ(EncodeQuotedPrintable("one\r\ntwo\n"), "one\r\ntwo\r\n");
}

TEST(QuotedPrintableTest, SoftBreaksLongLinesAt76) {
  const std::string line(200, 'x');
  const std::string encoded = EncodeQuotedPrintable(line + "—end");
  std::string decoded;
  for (const auto& l : Lines(encoded)) {
    EXPECT_LE(l.size(), 76u);
    decoded += l.ends_with("=") ? l.substr(0, l.size() - 1) : l;
  }
  EXPECT_EQ(decoded, line + "=E2=80=94end");
}

TEST(Rfc5322DateTest, FormatsUtc) {
  // 2025-06-03T10:00:00Z, a Tuesday.
  const core::TimePoint t{std::chrono::seconds(1748944800)};
  EXPECT_EQ(FormatRfc5322Date(t), "Tue, 03 Jun 2025 10:00:00 +0000");
}

TEST(MailboxTest, ParsesTheUsualForms) {
  const auto named = ParseMailbox("chopar <noreply@example.com>");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->display_name, "chopar");
  EXPECT_EQ(named->address, "noreply@example.com");
  const auto quoted = ParseMailbox(R"("Chopar, \"bot\"" <bot@example.uz>)");
  ASSERT_TRUE(quoted);
  EXPECT_EQ(quoted->display_name, R"(Chopar, "bot")");
  const auto bare = ParseMailbox(" a@b.uz ");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->address, "a@b.uz");
  EXPECT_TRUE(bare->display_name.empty());
}

TEST(MailboxTest, RejectsWhatCannotBeAnEnvelopeAddress) {
  EXPECT_FALSE(ParseMailbox("no-at-sign"));
  EXPECT_FALSE(ParseMailbox("a b@c.uz"));
  EXPECT_FALSE(ParseMailbox("Name <a@b.uz> trailing"));
  EXPECT_FALSE(ParseMailbox("<a@b@c.uz>"));
  EXPECT_FALSE(IsPlainAddress("a>b@c.uz"));
  EXPECT_FALSE(IsPlainAddress("a@b.uz\r\nRCPT TO:<x@y.z>"));
  EXPECT_TRUE(IsPlainAddress("first.last+tag@sub.example.uz"));
}

TEST(MailboxTest, FormatsNamesAsTheyNeed) {
  EXPECT_EQ(FormatMailbox({"chopar", "n@e.uz"}), "chopar <n@e.uz>");
  EXPECT_EQ(FormatMailbox({"", "n@e.uz"}), "n@e.uz");
  EXPECT_EQ(FormatMailbox({"Chopar, Inc.", "n@e.uz"}), "\"Chopar, Inc.\" <n@e.uz>");
  const std::string uz = FormatMailbox({"Choʻpar", "n@e.uz"});
  EXPECT_TRUE(uz.starts_with("=?UTF-8?B?"));
  EXPECT_TRUE(uz.ends_with(" <n@e.uz>"));
  EXPECT_EQ(DecodeWords(uz), "Choʻpar");
}

TEST(MessageIdTest, HasDeliveryRandomAndSenderDomain) {
  const std::string a = MakeMessageId(42, "noreply@example.uz");
  const std::string b = MakeMessageId(42, "noreply@example.uz");
  EXPECT_TRUE(std::regex_match(a, std::regex(R"(<42\.[0-9a-f]{24}@example\.uz>)"))) << a;
  EXPECT_NE(a, b);
}

TEST(BuildMimeMessageTest, HeadersAreFoldedAndBoundaryIsQuoted) {
  EmailContent content{kUzbekSubject, "text\n", "<p>html</p>\n", "https://x.uz/preferences?user=1"};
  const EmailEnvelope envelope{{"chopar", "n@x.uz"}, "to@x.uz", "<1.a@x.uz>", core::TimePoint{}, true};
  const std::string message = BuildMimeMessage(envelope, content, "=_b");
  const auto head = message.substr(0, message.find("\r\n\r\n"));
  for (const auto& line : Lines(head)) EXPECT_LE(line.size(), 78u) << line;
  EXPECT_NE(head.find("Content-Type: multipart/alternative;\r\n boundary=\"=_b\""), std::string::npos);
  EXPECT_NE(head.find("List-Unsubscribe: <https://x.uz/preferences?user=1>"), std::string::npos);
  EXPECT_NE(head.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), std::string::npos);
  EXPECT_NE(head.find("Date: Thu, 01 Jan 1970 00:00:00 +0000"), std::string::npos);
  EXPECT_TRUE(message.ends_with("--=_b--\r\n"));
}

TEST(ClassifySmtpResultTest, MapsRepliesToOutcomes) {
  SmtpResult ok{CURLE_OK, "", 250, "250 2.0.0 Ok", SmtpStage::kDataEnd};
  const Outcome sent = ClassifySmtpResult(ok, "<id@x>");
  EXPECT_EQ(sent.kind, OutcomeKind::kSent);
  EXPECT_EQ(sent.provider_message_id, "<id@x>");

  SmtpResult busy{CURLE_RECV_ERROR, "Failure when receiving data from the peer", 451, "451 4.3.0 Try later", SmtpStage::kRcptTo};
  EXPECT_EQ(ClassifySmtpResult(busy, "").kind, OutcomeKind::kRetry);

  SmtpResult unknown{CURLE_SEND_ERROR, "x", 550, "550 5.1.1 No such user", SmtpStage::kRcptTo};
  const Outcome permanent = ClassifySmtpResult(unknown, "");
  EXPECT_EQ(permanent.kind, OutcomeKind::kPermanent);
  EXPECT_NE(permanent.detail.find("550 5.1.1 No such user"), std::string::npos);

  SmtpResult greeting{CURLE_WEIRD_SERVER_REPLY, "x", 554, "554 No service", SmtpStage::kGreeting};
  EXPECT_EQ(ClassifySmtpResult(greeting, "").kind, OutcomeKind::kRetry);

  SmtpResult login{CURLE_LOGIN_DENIED, "x", 535, "535 bad", SmtpStage::kAuth};
  EXPECT_EQ(ClassifySmtpResult(login, "").kind, OutcomeKind::kRetry);

  SmtpResult tls{CURLE_USE_SSL_FAILED, "x", 250, "250 OK", SmtpStage::kEhlo};
  EXPECT_EQ(ClassifySmtpResult(tls, "").kind, OutcomeKind::kRetry);

  SmtpResult dropped{CURLE_GOT_NOTHING, "x", 354, "354 go on", SmtpStage::kDataEnd};
  EXPECT_EQ(ClassifySmtpResult(dropped, "").kind, OutcomeKind::kRetry);

  SmtpResult refused{CURLE_COULDNT_CONNECT, "x", 0, "", SmtpStage::kConnect};
  EXPECT_EQ(ClassifySmtpResult(refused, "").kind, OutcomeKind::kRetry);
}

}  // namespace
}  // namespace chopar::channels::email
