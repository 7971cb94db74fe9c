#include "app/report_config.hpp"

#include <stdexcept>
#include <string>

#include "app/closest_name.hpp"
#include "app/config_value.hpp"

namespace chopar::app {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error("config: [[reports]] " + message);
}

// recipients = "admins" | [user ids].
void ReadRecipients(const toml::node& node, reports::ReportJobSettings& job,
                    const std::string& label) {
  if (const auto* text = node.as_string()) {
    if (text->get() != "admins") {
      Fail(label + " recipients = \"" + text->get() + "\" is not valid (\"admins\" or user ids)");
    }
    job.recipient_ids.reset();
    return;
  }
  const toml::array* ids = node.as_array();
  if (ids == nullptr)
    Fail(label + " recipients has the wrong type (expected \"admins\" or a list)");
  std::vector<std::int64_t> list;
  for (const toml::node& id : *ids) {
    const auto* integer = id.as_integer();
    if (integer == nullptr) Fail(label + " recipients has the wrong type (expected user ids)");
    list.push_back(integer->get());
  }
  job.recipient_ids = std::move(list);
}

reports::ReportJobSettings ReadJob(const toml::table& table, std::size_t index) {
  reports::ReportJobSettings job;
  double threshold = 0;
  const std::vector<std::pair<std::string, SettingTarget>> keys = {
      {"name", &job.name},       {"kind", &job.kind},
      {"cron", &job.cron},       {"timezone", &job.timezone},
      {"period", &job.period},   {"catchup_window_seconds", &job.catchup_window},
      {"source", &job.source},   {"locale", &job.locale},
      {"threshold", &threshold}, {"timeout_seconds", &job.timeout},
  };
  // The name first, so every later message can name the job.
  if (const toml::node* name = table.get("name"); name != nullptr && name->is_string()) {
    job.name = name->as_string()->get();
  }
  const std::string label = reports::JobLabel(job, index);
  for (auto&& [key_node, node] : table) {
    const std::string key(key_node.str());
    if (key == "recipients") {
      ReadRecipients(node, job, label);
      continue;
    }
    const auto binding =
        std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; });
    if (binding == keys.end()) {
      std::vector<std::string> known = {"recipients"};
      for (const auto& [known_key, target] : keys) known.push_back(known_key);
      const auto closest = ClosestName(key, known);
      Fail(label + " unknown key " + key +
           (closest ? " (did you mean " + known[*closest] + "?)" : ""));
    }
    if (const std::optional<Refusal> refusal = AssignToml(node, binding->second)) {
      Fail(label + " " + key + (refusal->wrong_type ? " has the wrong type (" : " is not valid (") +
           refusal->reason + ")");
    }
    if (key == "threshold") job.threshold = threshold;
  }
  return job;
}

}  // namespace

std::vector<reports::ReportJobSettings> ReadReportJobs(const toml::node& node) {
  const toml::array* tables = node.as_array();
  if (tables == nullptr || !tables->is_array_of_tables()) {
    if (tables == nullptr || !tables->empty()) {
      Fail("must be an array of tables: one [[reports]] header per job");
    }
  }
  std::vector<reports::ReportJobSettings> jobs;
  for (std::size_t i = 0; i < tables->size(); ++i) {
    jobs.push_back(ReadJob(*tables->get(i)->as_table(), i));
  }
  return jobs;
}

}  // namespace chopar::app
