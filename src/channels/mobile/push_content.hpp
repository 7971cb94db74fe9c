#pragma once

#include <map>
#include <optional>
#include <string>

namespace chopar::channels::mobile {

// What a mobile push shows and carries, the same for FCM and APNs; each
// provider's request builder places the fields where its payload wants them.
// Texts are UTF-8.
struct PushContent {
  std::string title;
  std::string body;
  // Handed to the app, not shown: string keys to string values (FCM's rule).
  std::map<std::string, std::string> data;
  std::optional<int> badge;
  std::optional<std::string> sound;  // "default" or a sound file of the app
  std::optional<std::string> image;  // an https URL
  // FCM's Android collapse key: a newer message with the same key replaces
  // an undelivered older one.
  std::optional<std::string> collapse_key;
};

}  // namespace chopar::channels::mobile
