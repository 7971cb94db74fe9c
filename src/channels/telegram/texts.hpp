#pragma once

#include <string_view>

namespace chopar::channels::telegram {

// What the bot says in the connect flow, per locale ("uz", "en"; anything
// else falls back to English, as channels::WordsFor does). Plain text, safe
// for parse_mode HTML as it is.
struct TelegramTexts {
  std::string_view connected;       // /start <token> bound this chat
  std::string_view link_expired;    // the token's time ran out
  std::string_view link_invalid;    // no such token
  std::string_view link_used;       // the token already bound another chat
  std::string_view how_to_connect;  // a bare /start
};
const TelegramTexts& TelegramTextsFor(std::string_view locale);

}  // namespace chopar::channels::telegram
