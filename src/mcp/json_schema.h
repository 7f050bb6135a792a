// A validator for the JSON Schema subset uiscope's tools declare.
//
// Tool arguments are checked against the tool's `inputSchema` before the
// handler runs, so a handler sees only well-typed input and a model gets one
// precise message ("max_nodes: expected integer, got string") to correct its
// call. Tests check every tool's structuredContent against its
// `outputSchema` with the same code.
//
// Supported keywords: type (string or array), properties, required,
// additionalProperties (bool or schema), items, enum, const, minimum,
// maximum, minLength, maxLength (in Unicode code points), minItems,
// maxItems, anyOf, oneOf, description/title/default/$schema (ignored).
// Any other keyword is a schema error, reported by CheckSchema, so a tool
// cannot declare a constraint that would silently go unchecked.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace uiscope::mcp {

// nullopt when `value` satisfies `schema`; else the first violation, as
// "path: problem" (path "" is the value itself, "a.b[2]" below it).
std::optional<std::string> ValidateJson(const nlohmann::json& schema, const nlohmann::json& value);

// ValidateJson for a tool's arguments, with one rule more: a value a schema
// types as "integer" must fit a C++ int (-2147483648 to 2147483647), because
// handlers read integer arguments as int. Without it 4294967297 would reach a
// handler as 1 and 1e300 as whatever the conversion makes of it.
std::optional<std::string> ValidateArguments(const nlohmann::json& schema,
                                             const nlohmann::json& arguments);

// nullopt when `schema` uses only the supported keywords with well-formed
// values; else what is wrong and where.
std::optional<std::string> CheckSchema(const nlohmann::json& schema);

}  // namespace uiscope::mcp
