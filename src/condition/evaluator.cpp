// Evaluation never copies the context and never allocates: a value is a
// pointer into the context or the program, a number held by value, or an
// array literal whose elements are evaluated only when it is compared.
// Recursion follows the parsed tree (bounded by the nesting limit) and,
// for == and in, the depth of the context's values.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "condition/program.hpp"

namespace chopar::condition::detail {

namespace {

using nlohmann::json;

const json kNull;
const json kTrue = true;
const json kFalse = false;

struct Value {
  const json* ref = &kNull;  // nullptr: `number` holds it
  json number;
  const Node* array = nullptr;  // an array literal (then ref is unused)

  [[nodiscard]] const json& Json() const { return ref != nullptr ? *ref : number; }
};

Value Ref(const json& value) {
  Value v;
  v.ref = &value;
  return v;
}
Value Bool(bool value) { return Ref(value ? kTrue : kFalse); }

std::variant<std::int64_t, std::uint64_t> Integral(const json& number) {
  if (number.is_number_unsigned()) return number.get<std::uint64_t>();
  return number.get<std::int64_t>();
}

// Integers exactly (int64 against uint64 included); a double against
// anything as doubles; NaN is unordered.
std::partial_ordering CompareNumbers(const json& x, const json& y) {
  if (x.is_number_float() || y.is_number_float()) return x.get<double>() <=> y.get<double>();
  return std::visit(
      [](auto a, auto b) {
        if (std::cmp_less(a, b)) return std::partial_ordering::less;
        if (std::cmp_equal(a, b)) return std::partial_ordering::equivalent;
        return std::partial_ordering::greater;
      },
      Integral(x), Integral(y));
}

// JSON equality: numbers by value (1 == 1.0), other types never equal to
// each other, arrays element by element, objects member by member.
bool JsonEqual(const json& x, const json& y) {
  if (x.is_number() && y.is_number()) return CompareNumbers(x, y) == 0;
  if (x.type() != y.type()) return false;
  switch (x.type()) {
    case json::value_t::null:
      return true;
    case json::value_t::boolean:
      return x.get<bool>() == y.get<bool>();
    case json::value_t::string:
      return *x.get_ptr<const json::string_t*>() == *y.get_ptr<const json::string_t*>();
    case json::value_t::array:
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!JsonEqual(x[i], y[i])) return false;
      }
      return true;
    case json::value_t::object:
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x.items()) {
        const auto other = y.find(key);
        if (other == y.end() || !JsonEqual(value, *other)) return false;
      }
      return true;
    case json::value_t::binary:
      return *x.get_ptr<const json::binary_t*>() == *y.get_ptr<const json::binary_t*>();
    default:  // discarded: not a value
      return false;
  }
}

class Evaluator {
 public:
  Evaluator(const Program& program, const json& context) : program_(program), context_(context) {}

  Value Eval(std::uint32_t index) const {
    const Node& node = program_.nodes[index];
    const auto operand = [&](std::size_t i) { return Eval(node.operands[i]); };
    switch (node.kind) {
      case NodeKind::kLiteral:
        return Ref(node.literal);
      case NodeKind::kPath:
        return Ref(Lookup(node));
      case NodeKind::kArray: {
        Value value;
        value.array = &node;
        return value;
      }
      case NodeKind::kNot:
        return Bool(!Truthy(operand(0)));
      case NodeKind::kNegate: {
        const Value value = operand(0);
        if (value.array != nullptr || !value.Json().is_number()) return Ref(kNull);
        Value negated;
        negated.ref = nullptr;
        negated.number = NegateNumber(value.Json());
        return negated;
      }
      case NodeKind::kOr:
        for (const std::uint32_t i : node.operands) {
          if (Truthy(Eval(i))) return Bool(true);
        }
        return Bool(false);
      case NodeKind::kAnd:
        for (const std::uint32_t i : node.operands) {
          if (!Truthy(Eval(i))) return Bool(false);
        }
        return Bool(true);
      case NodeKind::kEqual:
        return Bool(Equal(operand(0), operand(1)));
      case NodeKind::kNotEqual:
        return Bool(!Equal(operand(0), operand(1)));
      case NodeKind::kLess:
        return Bool(Order(operand(0), operand(1)) < 0);
      case NodeKind::kLessEqual:
        return Bool(Order(operand(0), operand(1)) <= 0);
      case NodeKind::kGreater:
        return Bool(Order(operand(0), operand(1)) > 0);
      case NodeKind::kGreaterEqual:
        return Bool(Order(operand(0), operand(1)) >= 0);
      case NodeKind::kIn:
        return Bool(In(operand(0), operand(1)));
    }
    return Ref(kNull);
  }

  static bool Truthy(const Value& value) {
    if (value.array != nullptr) return !value.array->operands.empty();
    const json& j = value.Json();
    switch (j.type()) {
      case json::value_t::boolean:
        return j.get<bool>();
      case json::value_t::number_integer:
        return j.get<std::int64_t>() != 0;
      case json::value_t::number_unsigned:
        return j.get<std::uint64_t>() != 0;
      case json::value_t::number_float: {
        const double d = j.get<double>();
        return d != 0 && !std::isnan(d);
      }
      case json::value_t::string:
        return !j.get_ptr<const json::string_t*>()->empty();
      case json::value_t::array:
      case json::value_t::object:
        return !j.empty();
      case json::value_t::binary:
        return !j.get_binary().empty();
      default:  // null, discarded
        return false;
    }
  }

 private:
  // The value at the node's path, or null where a step finds nothing.
  const json& Lookup(const Node& node) const {
    const json* at = &context_;
    const auto member = [&at](const std::string& key) {
      if (!at->is_object()) return false;
      const auto found = at->find(key);
      if (found == at->end()) return false;
      at = &*found;
      return true;
    };
    if (!member(node.root)) return kNull;
    for (const PathStep& step : node.path) {
      if (!step.is_index) {
        if (!member(step.key)) return kNull;
      } else if (at->is_array() && step.index < at->size()) {
        at = &(*at)[step.index];
      } else {
        return kNull;
      }
    }
    return *at;
  }

  bool Equal(const Value& a, const Value& b) const {
    if (a.array == nullptr && b.array == nullptr) return JsonEqual(a.Json(), b.Json());
    if (a.array == nullptr) return Equal(b, a);
    const auto& elements = a.array->operands;
    if (b.array != nullptr) {
      const auto& others = b.array->operands;
      if (elements.size() != others.size()) return false;
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (!Equal(Eval(elements[i]), Eval(others[i]))) return false;
      }
      return true;
    }
    const json& other = b.Json();
    if (!other.is_array() || other.size() != elements.size()) return false;
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (!Equal(Eval(elements[i]), Ref(other[i]))) return false;
    }
    return true;
  }

  // Two numbers or two strings (by code point: UTF-8's byte order);
  // anything else is unordered, so every ordering comparison is false.
  static std::partial_ordering Order(const Value& a, const Value& b) {
    if (a.array != nullptr || b.array != nullptr) return std::partial_ordering::unordered;
    const json& x = a.Json();
    const json& y = b.Json();
    if (x.is_number() && y.is_number()) return CompareNumbers(x, y);
    if (x.is_string() && y.is_string()) {
      return *x.get_ptr<const json::string_t*>() <=> *y.get_ptr<const json::string_t*>();
    }
    return std::partial_ordering::unordered;
  }

  // An element equal to `needle` (arrays), or a substring (strings).
  bool In(const Value& needle, const Value& haystack) const {
    if (haystack.array != nullptr) {
      for (const std::uint32_t i : haystack.array->operands) {
        if (Equal(needle, Eval(i))) return true;
      }
      return false;
    }
    const json& h = haystack.Json();
    if (h.is_array()) {
      for (const json& element : h) {
        if (Equal(needle, Ref(element))) return true;
      }
      return false;
    }
    if (h.is_string() && needle.array == nullptr && needle.Json().is_string()) {
      return h.get_ptr<const json::string_t*>()->find(
                 *needle.Json().get_ptr<const json::string_t*>()) != std::string::npos;
    }
    return false;
  }

  const Program& program_;
  const json& context_;
};

}  // namespace

json NegateNumber(const json& number) noexcept {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
  if (number.is_number_unsigned()) {
    const auto u = number.get<std::uint64_t>();
    if (u < kMinMagnitude) return -static_cast<std::int64_t>(u);
    if (u == kMinMagnitude) return kMin;
    return -static_cast<double>(u);
  }
  if (number.is_number_integer()) {
    const auto i = number.get<std::int64_t>();
    if (i == kMin) return kMinMagnitude;
    return -i;
  }
  return -number.get<double>();
}

bool Evaluate(const Program& program, const json& context) noexcept {
  const Evaluator evaluator(program, context);
  return Evaluator::Truthy(evaluator.Eval(program.top));
}

}  // namespace chopar::condition::detail
