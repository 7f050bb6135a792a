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
