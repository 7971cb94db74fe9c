#include "core/redact.hpp"

#include <gtest/gtest.h>

namespace chopar::core {
namespace {

TEST(RedactSecretsTest, RemovesTheUserInfoOfAUrlOfAnyScheme) {
  EXPECT_EQ(RedactSecrets("connect to nats://admin:secret@127.0.0.1:4222: No server available"),
            "connect to nats://***@127.0.0.1:4222: No server available");
  EXPECT_EQ(RedactSecrets("https://user:pa55@hooks.example.uz/in"),
            "https://***@hooks.example.uz/in");
  EXPECT_EQ(RedactSecrets("smtps://mailer%40example.uz:pw@smtp.example.uz:465"),
            "smtps://***@smtp.example.uz:465");
  EXPECT_EQ(RedactSecrets("postgresql://chopar:hunter2@db:5432/chopar?sslmode=require"),
            "postgresql://***@db:5432/chopar?sslmode=require");
  EXPECT_EQ(RedactSecrets("http://onlytoken@example.uz"), "http://***@example.uz");
  EXPECT_EQ(RedactSecrets("HTTP://U:P@[::1]:8080/x"), "HTTP://***@[::1]:8080/x");
}

TEST(RedactSecretsTest, APasswordWithAnAtSignIsCoveredToTheLastAtOfTheAuthority) {
  EXPECT_EQ(RedactSecrets("nats://admin:p@ss@host:4222"), "nats://***@host:4222");
}

TEST(RedactSecretsTest, EachUrlOfAListIsRedacted) {
  EXPECT_EQ(RedactSecrets("nats://a:one@h1:4222,nats://b:two@h2:4222"),
            "nats://***@h1:4222,nats://***@h2:4222");
  EXPECT_EQ(RedactSecrets("from http://a:one@h1/x to https://b:two@h2/y."),
            "from http://***@h1/x to https://***@h2/y.");
}

TEST(RedactSecretsTest, UrlsInQuotesAndJsonEndAtTheQuote) {
  EXPECT_EQ(RedactSecrets(R"({"url":"nats://a:b@h:1","next":"x@y"})"),
            R"({"url":"nats://***@h:1","next":"x@y"})");
  EXPECT_EQ(RedactSecrets(R"(url \"http://a:b@h\")"), R"(url \"http://***@h\")");
  EXPECT_EQ(RedactSecrets("<http://a:b@h>"), "<http://***@h>");
}

TEST(RedactSecretsTest, MasksCredentialQueryParameters) {
  EXPECT_EQ(RedactSecrets("GET https://api.example.uz/v1/x?token=abc123&page=2 failed"),
            "GET https://api.example.uz/v1/x?token=***&page=2 failed");
  EXPECT_EQ(RedactSecrets("https://h/x?access_token=a&api_key=b&apikey=c&key=d&secret=e"),
            "https://h/x?access_token=***&api_key=***&apikey=***&key=***&secret=***");
  EXPECT_EQ(RedactSecrets("https://h/x?password=p&sig=s&signature=t&client_secret=u&code=v"),
            "https://h/x?password=***&sig=***&signature=***&client_secret=***&code=***");
  EXPECT_EQ(RedactSecrets("https://s3.example/b/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff"
                          "&X-Amz-Security-Token=tt&X-Amz-Date=20261028"),
            "https://s3.example/b/o?X-Amz-Credential=***&X-Amz-Signature=***"
            "&X-Amz-Security-Token=***&X-Amz-Date=20261028");
  EXPECT_EQ(RedactSecrets("https://h/x?a=1;Token=z#top"), "https://h/x?a=1;Token=***#top");
  EXPECT_EQ(RedactSecrets("https://h/cb#access_token=z&state=s"),
            "https://h/cb#access_token=***&state=s");
}

TEST(RedactSecretsTest, MasksTelegramBotTokensInPathsAndText) {
  EXPECT_EQ(RedactSecrets("POST https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/"
                          "sendMessage: timeout"),
            "POST https://api.telegram.org/bot***/sendMessage: timeout");
  EXPECT_EQ(RedactSecrets("http://127.0.0.1:3456/bot42:short/getUpdates"),
            "http://127.0.0.1:3456/bot***/getUpdates");
  EXPECT_EQ(RedactSecrets("bot_token 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw refused"),
            "bot_token *** refused");
  EXPECT_EQ(RedactSecrets("/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe"),
            "/bot***/getMe");
}

TEST(RedactSecretsTest, MasksConninfoPasswords) {
  EXPECT_EQ(RedactSecrets("host=db user=chopar password=s3cr3t dbname=chopar"),
            "host=db user=chopar password=*** dbname=chopar");
  EXPECT_EQ(RedactSecrets("host=db password='with space \\' quote' port=5432"),
            "host=db password='***' port=5432");
  EXPECT_EQ(RedactSecrets("PASSWORD=x"), "PASSWORD=***");
}

TEST(RedactSecretsTest, TruncatedShapesAreHandled) {
  EXPECT_EQ(RedactSecrets("http://a:b@"), "http://***@");
  EXPECT_EQ(RedactSecrets("x password='unterminated \\"), "x password='***'");
  EXPECT_EQ(RedactSecrets("password="), "password=***");
  EXPECT_EQ(RedactSecrets("https://h/bot12:"), "https://h/bot***");
  EXPECT_EQ(RedactSecrets("https://h?"), "https://h?");
  EXPECT_EQ(RedactSecrets("https://h?token="), "https://h?token=***");
  EXPECT_EQ(RedactSecrets("a://"), "a://");
}

TEST(RedactSecretsTest, LeavesOrdinaryTextAlone) {
  for (const char* text : {
           "",
           "attempt 2 of 8: 503 Service Unavailable; retry at 2026-10-28T13:05:09Z",
           "HTTP 503: {\"error\": \"maintenance\"}",
           "550 5.1.1 <gone@example.uz>: No such user here",
           "relay chopar: 3 of 5 events failed on target webhook: Couldn't connect to server",
           "POST https://hooks.example.uz/in?page=2&type=task.created#frag",
           "nats://127.0.0.1:4222",
           "see http://example.uz/users/a@b/profile",
           "time 12:30:45, ratio 3:1, id 1234567:abc",
           "monkey business: key points, the token count is 3",
           "mailto:someone@example.uz",
           "://nothing before, and a lone :// in text",
           "password reset mail sent to ali@example.uz",
           "Oʻzbekiston — xabar yuborildi ✓",
       }) {
    EXPECT_EQ(RedactSecrets(text), text);
  }
}

}  // namespace
}  // namespace chopar::core
