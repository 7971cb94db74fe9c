// Topics and broadcasts (docs/api.md "Topics and broadcasts").
#include "http/broadcast_routes.hpp"

#include "http/broadcast_view.hpp"
#include "http/json_view.hpp"
#include "http/message.hpp"
#include "http/tenancy.hpp"

namespace chopar::http {
namespace {

struct PutTopic {
  broadcast::TopicService& topics;
  Response operator()(const Request& request) const {
    const auto input = broadcast::ParseTopicInput(ParseJsonObject(request));
    return JsonResponse(
        200, TopicView(topics.Put(request.String("key"), input, ConfinedTenant(request))));
  }
};

struct DeleteTopic {
  broadcast::TopicService& topics;
  Response operator()(const Request& request) const {
    topics.Delete(request.String("key"), ConfinedTenant(request));
    return NoContentResponse();
  }
};

struct AddSubscribers {
  broadcast::TopicService& topics;
  Response operator()(const Request& request) const {
    const auto ids = broadcast::ParseUserIds(ParseJsonObject(request));
    return JsonResponse(
        200,
        {{"added", topics.AddSubscribers(request.String("key"), ids, ConfinedTenant(request))}});
  }
};

struct RemoveSubscribers {
  broadcast::TopicService& topics;
  Response operator()(const Request& request) const {
    const auto ids = broadcast::ParseUserIds(ParseJsonObject(request));
    return JsonResponse(200, {{"removed", topics.RemoveSubscribers(request.String("key"), ids,
                                                                   ConfinedTenant(request))}});
  }
};

struct ListSubscribers {
  broadcast::TopicService& topics;
  Response operator()(const Request& request) const {
    const auto limit = request.query.GetInt("limit", 1, 1000).value_or(100);
    return JsonResponse(
        200, PageView(topics.ListSubscribers(request.String("key"), static_cast<int>(limit),
                                             request.query.Get("cursor"), ConfinedTenant(request)),
                      SubscriberView));
  }
};

struct CreateBroadcast {
  broadcast::BroadcastService& broadcasts;
  Response operator()(const Request& request) const {
    const auto created = broadcasts.Create(
        broadcast::ParseBroadcastRequest(ParseJsonObject(request)), ConfinedTenant(request));
    // 202: the fan-out runs in the background; 200 for a repeated dedup_key.
    return JsonResponse(created.created ? 202 : 200, BroadcastView(created.broadcast));
  }
};

struct GetBroadcast {
  broadcast::BroadcastService& broadcasts;
  Response operator()(const Request& request) const {
    return JsonResponse(200, BroadcastView(broadcasts.Get(request.Id("id"))));
  }
};

struct CancelBroadcast {
  broadcast::BroadcastService& broadcasts;
  Response operator()(const Request& request) const {
    return JsonResponse(200, BroadcastView(broadcasts.Cancel(request.Id("id"))));
  }
};

}  // namespace

void RegisterBroadcastRoutes(Router& router, broadcast::TopicService& topics,
                             broadcast::BroadcastService& broadcasts) {
  router.Add("PUT", "/v1/topics/{key:str}", Auth::kServerKey, PutTopic{topics});
  router.Add("DELETE", "/v1/topics/{key:str}", Auth::kServerKey, DeleteTopic{topics});
  router.Add("PUT", "/v1/topics/{key:str}/subscribers", Auth::kServerKey, AddSubscribers{topics});
  router.Add("DELETE", "/v1/topics/{key:str}/subscribers", Auth::kServerKey,
             RemoveSubscribers{topics});
  router.Add("GET", "/v1/topics/{key:str}/subscribers", Auth::kServerKey, ListSubscribers{topics});
  router.Add("POST", "/v1/broadcasts", Auth::kServerKey, CreateBroadcast{broadcasts});
  router.Add("GET", "/v1/broadcasts/{id}", Auth::kServerKey, GetBroadcast{broadcasts});
  router.Add("POST", "/v1/broadcasts/{id}/cancel", Auth::kServerKey, CancelBroadcast{broadcasts});
}

}  // namespace chopar::http
