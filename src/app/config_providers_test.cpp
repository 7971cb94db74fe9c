// [[channels.email.providers]] and [[channels.sms.providers]].
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTwoEmailProviders = R"(
[channels.email]
from = "Acme <noreply@acme.example>"
timeout_seconds = 7

[[channels.email.providers]]
kind = "ses"
ses_region = "eu-central-1"
ses_access_key_id = "AKIDEXAMPLE"
ses_secret_access_key = "secret"
weight = 3
failure_threshold = 4
open_seconds = 45

[[channels.email.providers]]
kind = "smtp"
name = "backup_smtp"
smtp_url = "smtp://127.0.0.1:2525"
from = "Acme backup <backup@acme.example>"
)";

TEST_F(ConfigTest, AProviderListIsReadEntryByEntryWithTheSectionsCommonKeys) {
  const Config c = Load(kTwoEmailProviders);
  ASSERT_EQ(c.email.providers.size(), 2u);
  const auto& ses = c.email.providers[0];
  EXPECT_EQ(ses.name, "ses");  // named by its kind
  EXPECT_EQ(ses.settings.provider, "ses");
  EXPECT_EQ(ses.settings.ses.region, "eu-central-1");
  EXPECT_EQ(ses.weight, 3);
  EXPECT_EQ(ses.breaker.failure_threshold, 4);
  EXPECT_EQ(ses.breaker.open_for, std::chrono::seconds(45));
  // Inherited from [channels.email] where the entry does not set them.
  EXPECT_EQ(ses.settings.smtp.from, "Acme <noreply@acme.example>");
  EXPECT_EQ(ses.settings.smtp.timeout, std::chrono::seconds(7));
  const auto& smtp = c.email.providers[1];
  EXPECT_EQ(smtp.name, "backup_smtp");
  EXPECT_EQ(smtp.settings.smtp.smtp_url, "smtp://127.0.0.1:2525");
  EXPECT_EQ(smtp.settings.smtp.from, "Acme backup <backup@acme.example>");
  EXPECT_EQ(smtp.weight, 0);
  EXPECT_EQ(smtp.breaker.failure_threshold, 5);
  EXPECT_EQ(smtp.breaker.open_for, std::chrono::seconds(30));
  // The single-provider form is untouched.
  EXPECT_EQ(c.email.provider, "");
}

TEST_F(ConfigTest, AnEntrysSecretComesFromTheEnvironmentByItsName) {
  const Config c = Load(kTwoEmailProviders,
                        {{"CHOPAR_CHANNELS_EMAIL_PROVIDERS_SES_SES_SECRET_ACCESS_KEY", "from-env"},
                         {"CHOPAR_CHANNELS_EMAIL_PROVIDERS_BACKUP_SMTP_PASSWORD", "smtp-pass"}});
  EXPECT_EQ(c.email.providers[0].settings.ses.secret_access_key, "from-env");
  EXPECT_EQ(c.email.providers[1].settings.smtp.password, "smtp-pass");
  EXPECT_THAT(Refusal(std::string(kTwoEmailProviders),
                      {{"CHOPAR_CHANNELS_EMAIL_PROVIDERS_MAILGUN_MAILGUN_API_KEY", "x"}}),
              HasSubstr("unknown environment variable CHOPAR_CHANNELS_EMAIL_PROVIDERS_MAILGUN"));
}

TEST_F(ConfigTest, AnEntrysSecretComesFromAFile) {
  const std::filesystem::path secret = dir_ / "sendgrid_key";
  std::ofstream(secret) << "SG.key-from-file\n";
  const Config c = Load(R"(
[[channels.email.providers]]
kind = "sendgrid"
sendgrid_api_key_file = ")" +
                        secret.string() + R"("
)");
  EXPECT_EQ(c.email.providers[0].settings.sendgrid.api_key, "SG.key-from-file");
  EXPECT_THAT(FileRefusal(R"(
[[channels.email.providers]]
kind = "sendgrid"
sendgrid_api_key = "inline"
sendgrid_api_key_file = ")" +
                          secret.string() + R"("
)"),
              HasSubstr("[[channels.email.providers]] #1 (sendgrid)"));
}

TEST_F(ConfigTest, AProviderListRefusesWhatCannotWork) {
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nsmtp_url = \"smtp://a\"\n"),
              HasSubstr("[[channels.email.providers]] #1 has no kind"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"pigeon\"\n"),
              HasSubstr("kind = \"pigeon\" is not valid (must be smtp, ses, mailgun, postmark or "
                        "sendgrid)"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\nses_region = \"x\"\n"),
              HasSubstr("key ses_region does not apply to smtp (it is ses's)"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\n"
                          "[[channels.email.providers]]\nkind = \"smtp\"\n"),
              HasSubstr("#2 name = \"smtp\" is taken by an earlier entry"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\nname = \"Main SMTP\"\n"),
              HasSubstr("name = \"Main SMTP\" is not valid"));
  EXPECT_THAT(FileRefusal("[channels.email]\nprovider = \"smtp\"\n"
                          "[[channels.email.providers]]\nkind = \"ses\"\n"),
              HasSubstr("[channels.email] provider and [[channels.email.providers]] are both set"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\nfailure_threshold = 0\n"),
              HasSubstr("failure_threshold must be positive"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\nweight = -1\n"),
              HasSubstr("weight must be >= 0"));
  EXPECT_THAT(FileRefusal("[[channels.email.providers]]\nkind = \"smtp\"\nretries = 3\n"),
              HasSubstr("unknown key [[channels.email.providers]] #1 retries"));
}

TEST_F(ConfigTest, AnSmsProviderListTakesEskizAccounts) {
  const Config c = Load(R"(
[[channels.sms.providers]]
kind = "eskiz"
name = "eskiz_main"
email = "main@acme.uz"
password = "one"

[[channels.sms.providers]]
kind = "eskiz"
name = "eskiz_backup"
email = "backup@acme.uz"
password = "two"
from = "ACME"
)");
  ASSERT_EQ(c.sms.providers.size(), 2u);
  EXPECT_EQ(c.sms.providers[0].settings.eskiz.email, "main@acme.uz");
  EXPECT_EQ(c.sms.providers[1].settings.eskiz.from, "ACME");
  EXPECT_EQ(c.sms.providers[0].settings.eskiz.from, "4546");  // Eskiz's default
}

}  // namespace
}  // namespace chopar::app
