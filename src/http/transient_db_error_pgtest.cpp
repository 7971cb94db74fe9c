// A database that cannot do a request now but may in a moment — a lost
// serialization race, a deadlock, a lock or statement timeout, a server
// shutting down — answers 503 unavailable with Retry-After (docs/api.md
// "Conventions"), never 500; the same request succeeds once it can.
#include <gtest/gtest.h>

#include <string>

#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

// The Retry-After header of an answer, "" when it has none.
std::string RetryAfter(const HttpResult& result) {
  constexpr std::string_view kName = "\r\nretry-after: ";
  std::string headers = "\r\n" + result.raw_headers;
  for (char& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto at = headers.find(kName);
  if (at == std::string::npos) return "";
  const auto start = at + kName.size();
  return headers.substr(start, headers.find('\r', start) - start);
}

class TransientDbErrorTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    // A write to users raises whatever SQLSTATE public.raise_next holds.
    db_->Connect().ExecScript(
        "CREATE TABLE public.raise_next (code text NOT NULL);"
        "CREATE FUNCTION public.raise_next() RETURNS trigger LANGUAGE plpgsql AS $$"
        " DECLARE c text; BEGIN"
        "  SELECT code INTO c FROM public.raise_next;"
        "  IF c IS NOT NULL THEN RAISE EXCEPTION 'injected %', c USING ERRCODE = c; END IF;"
        "  RETURN NEW;"
        " END $$;"
        "CREATE TRIGGER raise_next BEFORE INSERT OR UPDATE ON chopar.users"
        " FOR EACH ROW EXECUTE FUNCTION public.raise_next();");
  }
  void RaiseOnWrite(const std::string& code) {
    db_->Connect().ExecScript("DELETE FROM public.raise_next;" +
                              (code.empty() ? std::string()
                                            : "INSERT INTO public.raise_next VALUES ('" + code +
                                                  "');"));
  }
};

TEST_F(TransientDbErrorTest, ARaceOrATimeoutOfTheDatabaseIs503WithRetryAfterNot500) {
  for (const char* code : {"40001", "40P01", "55P03", "57014"}) {
    RaiseOnWrite(code);
    const auto answer = client().Put("/v1/users/7", R"({"email": "a@example.uz"})", {kAuth});
    EXPECT_EQ(answer.status, 503) << code << ": " << answer.body;
    EXPECT_EQ(answer.ErrorCode(), "unavailable") << code;
    EXPECT_EQ(RetryAfter(answer), "1") << code << ": " << answer.raw_headers;
  }
  RaiseOnWrite("");
  EXPECT_EQ(client().Put("/v1/users/7", R"({"email": "a@example.uz"})", {kAuth}).status, 200);
}

// A real lock timeout, raised by the server: a write to users also locks a
// row that another transaction holds, waiting no longer than lock_timeout.
TEST_F(TransientDbErrorTest, ALockHeldByAnotherTransactionPastLockTimeoutIs503) {
  db_->Connect().ExecScript(
      "CREATE TABLE public.contended (id int PRIMARY KEY); INSERT INTO public.contended VALUES (1);"
      "CREATE FUNCTION public.lock_contended() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
      "  PERFORM set_config('lock_timeout', '100ms', true);"
      "  PERFORM 1 FROM public.contended WHERE id = 1 FOR UPDATE;"
      "  RETURN NEW;"
      " END $$;"
      "CREATE TRIGGER lock_contended BEFORE INSERT OR UPDATE ON chopar.users"
      " FOR EACH ROW EXECUTE FUNCTION public.lock_contended();");
  auto holder = db_->Connect();
  holder.ExecScript("BEGIN; SELECT * FROM public.contended WHERE id = 1 FOR UPDATE;");
  const auto answer = client().Put("/v1/users/7", R"({"email": "a@example.uz"})", {kAuth});
  EXPECT_EQ(answer.status, 503) << answer.body;
  EXPECT_EQ(answer.ErrorCode(), "unavailable");
  EXPECT_EQ(RetryAfter(answer), "1") << answer.raw_headers;
  holder.ExecScript("ROLLBACK");
  EXPECT_EQ(client().Put("/v1/users/7", R"({"email": "a@example.uz"})", {kAuth}).status, 200);
}

}  // namespace
}  // namespace chopar::http::testing
