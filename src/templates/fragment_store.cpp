#include "templates/fragment_store.hpp"

#include <spdlog/spdlog.h>

#include "core/request_error.hpp"
#include "db/notify_channels.hpp"
#include "db/time_column.hpp"
#include "templates/queries.hpp"

namespace chopar::templates {
namespace {

struct Queries {
  const db::Query& put;
  const db::Query& count;
  const db::Query& get;
  const db::Query& list;
  const db::Query& load;
  const db::Query& remove;
  const char* channel;
};

const Queries& QueriesOf(FragmentKind kind) {
  static const Queries kLayouts{
      queries::kPutLayout,   queries::kCountLayouts, queries::kGetLayout, queries::kListLayouts,
      queries::kLoadLayouts, queries::kDeleteLayout, db::kLayoutsChannel};
  static const Queries kPartials{
      queries::kPutPartial,   queries::kCountPartials, queries::kGetPartial, queries::kListPartials,
      queries::kLoadPartials, queries::kDeletePartial, db::kPartialsChannel};
  return kind == FragmentKind::kLayout ? kLayouts : kPartials;
}

// The cache's key: "<key>" or "<tenant>/<key>" (the NOTIFY payload).
std::string CacheKey(std::string_view key, const std::optional<std::string>& tenant) {
  return tenant ? *tenant + "/" + std::string(key) : std::string(key);
}

// Row `row` parsed again, as its PUT body was. One that no longer parses
// (a rule made stricter) is logged and left out.
std::shared_ptr<const Fragment> Parse(FragmentKind kind, const db::Result& rows, int row) {
  const std::string key = rows.String(row, "key");
  nlohmann::json body = {{"text", rows.IsNull(row, "text")
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(rows.String(row, "text"))}};
  if (kind == FragmentKind::kLayout) body["html"] = rows.String(row, "html");
  try {
    return std::make_shared<const Fragment>(ParseFragment(kind, key, body));
  } catch (const core::RequestError& e) {
    spdlog::error("{} {} is stored but does not parse: {} (field {})", FragmentKindName(kind), key,
                  e.what(), e.field().value_or(""));
    return nullptr;
  }
}

std::optional<StoredFragment> ReadStored(FragmentKind kind, const db::Result& rows, int row) {
  auto parsed = Parse(kind, rows, row);
  if (!parsed) return std::nullopt;
  const auto version = rows.OptInt(row, "version");
  return StoredFragment{std::move(parsed), rows.OptString(row, "tenant"),
                        db::TimeColumn(rows, row, "created_at"),
                        db::TimeColumn(rows, row, "updated_at"),
                        version ? std::optional<int>(static_cast<int>(*version)) : std::nullopt};
}

std::string NoneMessage(FragmentKind kind, const std::string& key,
                        const std::optional<std::string>& tenant) {
  const std::string what = std::string(FragmentKindName(kind)) + " " + key;
  return tenant ? "tenant " + *tenant + " has no " + what : "there is no global " + what;
}

}  // namespace

FragmentStore::FragmentStore(FragmentKind kind, db::Pool& pool, std::string listen_conninfo)
    : kind_(kind),
      pool_(pool),
      versions_(pool),
      cache_(
          std::move(listen_conninfo), [this] { return LoadAll(); },
          [this](const std::string& payload) { return LoadOne(payload); }) {}

FragmentStore::~FragmentStore() { Stop(); }

void FragmentStore::Start() { cache_.Start(QueriesOf(kind_).channel); }

void FragmentStore::Stop() { cache_.Stop(); }

std::shared_ptr<const FragmentStore::Map> FragmentStore::Snapshot() const {
  return cache_.Snapshot();
}

const std::shared_ptr<const Fragment>* FragmentStore::FindIn(
    const Map& map, std::string_view key, const std::optional<std::string>& tenant) {
  if (tenant) {
    if (const auto it = map.find(CacheKey(key, tenant)); it != map.end()) return &it->second;
  }
  const auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

void FragmentStore::ReloadAll() { cache_.ReloadAll(); }

void FragmentStore::ReloadOne(const std::string& payload) const { cache_.ReloadOne(payload); }

std::shared_ptr<FragmentStore::Map> FragmentStore::LoadAll() const {
  const auto rows = pool_.Acquire()->Exec(QueriesOf(kind_).load);
  auto map = std::make_shared<Map>();
  for (int i = 0; i < rows.Rows(); ++i) {
    if (auto parsed = Parse(kind_, rows, i))
      map->emplace(CacheKey(parsed->key, rows.OptString(i, "tenant")), std::move(parsed));
  }
  return map;
}

std::shared_ptr<const Fragment> FragmentStore::LoadOne(const std::string& payload) const {
  const std::size_t slash = payload.find('/');
  const std::optional<std::string> tenant =
      slash == std::string::npos ? std::nullopt : std::optional(payload.substr(0, slash));
  const std::string key = slash == std::string::npos ? payload : payload.substr(slash + 1);
  const auto rows = pool_.Acquire()->Exec(QueriesOf(kind_).get, key, tenant);
  return rows.Empty() ? nullptr : Parse(kind_, rows, 0);
}

void FragmentStore::Store(db::Transaction& tx, const Fragment& fragment,
                          const std::optional<std::string>& tenant) {
  const Queries& q = QueriesOf(kind_);
  const auto others = tx.Exec(q.count, tenant, fragment.key);
  if (static_cast<std::size_t>(others.Int(0, "n")) >= kMaxFragmentsPerScope) {
    throw core::InvalidField("key", "at most " + std::to_string(kMaxFragmentsPerScope) + " " +
                                        std::string(FragmentKindName(kind_)) +
                                        "s per tenant and globally: delete one first");
  }
  const auto stored =
      kind_ == FragmentKind::kLayout
          ? tx.Exec(q.put, fragment.key, tenant, fragment.html->source(),
                    fragment.document["text"].is_string()
                        ? std::optional(fragment.document["text"].get<std::string>())
                        : std::nullopt)
          : tx.Exec(q.put, fragment.key, tenant, fragment.partial->source());
  if (stored.Empty()) throw core::NotFound("tenant " + tenant.value_or("") + " does not exist");
  // After the document's row: see RecordVersion.
  RecordVersion(tx, DocumentKey{history_kind(), fragment.key, tenant}, fragment.document);
}

StoredFragment FragmentStore::Put(const Fragment& fragment,
                                  const std::optional<std::string>& tenant) {
  {
    auto tx = pool_.Begin(kind_ == FragmentKind::kLayout ? "put_layout" : "put_partial");
    Store(tx, fragment, tenant);
    tx.Commit();
  }  // its connection back before Stored borrows one
  return Stored(fragment.key, tenant);
}

StoredFragment FragmentStore::Stored(const std::string& key,
                                     const std::optional<std::string>& tenant) {
  ReloadOne(CacheKey(key, tenant));
  return Get(key, tenant);
}

StoredFragment FragmentStore::Get(const std::string& key,
                                  const std::optional<std::string>& tenant) {
  const auto rows = pool_.Acquire()->Exec(QueriesOf(kind_).get, key, tenant);
  if (rows.Empty()) throw core::NotFound(NoneMessage(kind_, key, tenant));
  auto stored = ReadStored(kind_, rows, 0);
  if (!stored) {
    throw core::NotFound(NoneMessage(kind_, key, tenant) +
                         ": the stored one no longer parses; PUT it again");
  }
  return std::move(*stored);
}

std::vector<StoredFragment> FragmentStore::List(const std::optional<std::string>& tenant) {
  const auto rows = pool_.Acquire()->Exec(QueriesOf(kind_).list, tenant);
  std::vector<StoredFragment> items;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (auto stored = ReadStored(kind_, rows, i)) items.push_back(std::move(*stored));
  }
  return items;
}

void FragmentStore::Delete(const std::string& key, const std::optional<std::string>& tenant) {
  const auto rows = pool_.Acquire()->Exec(QueriesOf(kind_).remove, key, tenant);
  ReloadOne(CacheKey(key, tenant));
  if (kind_ == FragmentKind::kPartial) {
    if (rows.Empty()) throw core::NotFound(NoneMessage(kind_, key, tenant));
    return;
  }
  if (rows.Int(0, "found") == 0) throw core::NotFound(NoneMessage(kind_, key, tenant));
  if (rows.Int(0, "deleted") == 0) {
    throw core::RequestError(core::ErrorCode::kInUse,
                             "layout " + key + " is used by " + rows.String(0, "used_by") +
                                 ": give them another layout (or null) first");
  }
}

bool FragmentStore::LayoutExists(const std::string& key, const std::optional<std::string>& tenant) {
  return pool_.Acquire()->Exec(queries::kLayoutExists, key, tenant).Bool(0, "found");
}

}  // namespace chopar::templates
