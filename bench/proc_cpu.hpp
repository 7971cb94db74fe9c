#pragma once
// CPU time of processes on this machine, read from /proc, for the
// benchmarks' "where the work went" lines. CPU time is far less disturbed
// than wall time by other work on a shared machine. A process that cannot be
// read counts as 0. Linux only; thread-safe (no state).

#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace chopar::bench {

// The fields of /proc/<pid>/stat after "(comm)": [0] state, [1] ppid, ...;
// empty when the process is gone.
inline std::vector<std::string> ReadStat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// The parent of `pid`, 0 when unknown.
inline pid_t ParentOf(pid_t pid) {
  const auto stat = ReadStat(pid);
  return stat.size() > 1 ? static_cast<pid_t>(std::stol(stat[1])) : 0;
}

// CPU seconds (user + system) of `pid` itself (fields 14, 15 of stat) and,
// when asked, of its exited children that were waited for (16, 17).
inline double CpuSeconds(pid_t pid, bool own, bool waited_children) {
  const auto f = ReadStat(pid);
  if (f.size() < 15) return 0;
  double ticks = 0;
  if (own) ticks += std::stod(f[11]) + std::stod(f[12]);
  if (waited_children) ticks += std::stod(f[13]) + std::stod(f[14]);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds so far of a PostgreSQL server on this machine: its
// postmaster, its exited backends and its live ones.
inline double PostgresCpuSeconds(pid_t postmaster) {
  if (postmaster <= 0) return 0;
  double seconds = CpuSeconds(postmaster, true, true);
  std::error_code ec;
  const std::string parent = std::to_string(postmaster);
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    const auto stat = ReadStat(pid);
    if (stat.size() > 1 && stat[1] == parent) seconds += CpuSeconds(pid, true, false);
  }
  return seconds;
}

}  // namespace chopar::bench
