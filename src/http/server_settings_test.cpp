#include <gtest/gtest.h>

#include "http/server.hpp"

namespace chopar::http {
namespace {

TEST(ListenAddressTest, ParsesHostAndPort) {
  Settings settings;
  ApplyListenAddress("127.0.0.1:8080", settings);
  EXPECT_EQ(settings.host, "127.0.0.1");
  EXPECT_EQ(settings.port, 8080);
  ApplyListenAddress("[::1]:0", settings);
  EXPECT_EQ(settings.host, "::1");
  EXPECT_EQ(settings.port, 0);
  ApplyListenAddress("0.0.0.0:65535", settings);
  EXPECT_EQ(settings.host, "0.0.0.0");
  EXPECT_EQ(settings.port, 65535);
  ApplyListenAddress(":9000", settings);
  EXPECT_EQ(settings.host, "0.0.0.0");
  EXPECT_EQ(settings.port, 9000);
  ApplyListenAddress("localhost:8080", settings);
  EXPECT_EQ(settings.host, "127.0.0.1");
}

TEST(ListenAddressTest, RefusesMalformedAddresses) {
  Settings settings;
  for (const char* bad : {"", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:80x",
                          "example.com:8080", "[::1]:-1", "[::1:80"}) {
    EXPECT_THROW(ApplyListenAddress(bad, settings), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace chopar::http
