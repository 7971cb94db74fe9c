#include "app/template_commands.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "access/tenants.hpp"
#include "app/database_setup.hpp"
#include "app/template_documents.hpp"
#include "app/template_files.hpp"
#include "core/request_error.hpp"
#include "db/connection.hpp"
#include "db/pool.hpp"
#include "hub/validation.hpp"
#include "templates/template_store.hpp"

namespace chopar::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A line of progress on `err` at most once a second, and only once a run
// has taken a second: a short run prints none. Whole lines, so the lines
// of problems printed between them stay whole too.
class Progress {
 public:
  // Lines "<what> <done>[/<total>] <unit>".
  Progress(std::ostream& err, std::string what, std::string unit)
      : err_(err), what_(std::move(what)), unit_(std::move(unit)) {}

  void Step(std::size_t done, std::size_t total = 0) {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    err_ << what_ << " " << done;
    if (total > 0) err_ << "/" << total;
    err_ << " " << unit_ << "\n" << std::flush;
  }

 private:
  std::ostream& err_;
  const std::string what_;
  const std::string unit_;
  Clock::time_point last_ = Clock::now();
};

// The configured database and the stores the commands work through.
struct Stores {
  explicit Stores(const Config& config)
      : database(config),
        pool(CommandPoolSettings(database, 2)),
        templates(pool, database.direct_conninfo()),
        tenants(pool) {
    // In the order an import writes them: what a template names comes first.
    kinds.push_back(FragmentDocuments(templates.layouts()));
    kinds.push_back(FragmentDocuments(templates.partials()));
    kinds.push_back(TemplateDocuments(templates));
  }

  [[nodiscard]] std::vector<std::string> Folders() const {
    std::vector<std::string> folders;
    for (const auto& kind : kinds) folders.emplace_back(kind->folder());
    return folders;
  }
  [[nodiscard]] DocumentKind* Kind(std::string_view folder) const {
    for (const auto& kind : kinds) {
      if (kind->folder() == folder) return kind.get();
    }
    return nullptr;
  }

  DatabaseSetup database;
  db::Pool pool;
  templates::TemplateStore templates;
  access::TenantStore tenants;
  std::vector<std::unique_ptr<DocumentKind>> kinds;
};

// One import at a time on a database (docs/operations.md "Promoting
// templates"): a session advisory lock, taken before the files are checked
// (what is live decides "unchanged" and which layouts exist) and held until
// the last file is written, on a direct connection of its own — the writes
// are many transactions on the pool. A second import waits, saying so
// once. Polled rather than waited for in pg_advisory_lock, as migrations
// do: a session blocked there holds a snapshot for as long as it waits.
// The lock ends with its session: at the end of the run, or when the
// process dies.
class ImportLock {
 public:
  ImportLock(const std::string& conninfo, std::ostream& err)
      : conn_(db::Connection::Open(conninfo)) {
    bool told = false;
    while (!conn_.ExecText(kTryLock, {}).Bool(0, 0)) {
      if (!told) {
        err << "chopar templates import: waiting for another import into this database to "
               "finish\n"
            << std::flush;
        told = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

 private:
  static constexpr const char* kTryLock =
      "SELECT pg_catalog.pg_try_advisory_lock(pg_catalog.hashtext('chopar.templates_import'))";
  db::Connection conn_;
};

std::vector<std::string> TenantKeys(access::TenantStore& tenants) {
  std::vector<std::string> keys;
  std::optional<std::string> cursor;
  do {
    auto page = tenants.List(500, cursor);
    for (const access::Tenant& tenant : page.items) keys.push_back(tenant.key);
    cursor = std::move(page.next_cursor);
  } while (cursor);
  return keys;
}

std::string Describe(const core::RequestError& e) {
  std::string text(core::ErrorCodeName(e.code()));
  if (e.field()) text += " " + *e.field();
  return text + ": " + e.what();
}

// A file that passed every check, with the document it stores.
struct Checked {
  DocumentFile file;
  DocumentKind* kind;
  nlohmann::json body;
  nlohmann::json document;
};

// What PUT /v1/templates/{type} checks beyond the body: a template's
// layout exists, the tenant's own or a global one (a global template: a
// global one). Here it may also be one of the files, stored before the
// templates. Prints each template naming one that is nowhere; returns how
// many.
std::size_t CheckLayoutsNamed(Stores& stores, const std::vector<Checked>& checked,
                              std::ostream& err) {
  std::set<std::pair<std::optional<std::string>, std::string>> in_files;
  for (const Checked& item : checked) {
    if (item.file.folder == "layouts") in_files.emplace(item.file.tenant, item.file.key);
  }
  std::size_t problems = 0;
  for (const Checked& item : checked) {
    const auto layout = item.document.find("layout");
    if (item.file.folder != "templates" || layout == item.document.end() || !layout->is_string()) {
      continue;
    }
    const std::string& key = layout->get_ref<const std::string&>();
    if (in_files.contains({item.file.tenant, key}) || in_files.contains({std::nullopt, key}) ||
        stores.templates.layouts().LayoutExists(key, item.file.tenant)) {
      continue;
    }
    err << "chopar templates import: " << item.file.Name() << ": invalid_field layout: layout "
        << key << " is neither among the files nor on this database"
        << (item.file.tenant ? " (the tenant's own or a global one)\n" : " (a global one)\n");
    ++problems;
  }
  return problems;
}

// Every file of `dir` checked; each problem printed on `err`. Returns the
// files, or nullopt when there was a problem.
std::optional<std::vector<Checked>> CheckAll(Stores& stores, const fs::path& dir,
                                             std::ostream& err) {
  constexpr std::string_view kPrefix = "chopar templates import: ";
  DocumentListing listing = ListDocumentFiles(dir, stores.Folders());
  std::size_t problems = listing.problems.size();
  for (const std::string& problem : listing.problems) err << kPrefix << problem << "\n";
  std::map<std::string, bool> tenant_ok;
  std::vector<Checked> checked;
  Progress progress(err, "chopar templates import: checked", "files");
  for (std::size_t i = 0; i < listing.files.size(); ++i) {
    progress.Step(i, listing.files.size());
    const DocumentFile& file = listing.files[i];
    auto fail = [&](const std::string& why) {
      err << kPrefix << file.Name() << ": " << why << "\n";
      ++problems;
    };
    if (file.tenant) {
      auto [known, first] = tenant_ok.try_emplace(*file.tenant, false);
      if (first) {
        if (!hub::IsValidTenantKey(*file.tenant)) {
          err << kPrefix << "tenants/" << *file.tenant
              << ": a tenant's key must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$\n";
          ++problems;
        } else if (!stores.tenants.Get(*file.tenant)) {
          err << kPrefix << "tenants/" << *file.tenant << ": tenant " << *file.tenant
              << " does not exist on this database (PUT /v1/tenants/" << *file.tenant
              << " first)\n";
          ++problems;
        } else {
          known->second = true;
        }
      }
      if (!known->second) continue;
    }
    DocumentKind* kind = stores.Kind(file.folder);
    if (!kind->ValidKey(file.key)) {
      fail("the file's name must be " + kind->KeyRule());
      continue;
    }
    try {
      nlohmann::json body = ReadDocumentFile(file);
      nlohmann::json document = kind->Check(file.key, body);
      checked.push_back({file, kind, std::move(body), std::move(document)});
    } catch (const core::RequestError& e) {
      fail(Describe(e));
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  problems += CheckLayoutsNamed(stores, checked, err);
  if (problems > 0) {
    err << kPrefix << problems << (problems == 1 ? " problem" : " problems")
        << "; nothing written\n";
    return std::nullopt;
  }
  return checked;
}

}  // namespace

int RunTemplatesExport(const Config& config, const std::string& dir, std::ostream& out,
                       std::ostream& err) {
  Stores stores(config);
  std::vector<std::optional<std::string>> scopes{std::nullopt};
  for (std::string& key : TenantKeys(stores.tenants)) scopes.emplace_back(std::move(key));
  std::set<fs::path> live;
  std::size_t written = 0, removed = 0;
  try {
    Progress progress(err, "chopar templates export: exported", "documents");
    for (const auto& kind : stores.kinds) {
      for (const auto& tenant : scopes) {
        for (const auto& [key, document] : kind->List(tenant)) {
          const DocumentFile file{tenant, std::string(kind->folder()), key,
                                  DocumentPath(dir, tenant, kind->folder(), key)};
          live.insert(file.path);
          if (WriteDocumentFile(file.path, FormatDocument(document))) {
            out << "wrote " << file.Name() << "\n";
            ++written;
          }
          progress.Step(live.size());
        }
      }
    }
    fs::create_directories(dir);
    // What is gone from the database goes from the folder, so the folder
    // (in git, say) shows the deletion too.
    const DocumentListing listing = ListDocumentFiles(dir, stores.Folders());
    for (const std::string& problem : listing.problems) {
      err << "chopar templates export: left alone: " << problem << "\n";
    }
    for (const DocumentFile& file : listing.files) {
      if (live.contains(file.path)) continue;
      fs::remove(file.path);
      out << "removed " << file.Name() << "\n";
      ++removed;
    }
  } catch (const std::exception& e) {
    err << "chopar templates export: " << e.what() << "\n";
    return 1;
  }
  out << "exported " << live.size() << " documents to " << dir << ": " << written << " written, "
      << live.size() - written << " unchanged, " << removed << " removed\n";
  return 0;
}

int RunTemplatesImport(const Config& config, const std::string& dir, std::ostream& out,
                       std::ostream& err) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    err << "chopar templates import: " << dir << " is not a folder\n";
    return 2;
  }
  Stores stores(config);
  const ImportLock lock(stores.database.direct_conninfo(), err);
  const auto checked = CheckAll(stores, dir, err);
  if (!checked) return 1;
  // The live documents of each folder and scope, read once when first needed.
  std::map<std::pair<std::string, std::optional<std::string>>,
           std::map<std::string, nlohmann::json>>
      live;
  std::size_t created = 0, updated = 0, unchanged = 0;
  Progress progress(err, "chopar templates import: stored", "files");
  for (const Checked& item : *checked) {
    progress.Step(created + updated + unchanged, checked->size());
    const DocumentFile& file = item.file;
    auto [scope, first] = live.try_emplace({file.folder, file.tenant});
    try {
      if (first) scope->second = item.kind->List(file.tenant);
      const auto found = scope->second.find(file.key);
      if (found != scope->second.end() && found->second == item.document) {
        out << "unchanged " << file.Name() << "\n";
        ++unchanged;
        continue;
      }
      item.kind->Put(file.key, item.body, file.tenant);
    } catch (const core::RequestError& e) {
      err << "chopar templates import: " << file.Name() << ": " << Describe(e)
          << "\nchopar templates import: stopped; the files before it are written\n";
      return 1;
    } catch (const std::exception& e) {
      err << "chopar templates import: " << file.Name() << ": " << e.what()
          << "\nchopar templates import: stopped; the files before it are written\n";
      return 1;
    }
    const bool existed = scope->second.contains(file.key);
    out << (existed ? "updated " : "created ") << file.Name() << "\n";
    ++(existed ? updated : created);
  }
  out << "imported " << checked->size() << " documents from " << dir << ": " << created
      << " created, " << updated << " updated, " << unchanged << " unchanged\n";
  return 0;
}

}  // namespace chopar::app
