#pragma once

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

namespace chopar::core {

// Small ASCII text helpers for protocol text (header names, schemes, CSV
// fields, commands): locale-independent, and bytes >= 0x80 (UTF-8) pass
// through unchanged. Pure and thread-safe.

constexpr char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

constexpr bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return AsciiLower(x) == AsciiLower(y); });
}

constexpr bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoringCase(text.substr(0, prefix.size()), prefix);
}

inline bool ContainsIgnoringCase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         }) != haystack.end();
}

// `text` without the characters of `chars` at either end (a view into it).
constexpr std::string_view TrimAny(std::string_view text, std::string_view chars) {
  const auto first = text.find_first_not_of(chars);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(chars);
  return text.substr(first, last - first + 1);
}

// `text` without leading and trailing spaces and tabs.
constexpr std::string_view TrimBlanks(std::string_view text) { return TrimAny(text, " \t"); }

// `text` without leading and trailing spaces, tabs and line ends.
constexpr std::string_view TrimWhitespace(std::string_view text) {
  return TrimAny(text, " \t\r\n");
}

// A base URL without its trailing slashes ("https://x.example/" →
// "https://x.example"), so that a path can be appended to it.
constexpr std::string_view WithoutTrailingSlashes(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return url;
}

// "a, b or c": choices as a sentence lists them ("a" alone, "" for none).
template <typename Choices>
std::string ChoiceText(const Choices& choices) {
  std::string text;
  std::size_t i = 0;
  for (const auto& choice : choices) {
    if (i > 0) text += i + 1 == std::size(choices) ? " or " : ", ";
    text += std::string_view(choice);
    ++i;
  }
  return text;
}

}  // namespace chopar::core
