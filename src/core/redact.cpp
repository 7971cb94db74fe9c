#include "core/redact.hpp"

#include <array>

#include "core/text.hpp"

namespace chopar::core {
namespace {

constexpr std::string_view kMask = "***";

constexpr bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
constexpr bool IsSchemeChar(char c) { return IsAlnum(c) || c == '+' || c == '-' || c == '.'; }
constexpr bool IsTokenChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }

// Where a URL written inside text ends: at a blank, a control byte, or a
// character that quotes or delimits it in prose, JSON and markup.
constexpr bool EndsUrl(char c) {
  return static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' ||
         c == '`' || c == '\\' || c == 0x7f;
}

// A query parameter whose value is a credential (see the header).
bool IsSecretParameter(std::string_view name) {
  const std::string lower = AsciiLower(name);
  constexpr std::array<std::string_view, 6> kContained = {"token",  "secret",    "password",
                                                          "passwd", "signature", "credential"};
  constexpr std::array<std::string_view, 6> kEnding = {"key", "sig", "auth", "code", "pass", "pwd"};
  for (std::string_view part : kContained) {
    if (lower.find(part) != std::string::npos) return true;
  }
  for (std::string_view end : kEnding) {
    if (lower.ends_with(end)) return true;
  }
  return false;
}

// The length of a Telegram bot token at `at` ("123456:AAE…": digits, ':',
// 30 or more token characters), 0 when there is none.
std::size_t BotTokenLength(std::string_view text, std::size_t at) {
  std::size_t i = at;
  while (i < text.size() && IsDigit(text[i])) ++i;
  if (i == at || i >= text.size() || text[i] != ':') return 0;
  const std::size_t secret_start = ++i;
  while (i < text.size() && IsTokenChar(text[i])) ++i;
  return i - secret_start >= 30 ? i - at : 0;
}

// Prose around URLs: bot tokens and libpq's `password=` values.
void AppendRedactedProse(std::string_view text, std::string& out) {
  std::size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !IsAlnum(text[i - 1]) ||
                            (i >= 3 && text.substr(i - 3, 3) == "bot" &&
                             (i == 3 || !IsAlnum(text[i - 4])));
    if (word_start && IsDigit(text[i])) {
      if (const std::size_t n = BotTokenLength(text, i); n > 0) {
        out += kMask;
        i += n;
        continue;
      }
    }
    constexpr std::string_view kPassword = "password=";
    if ((i == 0 || !IsAlnum(text[i - 1])) && StartsWithIgnoringCase(text.substr(i), kPassword)) {
      out.append(text.substr(i, kPassword.size()));
      i += kPassword.size();
      if (i < text.size() && text[i] == '\'') {  // a quoted value, \' and \\ escaped inside
        ++i;
        while (i < text.size() && text[i] != '\'') i += text[i] == '\\' ? 2 : 1;
        i = std::min(i + 1, text.size());
        out += "'***'";
      } else {
        while (i < text.size() && static_cast<unsigned char>(text[i]) > ' ') ++i;
        out += kMask;
      }
      continue;
    }
    out += text[i++];
  }
}

// A URL's path: a segment "bot<digits>:<token>" (the Telegram Bot API's
// shape) loses its token whatever its length.
void AppendRedactedPath(std::string_view path, std::string& out) {
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t end = std::min(path.find('/', i + 1), path.size());
    std::string_view segment = path.substr(i, end - i);
    if (segment.starts_with('/')) {
      out += '/';
      segment.remove_prefix(1);
    }
    std::size_t digits = 3;
    while (digits < segment.size() && IsDigit(segment[digits])) ++digits;
    if (segment.starts_with("bot") && digits > 3 && digits < segment.size() &&
        segment[digits] == ':') {
      out += "bot";
      out += kMask;
    } else {
      AppendRedactedProse(segment, out);
    }
    i = end;
  }
}

// A URL's query or fragment ("?a=1&token=…", "#access_token=…"): the values
// of credential parameters.
void AppendRedactedParameters(std::string_view parameters, std::string& out) {
  if (parameters.empty()) return;
  out += parameters.front();  // '?' or '#'
  std::size_t i = 1;
  while (i <= parameters.size()) {
    const std::size_t next = std::min(parameters.find_first_of("&;", i), parameters.size());
    const std::string_view parameter = parameters.substr(i, next - i);
    const std::size_t equals = parameter.find('=');
    if (equals != std::string_view::npos && IsSecretParameter(parameter.substr(0, equals))) {
      out.append(parameter.substr(0, equals + 1));
      out += kMask;
    } else {
      AppendRedactedProse(parameter, out);
    }
    if (next < parameters.size()) out += parameters[next];
    i = next + 1;
  }
}

// One URL ("scheme://authority/path?query#fragment"): its user info, its
// credential parameters and bot tokens in its path.
void AppendRedactedUrl(std::string_view url, std::string& out) {
  const std::size_t authority_start = url.find("://") + 3;
  const std::size_t authority_end = std::min(url.find_first_of("/?#", authority_start), url.size());
  const std::size_t at = url.substr(0, authority_end).rfind('@');
  out.append(url.substr(0, authority_start));
  if (at != std::string_view::npos && at > authority_start) {
    out += kMask;
    out.append(url.substr(at, authority_end - at));
  } else {
    out.append(url.substr(authority_start, authority_end - authority_start));
  }

  const std::size_t path_end = std::min(url.find_first_of("?#", authority_end), url.size());
  AppendRedactedPath(url.substr(authority_end, path_end - authority_end), out);
  const std::size_t fragment_start = std::min(url.find('#', path_end), url.size());
  AppendRedactedParameters(url.substr(path_end, fragment_start - path_end), out);
  AppendRedactedParameters(url.substr(fragment_start), out);
}

// Where the scheme of a "://" at `separator` starts (letters first, then
// letters, digits, '+', '-', '.'), not before `floor`; npos when there is none.
std::size_t SchemeStart(std::string_view text, std::size_t separator, std::size_t floor) {
  std::size_t start = separator;
  while (start > floor && IsSchemeChar(text[start - 1])) --start;
  while (start < separator && !IsAlpha(text[start])) ++start;
  return start < separator ? start : std::string_view::npos;
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;  // text before it is in `out`
  std::size_t separator = text.find("://");
  while (separator != std::string_view::npos) {
    const std::size_t start = SchemeStart(text, separator, done);
    if (start == std::string_view::npos) {
      separator = text.find("://", separator + 3);
      continue;
    }
    std::size_t end = separator + 3;
    while (end < text.size() && !EndsUrl(text[end])) ++end;
    // A list of URLs without blanks ("nats://a,nats://b"): each on its own.
    std::size_t next = text.find("://", separator + 3);
    while (next != std::string_view::npos && next < end) {
      const std::size_t next_start = SchemeStart(text, next, separator + 3);
      if (next_start != std::string_view::npos) {
        end = next_start;
        break;
      }
      next = text.find("://", next + 3);
    }
    AppendRedactedProse(text.substr(done, start - done), out);
    AppendRedactedUrl(text.substr(start, end - start), out);
    done = end;
    separator = next;
  }
  AppendRedactedProse(text.substr(done), out);
  return out;
}

}  // namespace chopar::core
