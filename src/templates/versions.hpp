#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/request_error.hpp"
#include "db/pool.hpp"

namespace chopar::templates {

// Versions and drafts of the documents a PUT stores: templates, layouts and
// partials (docs/api.md "Versions and drafts"; tables of migration 0048).
// Every change of a live document appends the next version (1, 2, …) of
// its history in the change's own transaction; the newest version of a
// document that exists is the live one. A draft is kept beside the live
// document, never sent, until it is published or deleted.
//
// Bounds: a history keeps its newest kMaxVersions versions (an older one
// is forgotten when a new one is added); a kind holds at most kMaxDrafts
// drafts per tenant and globally.
//
// A version's document is the PUT body as given (GET's members type,
// tenant, key, version, created_at and updated_at left out), so restoring
// or publishing parses it again under the rules of the day.

inline constexpr int kMaxVersions = 1000;
inline constexpr int kMaxDrafts = 1000;

enum class DocumentKind { kTemplate, kLayout, kPartial };
// "template", "layout", "partial" (the tables' kind).
std::string_view KindName(DocumentKind kind);

// Whose history: a template's type or a layout's or partial's key, global
// (no tenant) or a tenant's own.
struct DocumentKey {
  DocumentKind kind = DocumentKind::kTemplate;
  std::string key;
  std::optional<std::string> tenant;
};

struct VersionSummary {
  int version = 0;
  core::TimePoint created_at;
  std::optional<std::string> created_by;  // the audit log's actor, if any
};

struct DocumentVersion {
  VersionSummary summary;
  nlohmann::json document;
};

// One page of a history, newest first.
struct VersionPage {
  std::vector<VersionSummary> items;
  std::optional<int> newest;               // the newest version of all; none: no history
  std::optional<std::string> next_cursor;  // the next (older) page; none: the last
};

struct Draft {
  nlohmann::json document;
  core::TimePoint created_at;
  core::TimePoint updated_at;
  std::optional<std::string> updated_by;
};

// `body` without the members GET adds to a document (see above): what a
// version stores.
nlohmann::json VersionDocument(const nlohmann::json& body);

// In the transaction of a change to the live document (a PUT, a restore, a
// publish), after the statement that writes the document's row: appends
// the next version with VersionDocument(`document`), and forgets the one
// kMaxVersions below it. Queued
// (Transaction::Defer): it runs with the transaction's next statement or
// its commit. Versions are numbered one after another, also for changes at
// the same moment, because every writer of a history first writes (and so
// locks until it commits) the live row, and this statement's snapshot is
// taken after that lock was granted: it sees every earlier version.
void RecordVersion(db::Transaction& tx, const DocumentKey& key, const nlohmann::json& document);
// Deletes the draft and returns it; none when there is none.
std::optional<Draft> TakeDraft(db::Transaction& tx, const DocumentKey& key);

// A document that was stored once (a version, a draft) parsed again for a
// restore or a publish: `parse(document)`, its core::RequestError
// kInvalidField (the rules grew stricter since) rethrown as kConflict
// naming the same field, its message after `what` ("version 3").
template <typename Parse>
auto ParseAgain(Parse parse, const nlohmann::json& document, const std::string& what) {
  try {
    return parse(document);
  } catch (const core::RequestError& e) {
    if (e.code() != core::ErrorCode::kInvalidField && e.code() != core::ErrorCode::kInvalidJson) {
      throw;
    }
    throw core::RequestError(core::ErrorCode::kConflict,
                             what + " no longer passes today's rules: " + e.what(), e.field());
  }
}

// The histories and drafts, read and written outside a change of the live
// document. Throws db::DbError / db::PoolTimeout; thread-safe.
class VersionStore {
 public:
  explicit VersionStore(db::Pool& pool) : pool_(pool) {}

  // At most `limit` versions older than `cursor` (none: from the newest).
  // Throws core::RequestError kInvalidField "cursor" for a cursor that is
  // not one of this list's.
  VersionPage List(const DocumentKey& key, int limit, const std::optional<std::string>& cursor);
  // Version `version`; core::RequestError kNotFound when there is none.
  DocumentVersion Get(const DocumentKey& key, int version);
  // Creates or replaces the draft. kNotFound when key.tenant does not
  // exist; kInvalidField "type" (a template) or "key" when its scope
  // holds kMaxDrafts others.
  Draft PutDraft(const DocumentKey& key, const nlohmann::json& document);
  // kNotFound when there is no draft.
  Draft GetDraft(const DocumentKey& key);
  // kNotFound when there was no draft.
  void DeleteDraft(const DocumentKey& key);

 private:
  db::Pool& pool_;
};

}  // namespace chopar::templates
