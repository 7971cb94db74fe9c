#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::app {

// The folder `chopar templates export` writes and `chopar templates import`
// reads (docs/operations.md "Promoting templates"):
//
//   DIR/<folder>/<key>.json                      a global document
//   DIR/tenants/<tenant>/<folder>/<key>.json     a tenant's own
//
// where <folder> is "layouts", "partials" or "templates" and the file holds
// the document as FormatDocument writes it.

// One document's file in the folder.
struct DocumentFile {
  std::optional<std::string> tenant;  // none: a global document
  std::string folder;                 // "templates", …
  std::string key;                    // the file's name without ".json"
  std::filesystem::path path;         // the whole path, under DIR

  // The path under DIR, for messages: "tenants/acme/templates/task.due.json".
  [[nodiscard]] std::string Name() const;
};

// The largest document file read (a template's PUT body is at most 1 MiB
// compact; pretty-printed it grows) and the most files one folder may hold.
inline constexpr std::uintmax_t kMaxDocumentFileBytes = 8u << 20;
inline constexpr std::size_t kMaxDocumentFiles = 100'000;

// `document` as a file holds it: two-space indents, keys sorted (nlohmann's
// objects are ordered maps), UTF-8 as is, and a final newline. The same
// document always gives the same bytes.
std::string FormatDocument(const nlohmann::json& document);

// DIR/<folder>/<key>.json or DIR/tenants/<tenant>/<folder>/<key>.json.
std::filesystem::path DocumentPath(const std::filesystem::path& dir,
                                   const std::optional<std::string>& tenant,
                                   std::string_view folder, std::string_view key);

// What ListDocumentFiles found: the files, and what it could not take
// (each a message naming the path under DIR).
struct DocumentListing {
  std::vector<DocumentFile> files;
  std::vector<std::string> problems;
};

// Every document file of `folders` under `dir`, in the order an import
// writes them: by folder in the order given, and in each folder the global
// files first, then each tenant's in the order of its key, each set by key
// (byte order). Names other than the folders, at DIR's top and in a
// tenant's folder, and dot files are left alone (a README, .git). A problem
// is a file in a folder not named *.json, a folder inside one, a tenant
// entry that is not a folder, more than kMaxDocumentFiles files, or a
// folder that cannot be read. Throws std::runtime_error when `dir` is not a
// readable folder.
DocumentListing ListDocumentFiles(const std::filesystem::path& dir,
                                  const std::vector<std::string>& folders);

// The JSON of `file`. Throws std::runtime_error saying why (cannot be read,
// larger than kMaxDocumentFileBytes, not JSON: with the parser's position).
nlohmann::json ReadDocumentFile(const DocumentFile& file);

// Writes `text` to `path` (its folders made first) unless the file already
// holds exactly it; returns whether it wrote. Written to a temporary file
// beside it and renamed over it, so a reader never sees half a file. Throws
// std::runtime_error naming the path.
bool WriteDocumentFile(const std::filesystem::path& path, const std::string& text);

}  // namespace chopar::app
