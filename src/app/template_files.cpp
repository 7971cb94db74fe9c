#include "app/template_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace chopar::app {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kExtension = ".json";
constexpr std::string_view kTenants = "tenants";

bool Hidden(const fs::path& path) { return path.filename().string().starts_with('.'); }

// The entries of `folder` sorted by name (byte order), or a problem.
std::vector<fs::directory_entry> SortedEntries(const fs::path& folder, std::string_view name,
                                               std::vector<std::string>& problems) {
  std::vector<fs::directory_entry> entries;
  std::error_code error;
  fs::directory_iterator it(folder, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    if (!Hidden(it->path())) entries.push_back(*it);
  }
  if (error) {
    problems.push_back(std::string(name) + ": cannot be read: " + error.message());
    return {};
  }
  std::ranges::sort(entries, {}, [](const fs::directory_entry& e) { return e.path().filename(); });
  return entries;
}

// The files of one folder (global or a tenant's) into `listing`.
void ListFolder(const fs::path& dir, const std::optional<std::string>& tenant,
                const std::string& folder, DocumentListing& listing) {
  const fs::path path = DocumentPath(dir, tenant, folder, "x").parent_path();
  const std::string name = fs::relative(path, dir).generic_string();
  std::error_code error;
  if (!fs::exists(path, error)) return;
  if (!fs::is_directory(path, error)) {
    listing.problems.push_back(name + ": is not a folder");
    return;
  }
  for (const fs::directory_entry& entry : SortedEntries(path, name, listing.problems)) {
    const std::string file = entry.path().filename().string();
    if (entry.is_directory(error) || !file.ends_with(kExtension) ||
        file.size() == kExtension.size()) {
      listing.problems.push_back(name + "/" + file + ": only <key>.json files belong here");
      continue;
    }
    if (listing.files.size() >= kMaxDocumentFiles) {
      listing.problems.push_back(name + ": more than " + std::to_string(kMaxDocumentFiles) +
                                 " files in all");
      return;
    }
    listing.files.push_back(
        {tenant, folder, file.substr(0, file.size() - kExtension.size()), entry.path()});
  }
}

}  // namespace

std::string DocumentFile::Name() const {
  std::string name = tenant ? std::string(kTenants) + "/" + *tenant + "/" : std::string();
  return name + folder + "/" + key + std::string(kExtension);
}

std::string FormatDocument(const nlohmann::json& document) { return document.dump(2) + "\n"; }

fs::path DocumentPath(const fs::path& dir, const std::optional<std::string>& tenant,
                      std::string_view folder, std::string_view key) {
  const fs::path scope = tenant ? dir / kTenants / *tenant : dir;
  return scope / folder / (std::string(key) + std::string(kExtension));
}

DocumentListing ListDocumentFiles(const fs::path& dir, const std::vector<std::string>& folders) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw std::runtime_error(dir.string() + " is not a folder");
  }
  DocumentListing listing;
  std::vector<std::string> tenants;
  const fs::path tenants_path = dir / kTenants;
  if (fs::exists(tenants_path, error)) {
    for (const auto& entry : SortedEntries(tenants_path, kTenants, listing.problems)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_directory(error)) {
        listing.problems.push_back(std::string(kTenants) + "/" + name + ": is not a folder");
        continue;
      }
      tenants.push_back(name);
    }
  }
  for (const std::string& folder : folders) {
    ListFolder(dir, std::nullopt, folder, listing);
    for (const std::string& tenant : tenants) ListFolder(dir, tenant, folder, listing);
  }
  return listing;
}

nlohmann::json ReadDocumentFile(const DocumentFile& file) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(file.path, error);
  if (error) throw std::runtime_error("cannot be read: " + error.message());
  if (size > kMaxDocumentFileBytes) {
    throw std::runtime_error("is larger than " + std::to_string(kMaxDocumentFileBytes) + " bytes");
  }
  std::ifstream in(file.path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot be read");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(std::string("is not JSON: ") + e.what());
  }
}

bool WriteDocumentFile(const fs::path& path, const std::string& text) {
  std::error_code error;
  if (fs::file_size(path, error) == text.size() && !error) {
    std::ifstream in(path, std::ios::binary);
    const std::string old{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (old == text) return false;
  }
  fs::create_directories(path.parent_path(), error);
  if (error) throw std::runtime_error(path.parent_path().string() + ": " + error.message());
  // A dot file: a listing passes over one a crash left behind.
  const fs::path temporary =
      path.parent_path() / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      fs::remove(temporary, error);
      throw std::runtime_error(path.string() + ": cannot be written");
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error(path.string() + ": " + error.message());
  }
  return true;
}

}  // namespace chopar::app
