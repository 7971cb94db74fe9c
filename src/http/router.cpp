#include "http/router.hpp"

#include <algorithm>
#include <stdexcept>

namespace chopar::http {
namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<Route::Segment> ParsePattern(std::string_view pattern) {
  if (pattern.empty() || pattern.front() != '/') {
    throw std::invalid_argument("route pattern must start with '/': " + std::string(pattern));
  }
  std::vector<Route::Segment> segments;
  for (const std::string_view piece : SplitPath(pattern)) {
    if (piece.empty())
      throw std::invalid_argument("empty segment in route " + std::string(pattern));
    if (piece.front() != '{') {
      if (piece.find_first_of("{}") != std::string_view::npos) {
        throw std::invalid_argument("malformed route segment " + std::string(piece));
      }
      segments.push_back({Route::Segment::Kind::kLiteral, std::string(piece)});
      continue;
    }
    if (piece.back() != '}' || piece.size() < 3) {
      throw std::invalid_argument("malformed route parameter " + std::string(piece));
    }
    std::string_view name = piece.substr(1, piece.size() - 2);
    auto kind = Route::Segment::Kind::kId;
    if (const auto colon = name.find(':'); colon != std::string_view::npos) {
      if (name.substr(colon + 1) != "str") {
        throw std::invalid_argument("unknown parameter type in " + std::string(piece));
      }
      kind = Route::Segment::Kind::kString;
      name = name.substr(0, colon);
    }
    if (name.empty())
      throw std::invalid_argument("unnamed route parameter in " + std::string(pattern));
    segments.push_back({kind, std::string(name)});
  }
  return segments;
}

// Whether `route` matches `path`, and how specific the match is: literal
// positions are false, parameters true; the lexicographically smallest wins.
bool Matches(const Route& route, const std::vector<std::string_view>& path,
             std::vector<bool>& shape) {
  if (route.segments.size() != path.size()) return false;
  shape.clear();
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto& segment = route.segments[i];
    switch (segment.kind) {
      case Route::Segment::Kind::kLiteral:
        if (segment.text != path[i]) return false;
        shape.push_back(false);
        break;
      case Route::Segment::Kind::kId:
        if (!AllDigits(path[i])) return false;
        shape.push_back(true);
        break;
      case Route::Segment::Kind::kString:
        if (path[i].empty()) return false;
        shape.push_back(true);
        break;
    }
  }
  return true;
}

}  // namespace

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> segments;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return segments;  // the root, "/": no segment
  while (true) {
    const auto slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

void Router::Add(std::string method, std::string pattern, Auth auth, Handler handler,
                 std::size_t body_limit) {
  for (const auto& route : routes_) {
    if (route.method == method && route.pattern == pattern) {
      throw std::invalid_argument("duplicate route " + method + " " + pattern);
    }
  }
  Route route{std::move(method), std::move(pattern), auth, std::move(handler), {}, body_limit, {}};
  route.segments = ParsePattern(route.pattern);
  if (auth == Auth::kServerKey) route.access = DeclaredAccess(route.method, route.pattern);
  routes_.push_back(std::move(route));
}

std::size_t Router::BodyLimitFor(std::string_view method, std::string_view path,
                                 std::size_t fallback) const {
  const Match match = Find(method, path);
  if (match.outcome != Match::Outcome::kFound || match.route->body_limit == 0) return fallback;
  return match.route->body_limit;
}

std::size_t Router::LargestBodyLimit(std::size_t fallback) const {
  std::size_t largest = fallback;
  for (const auto& route : routes_) largest = std::max(largest, route.body_limit);
  return largest;
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  const auto segments = SplitPath(path);
  Match match;
  const Route* best = nullptr;
  std::vector<bool> best_shape;
  std::vector<bool> shape;
  for (const auto& route : routes_) {
    if (!Matches(route, segments, shape)) continue;
    if (route.method != method) {
      if (std::find(match.allowed_methods.begin(), match.allowed_methods.end(), route.method) ==
          match.allowed_methods.end()) {
        match.allowed_methods.push_back(route.method);
      }
      continue;
    }
    if (best == nullptr || shape < best_shape) {
      best = &route;
      best_shape = shape;
    }
  }
  if (best == nullptr) {
    match.outcome = match.allowed_methods.empty() ? Match::Outcome::kNotFound
                                                  : Match::Outcome::kMethodNotAllowed;
    std::sort(match.allowed_methods.begin(), match.allowed_methods.end());
    return match;
  }
  match.outcome = Match::Outcome::kFound;
  match.route = best;
  match.allowed_methods.clear();
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (best->segments[i].kind != Route::Segment::Kind::kLiteral) {
      match.raw_params.emplace_back(segments[i]);
    }
  }
  return match;
}

}  // namespace chopar::http
