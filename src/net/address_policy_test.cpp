#include "net/address_policy.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

namespace chopar::net {
namespace {

sockaddr_storage Address(const char* text) {
  sockaddr_storage storage{};
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    return storage;
  }
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  v4->sin_family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, text, &v4->sin_addr), 1) << text;
  return storage;
}

bool Public(const char* text) {
  const sockaddr_storage storage = Address(text);
  return IsPublicAddress(reinterpret_cast<const sockaddr&>(storage));
}

TEST(AddressPolicyTest, LoopbackPrivateLinkLocalAndMetadataAreNotPublic) {
  for (const char* address : {"127.0.0.1",
                              "127.255.0.9",
                              "10.0.0.1",
                              "10.255.255.255",
                              "172.16.0.1",
                              "172.31.255.254",
                              "192.168.1.1",
                              "169.254.169.254",
                              "169.254.0.1",
                              "0.0.0.0",
                              "100.64.0.1",
                              "224.0.0.1",
                              "255.255.255.255",
                              "::",
                              "::1",
                              "fc00::1",
                              "fd12:3456::1",
                              "fe80::1",
                              "febf::1",
                              "ff02::1",
                              "::ffff:127.0.0.1",
                              "::ffff:10.1.2.3",
                              "::ffff:169.254.169.254",
                              "64:ff9b::a9fe:a9fe",
                              "::127.0.0.1",
                              "2002:7f00:1::1"}) {
    EXPECT_FALSE(Public(address)) << address;
  }
}

TEST(AddressPolicyTest, OrdinaryAddressesArePublic) {
  for (const char* address : {"8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1",
                              "142.250.74.110", "2607:f8b0:4004:800::200e", "::ffff:8.8.8.8",
                              "64:ff9b::808:808", "2a00:1450:4001:82a::200a"}) {
    EXPECT_TRUE(Public(address)) << address;
  }
}

TEST(AddressPolicyTest, LiteralsInEveryFormCurlAccepts) {
  for (const char* host : {"127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "[::1]",
                           "::1", "[::ffff:127.0.0.1]", "fe80::1%eth0", "10.1"}) {
    EXPECT_EQ(IsPublicAddressLiteral(host), false) << host;
  }
  EXPECT_EQ(IsPublicAddressLiteral("8.8.8.8"), true);
  EXPECT_EQ(IsPublicAddressLiteral("[2607:f8b0::1]"), true);
  EXPECT_EQ(IsPublicAddressLiteral("push.example"), std::nullopt);
}

TEST(AddressPolicyTest, LocalhostNamesAreNotPublicHosts) {
  for (const char* host : {"localhost", "LOCALHOST", "localhost.", "push.localhost", "127.0.0.1"}) {
    EXPECT_FALSE(IsPublicHost(host)) << host;
  }
  EXPECT_TRUE(IsPublicHost("fcm.googleapis.com"));
  EXPECT_TRUE(IsPublicHost("updates.push.services.mozilla.com"));
}

TEST(AddressPolicyTest, UrlHostIsWhatCurlWouldConnectTo) {
  EXPECT_EQ(UrlHost("https://FCM.googleapis.com/fcm/send/abc"), "fcm.googleapis.com");
  EXPECT_EQ(UrlHost("https://user@127.0.0.1:8443/x"), "127.0.0.1");
  EXPECT_EQ(UrlHost("https://[::1]/x"), "::1");
  EXPECT_EQ(UrlHost("https://push.example@169.254.169.254/"), "169.254.169.254");
  EXPECT_EQ(UrlHost("not a url"), std::nullopt);
}

}  // namespace
}  // namespace chopar::net
