// What a parsed condition means (docs/conditions.md): every operator,
// precedence, paths and missing paths, truthiness, type mismatches.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "condition/condition.hpp"

namespace chopar::condition {
namespace {

using nlohmann::json;

// A context as the workflow engine builds it.
json Context() {
  return json::parse(R"({
    "data": {"project": "chopar", "count": 3, "ratio": 0.5, "zero": 0, "zero_float": 0.0,
             "empty": "", "empty_list": [], "empty_object": {}, "list": [1, "two", null, [3]],
             "nested": {"a": {"b": true}}, "odd key": "x", "big": 18446744073709551615,
             "neg": -1, "in": 1, "null": 2, "true": 3},
    "user": {"id": 1, "locale": "uz", "timezone": "Asia/Tashkent", "data": {"plan": "pro"}},
    "tenant": "acme",
    "notification": {"id": 10, "type": "comment", "category": null, "critical": false,
                     "tags": ["urgent", "billing"], "seen": false, "read": false, "archived": false},
    "steps": [{"outcome": "sent", "channel": "in_app"}, {"outcome": "failed", "channel": "push"}],
    "step": {"first": {"outcome": "sent", "channel": "in_app"},
             "push_first": {"outcome": "failed", "channel": "push"}}
  })");
}

bool Eval(std::string_view source, const json& context = Context()) {
  return Condition::Parse(source).Evaluate(context);
}

// Each condition is true over Context().
void ExpectTrue(std::initializer_list<std::string_view> sources) {
  for (const auto source : sources) EXPECT_TRUE(Eval(source)) << source;
}

void ExpectFalse(std::initializer_list<std::string_view> sources) {
  for (const auto source : sources) EXPECT_FALSE(Eval(source)) << source;
}

TEST(ConditionEvaluateTest, TheIssuesExamples) {
  const auto unseen_pro =
      Condition::Parse("notification.seen == false && user.data.plan == \"pro\"");
  json context = Context();
  EXPECT_TRUE(unseen_pro.Evaluate(context));
  context["notification"]["seen"] = true;
  EXPECT_FALSE(unseen_pro.Evaluate(context));
  context["notification"]["seen"] = false;
  context["user"]["data"]["plan"] = "free";
  EXPECT_FALSE(unseen_pro.Evaluate(context));

  ExpectTrue({"steps[1].outcome in [\"failed\", \"skipped\"]",
              "step.push_first.outcome == \"failed\"", "steps[0].channel == \"in_app\""});
  ExpectFalse(
      {"steps[0].outcome in [\"failed\", \"skipped\"]", "steps[2].outcome in [\"failed\"]"});
}

TEST(ConditionEvaluateTest, TruthinessOfLiterals) {
  ExpectTrue({"true", "1", "-1", "0.5", "\"x\"", "\"false\"", "\"0\"", "[0]", "[false]", "[[]]"});
  ExpectFalse({"false", "null", "0", "0.0", "-0", "-0.0", "0e5", "\"\"", "[]"});
}

TEST(ConditionEvaluateTest, TruthinessOfContextValues) {
  ExpectTrue({"data", "data.count", "data.list", "data.nested", "tenant", "steps", "data.big"});
  ExpectFalse({"data.zero", "data.zero_float", "data.empty", "data.empty_list", "data.empty_object",
               "notification.category", "data.missing", "notification.seen"});
  EXPECT_FALSE(Eval("data", {{"data", json::object()}}));
  EXPECT_FALSE(Eval("data", {{"data", std::numeric_limits<double>::quiet_NaN()}}));
}

TEST(ConditionEvaluateTest, NotAndNegate) {
  ExpectTrue({"!false", "!null", "!data.missing", "!!data.count", "!notification.seen", "!\"\"",
              "![]", "!!\"x\""});
  ExpectFalse({"!true", "!data", "!!data.zero", "![1]"});
  ExpectTrue({"-data.count == -3", "-(-5) == 5", "--5 == 5", "-data.ratio == -0.5",
              "-data.project == null", "-null == null", "-true == null", "-[1] == null",
              "-\"1\" == null", "-data.missing == null"});
  // Exact at the ends of what JSON integers hold.
  ExpectTrue({"-9223372036854775808 < 0", "-(-9223372036854775808) == 9223372036854775808",
              "-(-9223372036854775808) > 9223372036854775807", "-data.big < -9223372036854775807",
              "-data.big == -18446744073709551615.0", "-data.neg == 1"});
}

TEST(ConditionEvaluateTest, OrAndAndGiveBooleansAndShortCircuit) {
  ExpectTrue({"true || false", "false || 1", "data.missing || data.count", "true && 1",
              "(data.count && data.project) == true", "(false || \"x\") == true",
              "(data.zero || data.empty) == false", "false || false || false || true"});
  ExpectFalse({"false || null", "true && 0", "data.count && data.missing", "true && true && false",
               "(true && \"x\") == \"x\""});
}

TEST(ConditionEvaluateTest, EqualityIsJsonEquality) {
  ExpectTrue({"1 == 1.0",
              "1.0 == 1",
              "10 == 1e1",
              "0 == -0.0",
              "null == null",
              "data.missing == null",
              "notification.category == null",
              "data.project == \"chopar\"",
              "true == true",
              "data.list == [1, \"two\", null, [3]]",
              "data.list == [1.0, \"two\", null, [3.0]]",
              "[1, [2]] == [1, [2.0]]",
              "[] == []",
              "[] == data.empty_list",
              "data.nested == data.nested",
              "user.data == user.data",
              "data.empty_object == data.empty_object",
              "1 != 2",
              "\"1\" != 1",
              "data.list != [1]",
              "data.big == 18446744073709551615",
              "user.data != data.nested"});
  ExpectFalse({"\"1\" == 1", "true == 1", "false == 0", "null == false", "null == 0",
               "\"\" == null", "[] == null", "[1] == 1", "data.list == [1, \"two\", null]",
               "data.nested == user.data", "data.empty_list == data.empty_object", "1 != 1.0",
               // Unsigned above int64's range against a negative: never equal (no wrap-around).
               "data.big == data.neg", "data.big == -1"});
  // Objects: the same members with equal values, in any order.
  const auto objects = [](std::string_view a, std::string_view b) {
    return Eval("data.a == data.b", {{"data", {{"a", json::parse(a)}, {"b", json::parse(b)}}}});
  };
  EXPECT_TRUE(objects(R"({"x": 1, "y": [1, 2]})", R"({"y": [1.0, 2], "x": 1.0})"));
  EXPECT_FALSE(objects(R"({"x": 1})", R"({"z": 1})"));
  EXPECT_FALSE(objects(R"({"x": 1})", R"({"x": 1, "y": 1})"));
  EXPECT_FALSE(objects(R"({"x": 1})", R"({"x": "1"})"));
}

TEST(ConditionEvaluateTest, OrderingTakesTwoNumbersOrTwoStrings) {
  ExpectTrue({"2 < 3", "3 <= 3", "3 >= 3", "4 > 3", "data.ratio > 0.4", "data.count > 2.5",
              "-1 < 0", "1 < 1.5", "data.count >= 3.0", "\"a\" < \"b\"", "\"ab\" > \"a\"",
              "\"\" < \"a\"", "\"B\" < \"a\"", "\"é\" > \"z\"", "\"😀\" > \"\xef\xbf\xbf\"",
              "data.big > 9223372036854775807", "data.neg < data.big", "data.big > 1.8e19"});
  ExpectFalse({"3 < 2", "3 < 3", "\"b\" < \"a\"",
               // Anything else is unordered: every ordering comparison is false.
               "\"1\" < 2", "\"1\" >= 2", "2 <= \"1\"", "null < 1", "null <= null", "1 > null",
               "true > false", "[1] < [2]", "[1] <= [1]", "data.list >= data.list",
               "data.nested > data.nested", "data.missing < 1", "data.missing >= data.missing"});
  const json nan = {{"data", {{"x", std::numeric_limits<double>::quiet_NaN()}}}};
  for (const auto source : {"data.x < 1", "data.x >= 1", "data.x == data.x", "data.x <= data.x"}) {
    EXPECT_FALSE(Eval(source, nan)) << source;
  }
  EXPECT_TRUE(Eval("data.x != data.x", nan));
}

TEST(ConditionEvaluateTest, InFindsAnElementOrASubstring) {
  ExpectTrue({"\"urgent\" in notification.tags", "1 in data.list", "1.0 in data.list",
              "null in data.list", "[3] in data.list", "[3.0] in data.list",
              "data.count in [1, 2, 3]", "\"x\" in [data.project, \"x\"]", "[1] in [[1], 2]",
              "\"hop\" in data.project", "\"\" in \"abc\"", "\"chopar\" in data.project",
              "\"é\" in \"café\"", "data.missing in [null]", "(1 in [1]) in [true]"});
  ExpectFalse({"\"x\" in notification.tags", "\"urgent\" in []", "3 in data.list", "\"1\" in [1]",
               "1 in \"1\"", "\"a\" in data", "\"project\" in data", "\"a\" in null",
               "\"a\" in data.missing", "[\"a\"] in \"a\"", "\"abcd\" in \"abc\"",
               "data.list in data.list", "\"x\" in 1"});
}

TEST(ConditionEvaluateTest, PrecedenceFromLoosestToTightest) {
  // || < && < == != < < <= > >= < in < unary
  ExpectTrue({"true || false && false", "false && false || true", "1 == 1 && 2 < 3",
              "1 < 2 == true", "2 > 1 != false", "\"a\" in [\"a\"] == true", "!true == false",
              "!1 in [false]", "-1 in [-1]", "-data.count < -2 == true", "1 == 2 || 3 == 3",
              "!(1 == 2)", "(true || false) == true", "1 < 2 == 2 > 1"});
  ExpectFalse(
      {"(true || false) && false", "!(true || false)", "!true || false", "(1 == 1) == false"});
}

TEST(ConditionEvaluateTest, PathsWalkMembersAndElements) {
  ExpectTrue({"data[\"odd key\"] == \"x\"", "data[\"project\"] == data.project",
              "data.nested.a.b == true", "data.nested[\"a\"][\"b\"]", "data.list[3][0] == 3",
              "data.list[1] == \"two\"", "user.data.plan == \"pro\"", "tenant == \"acme\"",
              "notification.tags[0] == \"urgent\"", "data.in == 1", "data.null == 2",
              "data.true == 3", "steps[1] == step.push_first", "data . nested . a . b"});
}

TEST(ConditionEvaluateTest, MissingPathsAndWrongTypesAreNull) {
  ExpectTrue({"data.nope == null", "data.nope.deeper == null", "steps[5].outcome == null",
              "data.list[4] == null", "data.list[18446744073709551615] == null",
              "data.project.length == null", "data.project[0] == null", "data.list.first == null",
              "data[0] == null", "data.count.x == null", "notification.category.name == null",
              "tenant.name == null", "steps.push_first == null", "step[0] == null",
              "data.list[\"1\"] == null"});
}

TEST(ConditionEvaluateTest, AContextThatIsNotAnObjectMakesEveryPathNull) {
  for (const json& context :
       {json(nullptr), json::array({1, 2}), json("data"), json(1), json::object()}) {
    EXPECT_TRUE(Eval("data == null && user.id == null && steps[0] == null", context)) << context;
    EXPECT_FALSE(Eval("data", context)) << context;
    EXPECT_TRUE(Eval("1 < 2", context)) << context;
  }
}

TEST(ConditionEvaluateTest, StringEscapesDecodeToTheirCharacters) {
  ExpectTrue({"\"\\u00e9\" == \"é\"", "\"\\ud83d\\ude00\" == \"😀\"", "\"\\\"\" != \"\\\\\"",
              "\"a\\/b\" == \"a/b\"", "\"\\n\" != \"n\"", "\"\\u0000\" != \"\""});
  EXPECT_TRUE(
      Eval("data.s == \"line\\nbreak\\t\\\"q\\\"\"", {{"data", {{"s", "line\nbreak\t\"q\""}}}}));
}

TEST(ConditionEvaluateTest, EvaluationIsRepeatableAndLeavesTheContextAlone) {
  const json context = Context();
  const json before = context;
  const auto condition = Condition::Parse(
      "data.list == [1, \"two\", null, [3]] && \"urgent\" in notification.tags && -data.count < 0");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(condition.Evaluate(context));
  EXPECT_EQ(context, before);
}

TEST(ConditionEvaluateTest, NumbersBeyond64BitsAreDoubles) {
  ExpectTrue({"18446744073709551616 == 1.8446744073709551616e19",
              "18446744073709551616 >= data.big", "100000000000000000000 > 18446744073709551615"});
}

}  // namespace
}  // namespace chopar::condition
