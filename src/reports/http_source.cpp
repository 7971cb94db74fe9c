#include "reports/http_source.hpp"

#include <curl/curl.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/time_format.hpp"
#include "net/curl_handles.hpp"

namespace chopar::reports {
namespace {

using net::CurlString;
using net::CurlUrl;

// The parsed URL, or the reason it does not parse as an http(s) URL with a host.
struct ParsedUrl {
  CurlUrl handle;
  std::optional<std::string> problem;
};

std::optional<std::string> Part(CURLU* url, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(url, part, &text, 0) != CURLUE_OK) return std::nullopt;
  CurlString owned(text);
  return std::string(owned.get());
}

ParsedUrl Parse(std::string_view url) {
  ParsedUrl parsed{CurlUrl(curl_url()), std::nullopt};
  if (!parsed.handle) throw std::bad_alloc();
  const std::string text(url);
  if (text.find("://") == std::string::npos) {
    parsed.problem = "it must begin with http:// or https://";
    return parsed;
  }
  if (const CURLUcode code = curl_url_set(parsed.handle.get(), CURLUPART_URL, text.c_str(), 0);
      code != CURLUE_OK) {
    parsed.problem = curl_url_strerror(code);
    return parsed;
  }
  const auto scheme = Part(parsed.handle.get(), CURLUPART_SCHEME);
  if (!scheme || (*scheme != "http" && *scheme != "https")) {
    parsed.problem = "unsupported scheme \"" + scheme.value_or("") + "\"";
  } else if (const auto host = Part(parsed.handle.get(), CURLUPART_HOST); !host || host->empty()) {
    parsed.problem = "no host";
  }
  return parsed;
}

[[noreturn]] void BadAnswer(const std::string& why) {
  throw SourceError("the source answered " + why);
}

// An object of numbers: {"orders": 30}.
Metrics ReadMetrics(const nlohmann::json& body, const char* member) {
  const auto it = body.find(member);
  if (it == body.end() || !it->is_object())
    BadAnswer(std::string("without an object \"") + member + "\"");
  Metrics metrics;
  for (const auto& [name, value] : it->items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      BadAnswer(std::string("a non-number for \"") + member + "." + name + "\"");
    }
    metrics[name] = value.get<double>();
  }
  return metrics;
}

// {"orders": [80, 120]} → the mean of each list's newest values.
Metrics ReadHistory(const nlohmann::json& history) {
  if (!history.is_object()) BadAnswer("a \"history\" that is not an object");
  Metrics baseline;
  for (const auto& [name, values] : history.items()) {
    if (!values.is_array()) BadAnswer("a \"history." + name + "\" that is not a list");
    std::vector<double> numbers;
    for (const auto& value : values) {
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        BadAnswer("a non-number in \"history." + name + "\"");
      }
      numbers.push_back(value.get<double>());
    }
    baseline[name] = BaselineFromHistory(numbers);
  }
  return baseline;
}

std::string Describe(const net::HttpResponse& response, std::chrono::milliseconds timeout) {
  if (response.error == CURLE_OPERATION_TIMEDOUT) {
    return "no answer within " + std::to_string(timeout.count()) + " ms";
  }
  if (response.error != CURLE_OK) return "request failed: " + response.error_message;
  std::string snippet = response.body.substr(0, 200);
  return "HTTP " + std::to_string(response.status) + (snippet.empty() ? "" : ": " + snippet);
}

}  // namespace

std::optional<std::string> HttpUrlProblem(std::string_view url) { return Parse(url).problem; }

std::string WithQuery(std::string_view url, const std::map<std::string, std::string>& params) {
  ParsedUrl parsed = Parse(url);
  if (parsed.problem) throw std::invalid_argument("not an http(s) URL: " + *parsed.problem);
  for (const auto& [name, value] : params) {
    const std::string pair = name + "=" + value;
    if (curl_url_set(parsed.handle.get(), CURLUPART_QUERY, pair.c_str(),
                     CURLU_APPENDQUERY | CURLU_URLENCODE) != CURLUE_OK) {
      throw std::invalid_argument("cannot add " + name + " to the URL");
    }
  }
  return Part(parsed.handle.get(), CURLUPART_URL).value_or(std::string(url));
}

std::string RedactedUrl(std::string_view url) {
  ParsedUrl parsed = Parse(url);
  if (parsed.problem) return "(invalid URL)";
  curl_url_set(parsed.handle.get(), CURLUPART_USER, nullptr, 0);
  curl_url_set(parsed.handle.get(), CURLUPART_PASSWORD, nullptr, 0);
  const bool had_query = Part(parsed.handle.get(), CURLUPART_QUERY).has_value();
  curl_url_set(parsed.handle.get(), CURLUPART_QUERY, nullptr, 0);
  curl_url_set(parsed.handle.get(), CURLUPART_FRAGMENT, nullptr, 0);
  return Part(parsed.handle.get(), CURLUPART_URL).value_or("(invalid URL)") +
         (had_query ? "?…" : "");
}

ReportContent ParseSourceAnswer(ReportKind kind, const nlohmann::json& body) {
  if (!body.is_object()) BadAnswer("with JSON that is not an object");
  if (kind == ReportKind::kSummary) {
    const auto text = body.find("text");
    if (text == body.end() || !text->is_string()) BadAnswer("without a string \"text\"");
    SummaryContent content;
    content.text = text->get<std::string>();
    if (const auto title = body.find("title"); title != body.end() && !title->is_null()) {
      if (!title->is_string()) BadAnswer("with a \"title\" that is not a string");
      if (!title->get<std::string>().empty()) content.title = title->get<std::string>();
    }
    return content;
  }
  AnomalyContent content;
  content.today = ReadMetrics(body, "metrics");
  if (body.contains("baseline")) {
    content.baseline = ReadMetrics(body, "baseline");
  } else if (const auto history = body.find("history"); history != body.end()) {
    content.baseline = ReadHistory(*history);
  } else {
    BadAnswer("without \"baseline\" or \"history\"");
  }
  return content;
}

ReportContent HttpSource::Fetch(const ReportJob& job, const ReportPeriod& period) {
  net::HttpRequest request;
  request.method = "GET";
  request.url = WithQuery(*job.source_url, {{"job", job.name},
                                            {"period", period.key},
                                            {"from", core::FormatRfc3339(period.from)},
                                            {"to", core::FormatRfc3339(period.to)}});
  request.headers = {"Accept: application/json"};
  request.timeout = job.timeout;
  const net::HttpResponse response = http_.Perform(request);
  if (!response.ok()) throw SourceError(Describe(response, job.timeout));
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(response.body);
  } catch (const nlohmann::json::parse_error&) {
    BadAnswer("with a body that is not JSON");
  }
  return ParseSourceAnswer(job.kind, body);
}

}  // namespace chopar::reports
