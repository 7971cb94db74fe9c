#include "channels/sms/eskiz_form.hpp"

#include <gtest/gtest.h>

namespace chopar::channels::sms {
namespace {

TEST(EskizFormTest, MultipartCarriesEveryFieldAndParsesBack) {
  const std::vector<FormField> fields = {{"mobile_phone", "998901234567"},
                                         {"message", "Vazifa — oʻqing\r\nikkinchi qator"},
                                         {"from", "4546"}};
  const MultipartForm form = BuildMultipartForm(fields);
  ASSERT_TRUE(form.content_type.starts_with("multipart/form-data; boundary="));
  const std::string boundary = form.content_type.substr(form.content_type.find('=') + 1);
  EXPECT_TRUE(form.body.starts_with("--" + boundary + "\r\n"));
  EXPECT_TRUE(form.body.ends_with("--" + boundary + "--\r\n"));
  const auto parsed = ParseFormFields(form.body);
  ASSERT_EQ(parsed.size(), 3u);
  for (const auto& f : fields) EXPECT_EQ(parsed.at(f.name), f.value);
}

TEST(EskizFormTest, BoundariesDiffer) {
  const std::vector<FormField> fields = {{"a", "b"}};
  EXPECT_NE(BuildMultipartForm(fields).content_type, BuildMultipartForm(fields).content_type);
}

TEST(EskizFormTest, ParsesUrlEncoded) {
  const auto fields = ParseFormFields("request_id=ab%2Dcd&status=DELIVRD&text=a+b%20c&empty=&flag&bad=%zz");
  EXPECT_EQ(fields.at("request_id"), "ab-cd");
  EXPECT_EQ(fields.at("status"), "DELIVRD");
  EXPECT_EQ(fields.at("text"), "a b c");
  EXPECT_EQ(fields.at("empty"), "");
  EXPECT_EQ(fields.at("flag"), "");
  EXPECT_EQ(fields.at("bad"), "%zz");
}

}  // namespace
}  // namespace chopar::channels::sms
