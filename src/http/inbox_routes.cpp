// The inbox of the subscriber token's user, called from browsers (docs/api.md
// "Inbox").
#include <charconv>

#include "core/request_error.hpp"
#include "http/api.hpp"
#include "http/inbox_state_routes.hpp"
#include "http/json_view.hpp"
#include "http/notification_view.hpp"
#include "http/tenancy.hpp"

namespace chopar::http {
namespace {

// ?tenant=: the bell of one tenant's application shows that tenant's
// notifications only. No caller here, so any key of the grammar filters.
struct ListInbox {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    auto options = InboxListOptions(request.query);
    options.filter = InboxQueryFilter(request);
    return JsonResponse(200, PageView(inbox.List(*request.subscriber, options), NotificationView));
  }
};

struct InboxUnreadCount {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    return JsonResponse(200, {{"count", inbox.UnreadCount(*request.subscriber,
                                                          hub::InboxService::ReadFrom::kReadPool,
                                                          QueryTenant(request))}});
  }
};

// ?count=unseen (the default) or unread, with the list's filters; never
// archived or snoozed ones.
struct InboxCount {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    const auto which = request.query.Get("count").value_or("unseen");
    if (which != "unseen" && which != "unread") {
      throw core::InvalidField("count", "count must be unseen or unread");
    }
    const auto counts = inbox.CountUnseenAndUnread(*request.subscriber, InboxQueryFilter(request));
    return JsonResponse(200, {{"count", which == "unseen" ? counts.unseen : counts.unread}});
  }
};

// A positive Last-Event-ID: the browser reconnects and wants what it missed.
std::optional<std::int64_t> LastEventId(const Request& request) {
  const auto header = request.Header("last-event-id");
  if (!header) return std::nullopt;
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(header->data(), header->data() + header->size(), value);
  if (ec != std::errc() || ptr != header->data() + header->size() || value <= 0)
    return std::nullopt;
  return value;
}

// Turns the connection into a Server-Sent Events stream; the connection
// carries it on from here (see Session).
struct OpenInboxStream {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    StreamStart start;
    start.user_id = *request.subscriber;
    if (const auto last_event_id = LastEventId(request)) {
      start.last_id = *last_event_id;
      start.catch_up = true;
    } else {
      start.last_id = inbox.LatestId(start.user_id);
    }
    start.tenant = QueryTenant(request);
    const auto counts = inbox.CountUnseenAndUnread(start.user_id, {.tenant = start.tenant},
                                                   hub::InboxService::ReadFrom::kPrimary);
    start.unread_count = counts.unread;
    start.unseen_count = counts.unseen;
    Response response;
    response.content_type = "text/event-stream";
    response.stream = start;
    return response;
  }
};

}  // namespace

void RegisterInboxRoutes(Router& router, const Dependencies& deps) {
  router.Add("GET", "/v1/inbox/notifications", Auth::kSubscriber, ListInbox{deps.inbox});
  router.Add("GET", "/v1/inbox/unread-count", Auth::kSubscriber, InboxUnreadCount{deps.inbox});
  router.Add("GET", "/v1/inbox/count", Auth::kSubscriber, InboxCount{deps.inbox});
  RegisterInboxStateRoutes(router, deps);
  router.Add("GET", "/v1/inbox/stream", Auth::kSubscriber, OpenInboxStream{deps.inbox});
}

}  // namespace chopar::http
