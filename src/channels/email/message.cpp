#include "channels/email/message.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

#include "core/encoding.hpp"

namespace chopar::channels::email {
namespace {

constexpr std::size_t kFoldAt = 78;
constexpr std::string_view kAddressSpecials = "<>()[],;:\\\"";

bool IsAscii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Control characters (CR and LF above all) become spaces: header values are
// one logical line.
std::string WithoutControls(std::string_view text) {
  std::string out(text);
  for (auto& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = ' ';
  }
  return out;
}

// Length of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
std::size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return lead < 0xF0 ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

std::string EncodedWords(std::string_view text, std::size_t first_prefix) {
  std::string out;
  std::size_t prefix = first_prefix;
  std::size_t at = 0;
  while (at < text.size()) {
    // Raw bytes that fit: 12 characters of "=?UTF-8?B?" + "?=", the rest
    // base64 (4 per 3 bytes), within both the fold column and RFC 2047's 75.
    const std::size_t room = std::min<std::size_t>(75, kFoldAt > prefix + 12 ? kFoldAt - prefix : 12);
    const std::size_t max_bytes = std::max<std::size_t>(6, (room - 12) / 4 * 3);
    std::size_t end = at;
    while (end < text.size()) {
      const std::size_t next = std::min(text.size(), end + SequenceLength(static_cast<unsigned char>(text[end])));
      if (next - at > max_bytes && end > at) break;
      end = next;
    }
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + core::Base64Encode(text.substr(at, end - at)) + "?=";
    at = end;
    prefix = 1;
  }
  return out;
}

std::string FoldAscii(std::string_view text, std::size_t first_prefix) {
  std::string out;
  std::size_t column = first_prefix;
  std::size_t at = 0;
  while (at < text.size()) {
    // The next word with the spaces before it.
    std::size_t end = at;
    while (end < text.size() && text[end] == ' ') ++end;
    while (end < text.size() && text[end] != ' ') ++end;
    const std::string_view word = text.substr(at, end - at);
    if (column + word.size() > kFoldAt && at > 0 && word.front() == ' ') {
      out += "\r\n";
      column = 0;
    }
    out += word;
    column += word.size();
    at = end;
  }
  return out;
}

bool IsAtext(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) != std::string_view::npos;
}

char HexDigit(unsigned value) { return "0123456789ABCDEF"[value & 0xF]; }

void EncodeQpLine(std::string_view line, std::string& out) {
  std::size_t column = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    const bool last = i + 1 == line.size();
    auto token = [&](std::size_t at_column) {
      const bool literal = (c >= 33 && c <= 126 && c != '=' && !(c == '.' && at_column == 0)) ||
                           ((c == ' ' || c == '\t') && !last);
      if (literal) return std::string(1, static_cast<char>(c));
      return std::string{'=', HexDigit(c >> 4), HexDigit(c)};
    };
    std::string piece = token(column);
    if (column + piece.size() > 75) {
      out += "=\r\n";
      column = 0;
      piece = token(0);
    }
    out += piece;
    column += piece.size();
  }
}

}  // namespace

bool IsPlainAddress(std::string_view address) {
  const auto at = address.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= address.size()) return false;
  if (address.find('@', at + 1) != std::string_view::npos) return false;
  if (address.size() > 254) return false;
  return std::none_of(address.begin(), address.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7F || kAddressSpecials.find(c) != std::string_view::npos;
  });
}

std::optional<Mailbox> ParseMailbox(std::string_view text) {
  text = Trim(text);
  Mailbox mailbox;
  const auto open = text.rfind('<');
  if (open == std::string_view::npos) {
    mailbox.address = std::string(text);
  } else {
    const auto close = text.find('>', open);
    if (close == std::string_view::npos || !Trim(text.substr(close + 1)).empty()) return std::nullopt;
    mailbox.address = std::string(text.substr(open + 1, close - open - 1));
    std::string_view name = Trim(text.substr(0, open));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
      name = name.substr(1, name.size() - 2);
      for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '\\' && i + 1 < name.size()) ++i;
        mailbox.display_name += name[i];
      }
    } else {
      mailbox.display_name = std::string(name);
    }
  }
  if (!IsPlainAddress(mailbox.address)) return std::nullopt;
  return mailbox;
}

std::string EncodeUnstructured(std::string_view utf8, std::size_t name_length) {
  const std::string clean = WithoutControls(utf8);
  if (IsAscii(clean) && clean.find("=?") == std::string::npos) return FoldAscii(clean, name_length);
  return EncodedWords(clean, name_length);
}

std::string FormatMailbox(const Mailbox& mailbox) {
  const std::string name = WithoutControls(Trim(mailbox.display_name));
  if (name.empty()) return mailbox.address;
  const std::string angle = " <" + mailbox.address + ">";
  if (!IsAscii(name) || name.find("=?") != std::string::npos) return EncodedWords(name, 6) + angle;
  if (std::all_of(name.begin(), name.end(), [](char c) { return c == ' ' || IsAtext(c); })) return name + angle;
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"" + angle;
}

std::string EncodeQuotedPrintable(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  std::size_t start = 0;
  for (;;) {
    const auto end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    EncodeQpLine(line, out);
    if (end == std::string_view::npos) break;
    out += "\r\n";
    start = end + 1;
  }
  return out;
}

std::string FormatRfc5322Date(core::TimePoint time) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buffer;
}

std::string MakeMessageId(std::int64_t delivery_id, std::string_view from_address) {
  const auto at = from_address.rfind('@');
  const std::string_view domain = at == std::string_view::npos ? std::string_view("chopar.invalid") : from_address.substr(at + 1);
  return "<" + std::to_string(delivery_id) + "." + core::HexEncode(core::RandomBytes(12)) + "@" + std::string(domain) + ">";
}

std::string MakeBoundary() { return "=_chopar_" + core::HexEncode(core::RandomBytes(12)); }

std::string BuildMimeMessage(const EmailEnvelope& envelope, const EmailContent& content, std::string_view boundary) {
  const std::string b(boundary);
  std::string m;
  m.reserve(content.text.size() + content.html.size() + 1024);
  m += "From: " + FormatMailbox(envelope.from) + "\r\n";
  m += "To: " + envelope.to + "\r\n";
  m += "Subject: " + EncodeUnstructured(content.subject, 9) + "\r\n";
  m += "Date: " + FormatRfc5322Date(envelope.date) + "\r\n";
  m += "Message-ID: " + envelope.message_id + "\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Auto-Submitted: auto-generated\r\n";
  m += "List-Unsubscribe: <" + WithoutControls(content.unsubscribe_url) + ">\r\n";
  if (envelope.one_click_unsubscribe) m += "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n";
  m += "Content-Type: multipart/alternative;\r\n boundary=\"" + b + "\"\r\n";
  m += "\r\n";
  const auto part = [&](std::string_view type, std::string_view body) {
    m += "--" + b + "\r\n";
    m += "Content-Type: " + std::string(type) + "; charset=UTF-8\r\n";
    m += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
    m += EncodeQuotedPrintable(body);
    if (!m.ends_with("\r\n")) m += "\r\n";
  };
  part("text/plain", content.text);
  part("text/html", content.html);
  m += "--" + b + "--\r\n";
  return m;
}

}  // namespace chopar::channels::email
