#pragma once

// A small libcurl client for the HTTP tests (header-only: only test binaries
// link libcurl). Blocking requests on one easy handle, so consecutive
// requests reuse the connection the way a keep-alive client does, and a group
// of Server-Sent Events streams driven by one multi handle on the calling
// thread.

#include <curl/curl.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/curl_handles.hpp"

namespace chopar::http::testing {

using net::CurlEasy;
using net::CurlMulti;
using net::CurlSlist;

inline CurlSlist MakeHeaderList(const std::vector<std::string>& headers) {
  curl_slist* list = nullptr;
  for (const auto& header : headers) {
    curl_slist* next = curl_slist_append(list, header.c_str());
    if (next == nullptr) {
      curl_slist_free_all(list);
      throw std::runtime_error("curl_slist_append failed");
    }
    list = next;
  }
  return CurlSlist(list);
}

inline size_t AppendToString(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

struct HttpResult {
  long status = 0;
  std::string body;
  std::string content_type;
  std::string raw_headers;
  long new_connections = 0;  // 0: the request went over a reused connection

  [[nodiscard]] nlohmann::json Json() const { return nlohmann::json::parse(body); }
  [[nodiscard]] std::string ErrorCode() const {
    try {
      return Json().at("error").at("code").get<std::string>();
    } catch (const std::exception&) {
      return "<no error code in: " + body.substr(0, 200) + ">";
    }
  }
};

// Blocking requests to http://127.0.0.1:<port>. Not thread-safe.
class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port)
      : base_("http://127.0.0.1:" + std::to_string(port)), curl_(curl_easy_init()) {
    if (!curl_) throw std::runtime_error("curl_easy_init failed");
  }

  HttpResult Request(const std::string& method, const std::string& path,
                     const std::string& body = "", const std::vector<std::string>& headers = {}) {
    CURL* curl = curl_.get();
    curl_easy_reset(curl);
    HttpResult result;
    const std::string url = base_ + path;
    auto header_list = MakeHeaderList(headers);
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 20000L);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (method == "GET") curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    if (!body.empty() || method == "POST" || method == "PUT") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list.get());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendToString);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendToString);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.raw_headers);
    const CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
      throw std::runtime_error(method + " " + path + ": " + curl_easy_strerror(code));
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &result.new_connections);
    const char* content_type = nullptr;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &content_type);
    if (content_type != nullptr) result.content_type = content_type;
    return result;
  }

  HttpResult Get(const std::string& path, const std::vector<std::string>& headers = {}) {
    return Request("GET", path, "", headers);
  }
  HttpResult Post(const std::string& path, const std::string& body,
                  const std::vector<std::string>& headers = {}) {
    return Request("POST", path, body, headers);
  }
  HttpResult Put(const std::string& path, const std::string& body,
                 const std::vector<std::string>& headers = {}) {
    return Request("PUT", path, body, headers);
  }
  HttpResult Delete(const std::string& path, const std::vector<std::string>& headers = {}) {
    return Request("DELETE", path, "", headers);
  }

 private:
  std::string base_;
  CurlEasy curl_;
};

struct SseEvent {
  std::string event;  // "message" when the stream named none
  std::string data;
  std::string id;
};

// Splits an event-stream text into its complete events; comments (": ping")
// are counted separately.
inline std::vector<SseEvent> ParseSseEvents(const std::string& text, int* comments = nullptr) {
  std::vector<SseEvent> events;
  SseEvent current;
  bool has_field = false;
  std::size_t start = 0;
  while (true) {
    const auto newline = text.find('\n', start);
    if (newline == std::string::npos) break;  // an incomplete line waits for more data
    const std::string line = text.substr(start, newline - start);
    start = newline + 1;
    if (line.empty()) {
      if (has_field) {
        if (current.event.empty()) current.event = "message";
        events.push_back(current);
      }
      current = {};
      has_field = false;
      continue;
    }
    if (line.front() == ':') {
      if (comments) ++*comments;
      continue;
    }
    const auto colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    has_field = true;
    if (field == "event") current.event = value;
    if (field == "data") current.data += value;
    if (field == "id") current.id = value;
  }
  return events;
}

// Many event streams on one curl multi handle, driven by RunUntil on the
// calling thread. Not thread-safe.
class SseGroup {
 public:
  explicit SseGroup(std::uint16_t port)
      : base_("http://127.0.0.1:" + std::to_string(port)), multi_(curl_multi_init()) {
    if (!multi_) throw std::runtime_error("curl_multi_init failed");
  }
  ~SseGroup() {
    for (auto& stream : streams_) {
      if (stream->easy) curl_multi_remove_handle(multi_.get(), stream->easy.get());
    }
  }
  SseGroup(const SseGroup&) = delete;
  SseGroup& operator=(const SseGroup&) = delete;

  // Opens GET <path> as an event stream; returns its index.
  int Open(const std::string& path, const std::vector<std::string>& headers = {}) {
    auto stream = std::make_unique<Stream>();
    stream->url = base_ + path;
    std::vector<std::string> all = headers;
    all.emplace_back("Accept: text/event-stream");
    stream->headers = MakeHeaderList(all);
    stream->easy.reset(curl_easy_init());
    CURL* easy = stream->easy.get();
    curl_easy_setopt(easy, CURLOPT_URL, stream->url.c_str());
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, stream->headers.get());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, AppendToString);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &stream->received);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, stream.get());
    curl_multi_add_handle(multi_.get(), easy);
    streams_.push_back(std::move(stream));
    return static_cast<int>(streams_.size()) - 1;
  }

  // Drives every transfer until `done()` holds or `limit` passes (a guard
  // against hanging, not a measurement). Returns done().
  bool RunUntil(const std::function<bool()>& done,
                std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      int running = 0;
      curl_multi_perform(multi_.get(), &running);
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi_.get(), &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        Stream* stream = nullptr;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &stream);
        stream->finished = true;
        stream->result = message->data.result;
      }
      if (done()) break;
      curl_multi_poll(multi_.get(), nullptr, 0, 50, nullptr);
    }
    return true;
  }

  const std::string& Received(int i) const { return streams_.at(i)->received; }
  std::vector<SseEvent> Events(int i) const { return ParseSseEvents(Received(i)); }
  int Comments(int i) const {
    int comments = 0;
    ParseSseEvents(Received(i), &comments);
    return comments;
  }
  bool Finished(int i) const { return streams_.at(i)->finished; }
  CURLcode Result(int i) const { return streams_.at(i)->result; }
  long Status(int i) const {
    long status = 0;
    curl_easy_getinfo(streams_.at(i)->easy.get(), CURLINFO_RESPONSE_CODE, &status);
    return status;
  }
  std::string ContentType(int i) const {
    const char* type = nullptr;
    curl_easy_getinfo(streams_.at(i)->easy.get(), CURLINFO_CONTENT_TYPE, &type);
    return type ? type : "";
  }
  // Hangs up stream i (the server should notice and forget it).
  void Close(int i) {
    auto& stream = *streams_.at(i);
    if (!stream.easy) return;
    curl_multi_remove_handle(multi_.get(), stream.easy.get());
    stream.easy.reset();
    stream.finished = true;
  }
  int size() const { return static_cast<int>(streams_.size()); }

 private:
  struct Stream {
    std::string url;
    CurlSlist headers;
    CurlEasy easy;
    std::string received;
    bool finished = false;
    CURLcode result = CURLE_OK;
  };
  std::string base_;
  CurlMulti multi_;
  std::vector<std::unique_ptr<Stream>> streams_;
};

}  // namespace chopar::http::testing
