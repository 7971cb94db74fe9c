#pragma once

#include "db/pool.hpp"
#include "net/http_client.hpp"
#include "reports/builtin_source.hpp"
#include "reports/http_source.hpp"
#include "reports/source.hpp"

namespace chopar::reports {

// The source each job's configuration names: BuiltinSource for "builtin",
// HttpSource for a URL. The pool and HTTP client must outlive it;
// thread-safe.
class JobSource final : public ReportSource {
 public:
  JobSource(db::Pool& pool, net::HttpClient& http) : builtin_(pool), http_(http) {}

  ReportContent Fetch(const ReportJob& job, const ReportPeriod& period,
                      core::TimePoint due) override {
    if (job.source_url) return http_.Fetch(job, period);
    return builtin_.Fetch(job, period, due);
  }

 private:
  BuiltinSource builtin_;
  HttpSource http_;
};

}  // namespace chopar::reports
