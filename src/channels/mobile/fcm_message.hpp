#pragma once

#include <string>
#include <string_view>

#include "channels/mobile/push_content.hpp"
#include "channels/mobile/push_outcome.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::mobile {

// FCM HTTP v1: the request that sends one push to one device, and what its
// answer means. Pure and thread-safe.

inline constexpr std::string_view kFcmBaseUrl = "https://fcm.googleapis.com";

// base_url + "/v1/projects/<project_id>/messages:send" (base_url without a
// trailing slash: kFcmBaseUrl, or a fake's URL in tests).
std::string FcmSendUrl(std::string_view base_url, std::string_view project_id);

// The JSON body of messages:send for `device_token`:
//   {"message":{"token":…,
//     "notification":{"title":…,"body":…,"image"?:…},
//     "data"?:{…},
//     "android"?:{"collapse_key"?:…,"notification"?:{"sound"?:…}},
//     "apns"?:{"payload":{"aps":{"badge"?:…,"sound"?:…}}}}}
// Objects that would be empty are left out ("data" without entries,
// "android" without a collapse key or sound, "apns" without badge or sound).
// Invalid UTF-8 in a text is replaced (U+FFFD), never an exception.
std::string FcmSendBody(std::string_view device_token, const PushContent& content);

// What FCM's answer to messages:send means (`now`: when it came, the base of
// an HTTP-date Retry-After):
//   200                                   kSent, message_id = "name"
//   errorCode UNREGISTERED                kDeviceGone
//   errorCode SENDER_ID_MISMATCH          kDeviceGone (the token is another project's)
//   errorCode INVALID_ARGUMENT            kDeviceGone when the fault is the token
//                                         (a BadRequest field violation on
//                                         "message.token", or a message naming the
//                                         registration token), else kPermanent
//   errorCode THIRD_PARTY_AUTH_ERROR      kPermanent: the APNs/web push credentials
//                                         in the Firebase project are wrong, which
//                                         no retry or new access token mends
//   errorCode QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL, HTTP 429, 5xx
//                                         kRetry, retry_after from Retry-After
//   HTTP 401 otherwise                    kRetryWithNewToken
//   anything else                         kPermanent
// The errorCode is read from the error's details entry of @type
// "type.googleapis.com/google.firebase.fcm.v1.FcmError". detail holds the
// status, the errorCode (or the error's "status") and the error's message.
// A response without an HTTP answer (status 0) is kRetry; a caller that
// must not repeat a send that may have arrived checks
// channels::UnansweredHttpOutcome first.
[[nodiscard]] PushOutcome ClassifyFcmResponse(const net::HttpResponse& response,
                                              core::TimePoint now);

}  // namespace chopar::channels::mobile
