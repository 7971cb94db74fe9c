#include "workflow/engine/digest_closer.hpp"

#include <algorithm>
#include <map>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/notify_channels.hpp"
#include "db/statement_time.hpp"
#include "hub/notification_content.hpp"
#include "templates/rendering.hpp"
#include "workflow/engine/queries.hpp"

namespace chopar::workflow::engine {
namespace {

// The default title of a window of `count`, in the user's language.
std::string DefaultTitle(const std::string& locale, std::size_t count) {
  const std::string n = std::to_string(count);
  const std::string language = locale.substr(0, locale.find('-'));
  if (language == "uz") return n + " ta yangi bildirishnoma";
  if (language == "ru") return n + " новых уведомлений";
  return n + (count == 1 ? " new notification" : " new notifications");
}

std::vector<core::ChannelKind> ParseChannels(const std::string& names) {
  std::vector<core::ChannelKind> channels;
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t end = std::min(names.find(',', start), names.size());
    if (const auto kind = core::ParseChannel(names.substr(start, end - start)))
      channels.push_back(*kind);
    start = end + 1;
  }
  return channels;
}

}  // namespace

DigestMessage RenderDigest(const std::string& type, std::int64_t user_id, const std::string& locale,
                           const std::string& timezone, const std::vector<DigestEntry>& entries,
                           const templates::Template* tmpl, const nlohmann::json& user_data,
                           const mustache::PartialSource* partials) {
  DigestMessage message;
  for (core::ChannelKind kind : core::AllChannels()) {
    const bool used = std::ranges::any_of(entries, [&](const DigestEntry& e) {
      return std::ranges::find(e.channels, kind) != e.channels.end();
    });
    if (used) message.channels.push_back(kind);
  }
  const DigestEntry& newest = entries.back();
  nlohmann::json items = nlohmann::json::array();
  for (const DigestEntry& e : entries) {
    items.push_back({{"id", e.notification_id},
                     {"title", e.title},
                     {"body", e.body},
                     {"link", e.link ? nlohmann::json(*e.link) : nlohmann::json(nullptr)},
                     {"data", e.data},
                     {"created_at", e.created_at}});
  }
  hub::NotificationRequest request;
  request.user_id = user_id;
  request.type = type;
  request.link = newest.link;
  request.data = newest.data.is_object() ? newest.data : nlohmann::json::object();
  request.data["digest"] = {{"count", entries.size()}, {"items", std::move(items)}};
  if (tmpl == nullptr) {
    request.title = DefaultTitle(locale, entries.size());
    for (const DigestEntry& e : entries)
      request.body += (request.body.empty() ? "" : "\n") + e.title;
  }
  const nlohmann::json context = templates::MakeContext(
      request.data, templates::ContextUser{user_id, locale, timezone, user_data},
      templates::ContextNotification{newest.notification_id, type, newest.link, newest.created_at});
  hub::NotificationContent said;
  try {
    said = hub::ComposeContent(request, tmpl, locale, context, message.channels, partials);
  } catch (const core::RequestError&) {
    // The template's title renders empty for a digest: say it plainly.
    request.title = DefaultTitle(locale, entries.size());
    said = hub::ComposeContent(request, nullptr, locale, context, message.channels);
  }
  message.content = said.channels.is_object() ? said.channels : nlohmann::json::object();
  message.content["title"] = said.title;
  message.content["body"] = said.body;
  return message;
}

DigestCloser::DigestCloser(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                           const templates::TemplateLookup* templates,
                           DigestCloserSettings settings)
    : pool_(pool),
      clock_(clock),
      templates_(templates),
      settings_(settings),
      closed_(metrics.GetCounter("chopar_digests_closed_total",
                                 "Digest windows closed (their deliveries queued)")),
      loop_(pool, "digests", db::kDigestsChannel, clock, settings_.max_sleep,
            {[this](bool& full) { return CloseBatch(full); }, [this] { return NextDue(); }},
            metrics) {}

DigestCloser::~DigestCloser() { Stop(); }

int DigestCloser::CloseBatch(bool& full) {
  auto tx = pool_.Begin("close_digests");
  const auto due = tx.Exec(queries::kClaimDigests, db::SqlNowParam(clock_), settings_.batch);
  full = due.Rows() >= settings_.batch;
  if (due.Empty()) {
    tx.Commit();
    return 0;
  }
  const std::string now = core::FormatRfc3339Micros(core::ParsePgTimestamp(due.Text(0, "now")));
  std::vector<std::int64_t> ids;
  for (int i = 0; i < due.Rows(); ++i) ids.push_back(due.Int(i, "id"));
  const auto rows = tx.Exec(queries::kDigestContents, db::ArrayLiteral(ids));
  struct Held {
    std::vector<DigestEntry> entries;
    std::string locale, timezone;
    nlohmann::json user_data;
  };
  std::map<std::int64_t, Held> held;
  for (int i = 0; i < rows.Rows(); ++i) {
    Held& h = held[rows.Int(i, "digest_id")];
    h.locale = rows.String(i, "locale");
    h.timezone = rows.String(i, "timezone");
    if (h.user_data.is_null()) h.user_data = nlohmann::json::parse(rows.Text(i, "user_data"));
    DigestEntry e;
    e.notification_id = rows.Int(i, "notification_id");
    e.title = rows.String(i, "title");
    e.body = rows.String(i, "body");
    e.link = rows.OptString(i, "link");
    e.data = nlohmann::json::parse(rows.OptString(i, "data").value_or("{}"), nullptr, false);
    if (e.data.is_discarded()) e.data = nlohmann::json::object();
    e.created_at = core::FormatRfc3339(core::ParsePgTimestamp(rows.Text(i, "created_at")));
    e.channels = ParseChannels(rows.String(i, "channels"));
    h.entries.push_back(std::move(e));
  }

  std::vector<std::int64_t> window_ids, d_digest, d_notification, d_user, run_windows;
  std::vector<std::string> window_status, d_channel, d_status;
  std::vector<std::optional<std::string>> window_content, d_error;
  for (int i = 0; i < due.Rows(); ++i) {
    const std::int64_t id = due.Int(i, "id");
    window_ids.push_back(id);
    const auto found = held.find(id);
    if (found == held.end() || found->second.entries.empty()) {
      window_status.emplace_back("canceled");  // every item was canceled
      window_content.emplace_back(std::nullopt);
      continue;
    }
    const Held& h = found->second;
    const std::string type = due.String(i, "type");
    const auto tmpl = templates_ != nullptr ? templates_->Find(type) : nullptr;
    const templates::RenderLibrary partials =
        templates_ != nullptr ? templates_->Library(std::nullopt) : templates::RenderLibrary();
    const DigestMessage message = RenderDigest(type, due.Int(i, "user_id"), h.locale, h.timezone,
                                               h.entries, tmpl.get(), h.user_data, &partials);
    window_status.emplace_back("closed");
    window_content.emplace_back(message.content.dump());
    if (due.Bool(i, "workflow")) {
      // Workflow runs' window: its runs go on to their next steps, which
      // send the content rendered here.
      run_windows.push_back(id);
      continue;
    }
    for (core::ChannelKind kind : message.channels) {
      const std::string channel(core::ChannelName(kind));
      const auto texts = message.content.find(channel);
      const bool failed = texts != message.content.end() && texts->contains("error");
      d_digest.push_back(id);
      d_notification.push_back(h.entries.back().notification_id);
      d_user.push_back(due.Int(i, "user_id"));
      d_channel.push_back(channel);
      d_status.emplace_back(failed ? "failed" : "queued");
      d_error.push_back(failed ? std::optional(texts->at("error").get<std::string>())
                               : std::nullopt);
    }
  }
  using db::ArrayLiteral;
  tx.ExecAndCommit(
      queries::kCloseDigests,
      db::Params(ArrayLiteral(window_ids), ArrayLiteral(window_status),
                 ArrayLiteral(window_content), ArrayLiteral(d_digest), ArrayLiteral(d_notification),
                 ArrayLiteral(d_user), ArrayLiteral(d_channel), ArrayLiteral(d_status),
                 ArrayLiteral(d_error), now, ArrayLiteral(run_windows)));
  closed_.Inc(due.Rows());
  return due.Rows();
}

std::optional<core::TimePoint> DigestCloser::NextDue() {
  auto conn = pool_.Acquire();
  const auto row = conn->Exec(queries::kNextDigest);
  if (row.IsNull(0, "closes_at")) return std::nullopt;
  return core::ParsePgTimestamp(row.Text(0, "closes_at"));
}

}  // namespace chopar::workflow::engine
