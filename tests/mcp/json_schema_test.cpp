#include "mcp/json_schema.h"

#include <gtest/gtest.h>

namespace uiscope::mcp {
namespace {

using nlohmann::json;

const json kSchema = json::parse(R"({
  "type": "object",
  "additionalProperties": false,
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 3},
    "count": {"type": "integer", "minimum": 0, "maximum": 10},
    "ratio": {"type": "number"},
    "mode": {"type": "string", "enum": ["a", "b"]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "maybe": {"type": ["string", "null"]}
  }
})");

TEST(JsonSchemaTest, AcceptsValid) {
  EXPECT_EQ(ValidateJson(kSchema, json::parse(R"({"name":"ab","count":3,"ratio":0.5,"mode":"a",
      "tags":["x"],"either":4,"maybe":null})")),
            std::nullopt);
  EXPECT_EQ(ValidateJson(kSchema, json::parse(R"({"name":"abc","count":3.0})")), std::nullopt);
  // Lengths count code points, not bytes: "é" is two bytes, one character.
  EXPECT_EQ(ValidateJson(kSchema, json::parse("{\"name\":\"\xc3\xa9\xc3\xa9\xc3\xa9\"}")),
            std::nullopt);
}

TEST(JsonSchemaTest, ReportsThePathAndTheProblem) {
  struct Case {
    const char* value;
    const char* error;
  };
  for (const Case& c : {
           Case{R"({})", "value: missing required property \"name\""},
           Case{R"({"name":5})", "name: expected string, got integer"},
           Case{R"({"name":""})", "name: must be at least 1 characters long"},
           Case{R"({"name":"abcd"})", "name: must be at most 3 characters long"},
           Case{R"({"name":"a","count":11})", "count: must be at most 10, got 11"},
           Case{R"({"name":"a","count":-1})", "count: must be at least 0, got -1"},
           Case{R"({"name":"a","count":1.5})", "count: expected integer, got number"},
           Case{R"({"name":"a","mode":"c"})", "mode: must be one of [\"a\",\"b\"], got \"c\""},
           Case{R"({"name":"a","tags":["x",1]})", "tags[1]: expected string, got integer"},
           Case{R"({"name":"a","tags":["x","y","z"]})", "tags: takes at most 2 items"},
           Case{R"({"name":"a","either":true})", "either: expected string, got boolean"},
           Case{R"({"name":"a","maybe":1})", "maybe: expected string or null, got integer"},
           Case{R"({"name":"a","extra":1})", "value: unknown property \"extra\""},
           Case{R"([])", "value: expected object, got array"},
       }) {
    auto err = ValidateJson(kSchema, json::parse(c.value));
    ASSERT_TRUE(err.has_value()) << c.value;
    EXPECT_EQ(err->substr(0, std::string(c.error).size()), c.error) << c.value << " -> " << *err;
  }
}

// Tool handlers read integer arguments as int: anything beyond it is refused
// before a handler could truncate it (4294967297 -> 1) or hit undefined
// behaviour converting 1e300 (issue 14).
TEST(JsonSchemaTest, ArgumentIntegersMustFitAnInt) {
  const json schema = json::parse(R"({"type":"object","properties":{
      "n":{"type":"integer"}, "m":{"type":"integer","minimum":0},
      "either":{"type":["string","integer"]}, "x":{"type":"number"}}})");
  for (const char* ok : {R"({"n":2147483647})", R"({"n":-2147483648})", R"({"n":3.0})",
                         R"({"either":"4294967297"})", R"({"x":1e300})"}) {
    EXPECT_EQ(ValidateArguments(schema, json::parse(ok)), std::nullopt) << ok;
  }
  struct Case {
    const char* value;
    const char* error;
  };
  for (const Case& c : {
           Case{R"({"n":2147483648})", "n: must be from -2147483648 to 2147483647, got 2147483648"},
           Case{R"({"n":-2147483649})", "n: must be from -2147483648 to 2147483647"},
           Case{R"({"n":4294967297})", "n: must be from"},
           Case{R"({"n":18446744073709551615})", "n: must be from"},
           Case{R"({"n":1e300})", "n: must be from -2147483648 to 2147483647, got 1e+300"},
           Case{R"({"n":-1e19})", "n: must be from"},
           Case{R"({"m":9223372036854775807})", "m: must be from"},
           Case{R"({"either":4294967297})", "either: must be from"},
           Case{R"({"n":1e300,"x":0})", "n: must be from"},
       }) {
    auto err = ValidateArguments(schema, json::parse(c.value));
    ASSERT_TRUE(err.has_value()) << c.value;
    EXPECT_EQ(err->substr(0, std::string(c.error).size()), c.error) << c.value << " -> " << *err;
  }
  // Output is not bound by it: a tool may report a 64-bit count.
  EXPECT_EQ(ValidateJson(schema, json::parse(R"({"n":4294967297})")), std::nullopt);
}

// Integer-valued floats too big for any integer type are still integers in
// JSON Schema, and telling must not convert them (undefined behaviour that
// UBSan reports: the validator once cast 1e300 to long long).
TEST(JsonSchemaTest, HugeFloatsAreComparedWithoutConversion) {
  const json schema = json::parse(R"({"type":"integer","maximum":10})");
  EXPECT_EQ(*ValidateJson(schema, json::parse("1e300")), "value: must be at most 10, got 1e+300");
  EXPECT_EQ(ValidateJson(schema, json::parse("-1e300")), std::nullopt);
  const json integer = json::parse(R"({"type":"integer"})");
  EXPECT_EQ(ValidateJson(integer, json::parse("1.5e300")), std::nullopt);  // a whole number
  EXPECT_EQ(*ValidateJson(integer, json::parse("0.5")), "value: expected integer, got number");
}

TEST(JsonSchemaTest, CheckSchemaRefusesWhatItCannotValidate) {
  EXPECT_EQ(CheckSchema(kSchema), std::nullopt);
  EXPECT_NE(CheckSchema(json::parse(R"({"type":"string","pattern":"^a"})")), std::nullopt);
  EXPECT_NE(CheckSchema(json::parse(R"({"type":"object","properties":{"a":{"$ref":"#"}}})")),
            std::nullopt);
  EXPECT_NE(CheckSchema(json::parse(R"({"type":"object","required":["a"]})")), std::nullopt);
  EXPECT_NE(CheckSchema(json::parse(R"(5)")), std::nullopt);
}

}  // namespace
}  // namespace uiscope::mcp
