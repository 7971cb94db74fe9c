#pragma once

#include <toml++/toml.h>

#include <vector>

#include "reports/job.hpp"

namespace chopar::app {

// Reads the [[reports]] array of tables of the configuration file
// (docs/configuration.md "[[reports]]"): each table's keys as written, with
// the defaults of absent ones. Whether the values make sense (cron, zone,
// period, URL, …) is checked afterwards by reports::CompileReportJobs.
//
// Throws std::runtime_error, its message starting "config: [[reports]]" and
// naming the job (by name, or "#<n>" before it has one) and the key: a
// [reports] that is not an array of tables, an unknown key (with the
// nearest known one), a value of the wrong type. Pure.
std::vector<reports::ReportJobSettings> ReadReportJobs(const toml::node& node);

}  // namespace chopar::app
