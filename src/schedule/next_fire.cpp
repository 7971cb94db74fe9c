#include "schedule/next_fire.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "schedule/wall_time_match.hpp"

namespace chopar::schedule {

namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Give up when no firing follows the previous one (or `after`) within this.
constexpr date::days kSearchHorizon{50 * 366};

// The latest instant a core::TimePoint can hold, in whole seconds.
constexpr date::sys_seconds kLatest = std::chrono::floor<seconds>(core::TimePoint::max());

date::local_seconds ToLocal(date::sys_seconds t, seconds offset) {
  return date::local_seconds((t + offset).time_since_epoch());
}

date::sys_seconds ToSys(date::local_seconds t, seconds offset) {
  return date::sys_seconds((t - offset).time_since_epoch());
}

LocalMinutes CeilMinute(date::local_seconds t) { return std::chrono::ceil<minutes>(t); }

// Walks the zone's offset segments (spans of constant UTC offset, from
// sys_info) forward from `after`, yielding firing instants in increasing
// order. Inside a segment local time is UTC plus a constant, so matching wall
// times map to instants one-to-one and in order; only segment boundaries need
// the DST rule:
//  * fixed-time patterns remember the latest wall time already reached
//    (reached_), skip wall times not beyond it (second passes), and fire at a
//    segment's first instant when a matching wall time lies in the gap
//    between reached_ and the segment's first wall time;
//  * wildcard patterns simply take every matching wall time of every segment.
class FireWalker {
 public:
  FireWalker(const CronPattern& pattern, const date::time_zone& zone, core::TimePoint after)
      : pattern_(pattern),
        zone_(zone),
        fixed_(!pattern.IsWildcard()),
        after_(std::chrono::floor<seconds>(after)),
        progress_(after_),
        segment_(zone.get_info(after_)) {
    search_from_ =
        std::max(CeilMinute(ToLocal(segment_.begin, segment_.offset)),
                 std::chrono::floor<minutes>(ToLocal(after_, segment_.offset)) + minutes(1));
    if (!fixed_) return;
    const date::sys_info previous = zone.get_info(segment_.begin - seconds(1));
    reached_ = ToLocal(segment_.begin, previous.offset);
    search_from_ = std::max(search_from_, CeilMinute(reached_));
  }

  std::optional<date::sys_seconds> Next() {
    while (!done_) {
      const date::local_seconds segment_end = ToLocal(segment_.end, segment_.offset);
      const date::local_seconds limit =
          std::min({segment_end, ToLocal(progress_ + kSearchHorizon, segment_.offset),
                    ToLocal(kLatest + seconds(1), segment_.offset)});
      if (const auto wall = NextMatchingWallTime(pattern_, search_from_, limit)) {
        search_from_ = *wall + minutes(1);
        if (auto fire = Emit(ToSys(*wall, segment_.offset))) return fire;
        continue;
      }
      if (limit < segment_end) {
        done_ = true;
        break;
      }
      if (auto fire = EnterNextSegment()) return fire;
    }
    return std::nullopt;
  }

 private:
  // Moves to the segment after the current one; returns the gap firing of a
  // fixed-time pattern at its first instant, if any.
  std::optional<date::sys_seconds> EnterNextSegment() {
    reached_ = std::max(reached_, ToLocal(segment_.end, segment_.offset));
    segment_ = zone_.get_info(segment_.end);
    const date::local_seconds first_wall = ToLocal(segment_.begin, segment_.offset);
    search_from_ = CeilMinute(first_wall);
    if (!fixed_) return std::nullopt;
    search_from_ = std::max(search_from_, CeilMinute(reached_));
    if (first_wall > reached_ && NextMatchingWallTime(pattern_, CeilMinute(reached_), first_wall)) {
      return Emit(segment_.begin);
    }
    return std::nullopt;
  }

  // The instant, unless it repeats the previous firing (a gap firing whose
  // instant also matches) or is not after `after`.
  std::optional<date::sys_seconds> Emit(date::sys_seconds fire) {
    if (fire <= after_ || (last_ && *last_ == fire)) return std::nullopt;
    last_ = fire;
    progress_ = fire;
    return fire;
  }

  const CronPattern& pattern_;
  const date::time_zone& zone_;
  const bool fixed_;
  const date::sys_seconds after_;
  date::sys_seconds progress_;  // the last firing, or `after`; the horizon counts from here
  date::sys_info segment_;
  date::local_seconds reached_{};  // fixed-time only: the latest wall time already shown
  LocalMinutes search_from_;       // next wall time to consider in segment_
  std::optional<date::sys_seconds> last_;
  bool done_ = false;
};

}  // namespace

std::vector<core::TimePoint> NextFireTimes(const CronPattern& pattern, const date::time_zone* zone,
                                           core::TimePoint after, int count) {
  if (zone == nullptr) throw std::invalid_argument("NextFireTimes: zone is null");
  std::vector<core::TimePoint> fires;
  if (count <= 0) return fires;
  fires.reserve(static_cast<std::size_t>(count));
  FireWalker walker(pattern, *zone, after);
  while (fires.size() < static_cast<std::size_t>(count)) {
    const auto fire = walker.Next();
    if (!fire) break;
    fires.push_back(std::chrono::time_point_cast<core::TimePoint::duration>(*fire));
  }
  return fires;
}

std::optional<core::TimePoint> NextFireTime(const CronPattern& pattern, const date::time_zone* zone,
                                            core::TimePoint after) {
  const auto fires = NextFireTimes(pattern, zone, after, 1);
  if (fires.empty()) return std::nullopt;
  return fires.front();
}

}  // namespace chopar::schedule
