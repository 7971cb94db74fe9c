#include "app/open_files.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace chopar::app {
namespace {

std::uint64_t AsNumber(rlim_t value) {
  return value == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(value);
}

}  // namespace

std::uint64_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("cannot read the open-file limit: {}", std::strerror(errno));
    return 0;
  }
  if (limit.rlim_cur == limit.rlim_max) return AsNumber(limit.rlim_cur);
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  // Linux refuses an unlimited soft limit on descriptors; its ceiling is nr_open.
  if (limit.rlim_cur == RLIM_INFINITY) {
    std::ifstream nr_open("/proc/sys/fs/nr_open");
    unsigned long long ceiling = 1 << 20;
    nr_open >> ceiling;
    limit.rlim_cur = static_cast<rlim_t>(ceiling);
  }
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("cannot raise the open-file limit from {} to {}: {}", before, limit.rlim_max,
                 std::strerror(errno));
    return AsNumber(before);
  }
  spdlog::info("open-file limit raised from {} to {}", before, AsNumber(limit.rlim_cur));
  return AsNumber(limit.rlim_cur);
}

}  // namespace chopar::app
