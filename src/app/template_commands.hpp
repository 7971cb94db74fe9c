#pragma once

#include <iosfwd>
#include <string>

#include "app/config.hpp"

namespace chopar::app {

// `chopar templates export DIR`: writes every live template (and layout and
// partial) of the configured database into DIR as app/template_files.hpp
// lays it out, one file a document, each as FormatDocument writes it, so
// the same documents give the same bytes. A file that already holds its
// document is left as it is; a *.json file of those folders whose document
// is no longer live is removed. Prints each file written or removed and the
// totals on `out`, progress on `err` (at most once a second). Returns 0, or
// 1 when a file cannot be written (said on `err`).
int RunTemplatesExport(const Config& config, const std::string& dir, std::ostream& out,
                       std::ostream& err);

// `chopar templates import DIR`: reads what export wrote (layouts, then
// partials, then templates; in each the global ones, then each tenant's;
// by key) and checks every file as PUT would before writing any: a file
// that is not JSON or that PUT would refuse, a key or tenant folder of the
// wrong form, a tenant the database does not have. With any such problem it
// prints each (the file, the field and why) on `err`, writes nothing and
// returns 1. Else it stores each document that differs from the live one
// through the API's store (so it is recorded as a PUT is) and prints
// "created", "updated" or "unchanged" and the file a line on `out`, and the
// totals. Never deletes. Returns 0, 1 when a write fails (those before it
// stay written; run it again), 2 when DIR is not a folder.
int RunTemplatesImport(const Config& config, const std::string& dir, std::ostream& out,
                       std::ostream& err);

}  // namespace chopar::app
