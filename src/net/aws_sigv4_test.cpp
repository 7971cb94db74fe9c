#include "net/aws_sigv4.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace chopar::net {
namespace {

namespace fs = std::filesystem;

const AwsCredentials kCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const AwsScope kScope{"us-east-1", "service"};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A test's .req: "METHOD path[?query] HTTP/1.1", headers ("Name:value",
// a line starting with a space continuing the one before), a blank line,
// the body.
SigV4Request ParseRequest(const std::string& text) {
  SigV4Request request;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const auto first_space = line.find(' ');
  const auto last_space = line.rfind(' ');
  request.method = line.substr(0, first_space);
  const std::string target = line.substr(first_space + 1, last_space - first_space - 1);
  const auto question = target.find('?');
  request.path = target.substr(0, question);
  if (question != std::string::npos) request.query = target.substr(question + 1);
  while (std::getline(in, line) && !line.empty()) {
    if (line[0] == ' ' && !request.headers.empty()) {
      request.headers.back().second += "," + line.substr(line.find_first_not_of(' '));
      continue;
    }
    const auto colon = line.find(':');
    request.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  std::ostringstream body;
  body << in.rdbuf();
  request.body = body.str();
  return request;
}

std::string HeaderOf(const SigV4Request& request, const std::string& name) {
  for (const auto& [key, value] : request.headers) {
    if (key == name) return value;
  }
  return "";
}

struct SuiteCase {
  std::string name;
  fs::path stem;  // the folder's files without their extension
};

std::vector<SuiteCase> SuiteCases() {
  std::vector<SuiteCase> cases;
  for (const auto& entry : fs::recursive_directory_iterator(CHOPAR_SIGV4_SUITE_DIR)) {
    if (entry.path().extension() != ".req") continue;
    fs::path stem = entry.path();
    stem.replace_extension();
    cases.push_back({stem.filename().string(), stem});
  }
  std::sort(cases.begin(), cases.end(),
            [](const SuiteCase& a, const SuiteCase& b) { return a.name < b.name; });
  return cases;
}

TEST(AwsSigV4Test, SignsEveryRequestOfAwsTestSuiteAsItsFilesSay) {
  const std::vector<SuiteCase> cases = SuiteCases();
  ASSERT_GE(cases.size(), 30u) << "the suite's files are missing";
  int compared = 0;
  for (const SuiteCase& c : cases) {
    SCOPED_TRACE(c.name);
    SigV4Request request = ParseRequest(ReadFile(c.stem.string() + ".req"));
    // Two cases' files disagree with each other (the suite was edited
    // after some were generated). post-x-www-form-urlencoded: the .creq and
    // .sts sign Content-Length, the .authz does not — the .authz is what AWS
    // checks, so it alone is compared, for the request without the header.
    // post-x-www-form-urlencoded-parameters: the .sts and .authz were made
    // for an older request ("charset=utf8", no Content-Length; the .sts's
    // hash is that canonical request's) — only the .creq is of this .req.
    const bool authz_only = c.name == "post-x-www-form-urlencoded";
    const bool creq_only = c.name == "post-x-www-form-urlencoded-parameters";
    if (authz_only) {
      std::erase_if(request.headers, [](const auto& h) { return h.first == "Content-Length"; });
    }
    const SigV4Signature signature =
        SignV4(request, kCredentials, kScope, HeaderOf(request, "X-Amz-Date"));
    if (fs::exists(c.stem.string() + ".creq") && !authz_only) {
      EXPECT_EQ(signature.canonical_request, ReadFile(c.stem.string() + ".creq"));
    }
    if (fs::exists(c.stem.string() + ".sts") && !authz_only && !creq_only) {
      EXPECT_EQ(signature.string_to_sign, ReadFile(c.stem.string() + ".sts"));
    }
    if (fs::exists(c.stem.string() + ".authz") && !creq_only) {
      EXPECT_EQ(signature.authorization, ReadFile(c.stem.string() + ".authz"));
      ++compared;
    }
  }
  EXPECT_GE(compared, 30);
}

TEST(AwsSigV4Test, AChangedByteChangesTheSignature) {
  SigV4Request request;
  request.method = "POST";
  request.path = "/v2/email/outbound-emails";
  request.headers = {{"Host", "email.eu-central-1.amazonaws.com"},
                     {"X-Amz-Date", "20261206T120000Z"},
                     {"Content-Type", "application/json"}};
  request.body = R"({"Content": {}})";
  const AwsScope ses{"eu-central-1", "ses"};
  const std::string signed_once =
      SignV4(request, kCredentials, ses, "20261206T120000Z").authorization;
  EXPECT_TRUE(signed_once.starts_with(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261206/eu-central-1/ses/aws4_request, "
      "SignedHeaders=content-type;host;x-amz-date, Signature="));
  request.body += " ";
  EXPECT_NE(SignV4(request, kCredentials, ses, "20261206T120000Z").authorization, signed_once);
  EXPECT_THROW(SignV4(request, kCredentials, ses, "2026-12-06"), std::invalid_argument);
}

TEST(AwsSigV4Test, AmzDateIsUtcToTheSecond) {
  EXPECT_EQ(AmzDate(std::chrono::system_clock::from_time_t(1440938160)), "20150830T123600Z");
}

}  // namespace
}  // namespace chopar::net
