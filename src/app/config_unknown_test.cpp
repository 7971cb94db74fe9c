#include <gtest/gtest.h>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

TEST_F(ConfigTest, AnUnknownKeyInASectionNamesTheClosestKey) {
  EXPECT_EQ(FileRefusal("[server]\napi_kye = \"secret\""),
            "config: unknown key [server] api_kye (did you mean api_key?)");
  EXPECT_EQ(FileRefusal("[delivery]\nbatchsize = 5"),
            "config: unknown key [delivery] batchsize (did you mean batch?)");
  EXPECT_EQ(FileRefusal("[channels.telegram]\nbot_tokn = \"1:abc\""),
            "config: unknown key [channels.telegram] bot_tokn (did you mean bot_token?)");
  EXPECT_EQ(FileRefusal("[server]\nAPI_KEY = \"secret\""),
            "config: unknown key [server] API_KEY (did you mean api_key?)");
  EXPECT_EQ(FileRefusal("[limits.hourly]\nviber = 5"), "config: unknown key [limits.hourly] viber");
}

TEST_F(ConfigTest, AKeyOutsideItsSectionNamesTheSectionItBelongsTo) {
  EXPECT_EQ(FileRefusal("api_key = \"secret\"\n[server]\nlisten = \":80\""),
            "config: unknown key api_key outside any section (did you mean [server] api_key?)");
  EXPECT_EQ(FileRefusal("[limits]\nemail = 20"),
            "config: unknown key [limits] email (did you mean [limits.hourly] email?)");
  EXPECT_EQ(
      FileRefusal("[channels]\nbot_token = \"1:abc\""),
      "config: unknown key [channels] bot_token (did you mean [channels.telegram] bot_token?)");
  EXPECT_EQ(FileRefusal("verbose = true"), "config: unknown key verbose outside any section");
}

TEST_F(ConfigTest, AnUnknownSectionNamesTheClosestSection) {
  EXPECT_EQ(FileRefusal("[nonsense]\nanything = 1"), "config: unknown section [nonsense]");
  EXPECT_EQ(FileRefusal("[nonsense]"), "config: unknown section [nonsense]");
  EXPECT_EQ(FileRefusal("[servre]\nlisten = \":80\""),
            "config: unknown section [servre] (did you mean [server]?)");
  EXPECT_EQ(FileRefusal("[channel.email]\nfrom = \"a@b.uz\""),
            "config: unknown section [channel.email] (did you mean [channels.email]?)");
  EXPECT_EQ(FileRefusal("[channels.emial]\nfrom = \"a@b.uz\""),
            "config: unknown section [channels.emial] (did you mean [channels.email]?)");
  EXPECT_EQ(FileRefusal("[telegram]\nbot_token = \"1:abc\""),
            "config: unknown section [telegram] (did you mean [channels.telegram]?)");
  EXPECT_EQ(FileRefusal("[limits.daily]\nsms = 3"),
            "config: unknown section [limits.daily] (did you mean [limits.hourly]?)");
  EXPECT_EQ(FileRefusal("[channels.viber]\nprovider = \"sink\""),
            "config: unknown section [channels.viber]");
  EXPECT_EQ(FileRefusal("[[jobs]]\nname = \"weekly\""), "config: unknown section [jobs]");
}

TEST_F(ConfigTest, AKnownSectionMustBeATable) {
  EXPECT_EQ(FileRefusal("server = \":80\""), "config: [server] must be a table");
  EXPECT_EQ(FileRefusal("[[delivery]]\nbatch = 5"), "config: [delivery] must be a table");
  EXPECT_EQ(FileRefusal("channels = 5"), "config: [channels] must be a table");
}

TEST_F(ConfigTest, AnUnknownEnvironmentVariableNamesTheClosestVariable) {
  EXPECT_EQ(EnvRefusal({{"CHOPAR_DELIVERY_BATCHSIZE", "5"}}),
            "config: unknown environment variable CHOPAR_DELIVERY_BATCHSIZE (did you mean "
            "CHOPAR_DELIVERY_BATCH?)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_SERVER_API_KYE", "secret"}}),
            "config: unknown environment variable CHOPAR_SERVER_API_KYE (did you mean "
            "CHOPAR_SERVER_API_KEY?)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_SERVR_LISTEN", ":80"}}),
            "config: unknown environment variable CHOPAR_SERVR_LISTEN (did you mean "
            "CHOPAR_SERVER_LISTEN?)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_CHANNELS_TELEGRAM_TOKEN", "1:abc"}}),
            "config: unknown environment variable CHOPAR_CHANNELS_TELEGRAM_TOKEN "
            "(did you mean CHOPAR_CHANNELS_TELEGRAM_BOT_TOKEN?)");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_NONSENSE", "1"}}),
            "config: unknown environment variable CHOPAR_NONSENSE");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_", "1"}}), "config: unknown environment variable CHOPAR_");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_TESTING", "1"}}),
            "config: unknown environment variable CHOPAR_TESTING")
      << "only CHOPAR_TEST_ is reserved";
}

TEST_F(ConfigTest, UnknownNamesAreRefusedWhateverElseIsRight) {
  EXPECT_EQ(Refusal("[server]\nlisten = \":80\"\n",
                    {{"CHOPAR_DELIVERY_BATCH", "5"}, {"CHOPAR_DELIVERY_BACH", "5"}}),
            "config: unknown environment variable CHOPAR_DELIVERY_BACH (did you mean "
            "CHOPAR_DELIVERY_BATCH?)");
  EXPECT_EQ(
      Refusal("[server]\nlisten = \":80\"\nlisen = \":81\"\n", {{"CHOPAR_DELIVERY_BATCH", "5"}}),
      "config: unknown key [server] lisen (did you mean listen?)");
}

}  // namespace
}  // namespace chopar::app
