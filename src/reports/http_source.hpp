#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_client.hpp"
#include "reports/source.hpp"

namespace chopar::reports {

// Why `url` is not an absolute http(s) URL with a host ("unsupported scheme
// \"ftp\"", "no host", …), or nullopt when it is. Pure (libcurl's URL
// parser).
std::optional<std::string> HttpUrlProblem(std::string_view url);

// `url` with the parameters appended to its query, URL-encoded. Throws
// std::invalid_argument for a URL HttpUrlProblem refuses.
std::string WithQuery(std::string_view url, const std::map<std::string, std::string>& params);

// `url` as it may be shown (GET /v1/reports, logs): without user
// credentials and query, which may carry secrets ("https://app/stats?…").
std::string RedactedUrl(std::string_view url);

// The content from an application's HTTP endpoint (docs/configuration.md
// "[[reports]]"). Fetch() sends GET <source>?job=<name>&period=<key>&
// from=<RFC 3339>&to=<RFC 3339> with the job's timeout and reads a JSON
// object:
//   summary: {"text": "…"} (optional "title");
//   anomaly: {"metrics": {"orders": 30}, "baseline": {"orders": 100}}, or
//            "history": {"orders": [80, 120]} (same weekday, newest first;
//            BaselineFromHistory averages) instead of "baseline".
// A transport failure, a timeout, a non-2xx status or a body of another
// shape throws SourceError naming it. `http` is shared and must outlive
// the source; thread-safe.
class HttpSource {
 public:
  explicit HttpSource(net::HttpClient& http) : http_(http) {}
  ReportContent Fetch(const ReportJob& job, const ReportPeriod& period);

 private:
  net::HttpClient& http_;
};

// The content of an answer's JSON body for a job of `kind`. Throws
// SourceError for a body of the wrong shape. Pure.
ReportContent ParseSourceAnswer(ReportKind kind, const nlohmann::json& body);

}  // namespace chopar::reports
