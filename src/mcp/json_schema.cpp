#include "mcp/json_schema.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string_view>

namespace uiscope::mcp {
namespace {

using nlohmann::json;

std::string TypeOf(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

bool HasType(const json& v, std::string_view type) {
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer() || v.is_number_unsigned()) return true;
    // 3.0 is an integer in JSON Schema. (Not through a cast to an integer
    // type: 1e300 does not fit one, and that cast is undefined behaviour.)
    if (v.is_number_float()) {
      const double d = v.get<double>();
      return std::isfinite(d) && std::trunc(d) == d;
    }
    return false;
  }
  return TypeOf(v) == type;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string Short(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// True when the integer `v` (integer-valued, see HasType) fits an int.
bool FitsInt(const json& v) {
  constexpr auto kMin = std::numeric_limits<int>::min();
  constexpr auto kMax = std::numeric_limits<int>::max();
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(kMax);
  if (v.is_number_integer()) return v.get<int64_t>() >= kMin && v.get<int64_t>() <= kMax;
  const double d = v.get<double>();
  return d >= kMin && d <= kMax;
}

bool TypeSays(const json& type, std::string_view name) {
  if (type.is_string()) return type.get_ref<const std::string&>() == name;
  if (type.is_array()) {
    for (const auto& alt : type) {
      if (alt.is_string() && alt.get_ref<const std::string&>() == name) return true;
    }
  }
  return false;
}

std::optional<std::string> Validate(const json& schema, const json& v, const std::string& path,
                                    bool int_integers) {
  auto fail = [&](const std::string& what) -> std::optional<std::string> {
    return (path.empty() ? std::string("value") : path) + ": " + what;
  };
  if (schema.is_boolean()) {
    if (schema.get<bool>()) return std::nullopt;
    return fail("no value is allowed here");
  }
  if (!schema.is_object()) return std::nullopt;

  if (auto t = schema.find("type"); t != schema.end()) {
    bool ok = false;
    std::string expected;
    if (t->is_string()) {
      ok = HasType(v, t->get<std::string>());
      expected = t->get<std::string>();
    } else if (t->is_array()) {
      for (const auto& alt : *t) {
        if (!alt.is_string()) continue;
        ok = ok || HasType(v, alt.get<std::string>());
        expected += (expected.empty() ? "" : " or ") + alt.get<std::string>();
      }
    }
    if (!ok) return fail("expected " + expected + ", got " + TypeOf(v));
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const auto& alt : *e) found = found || alt == v;
    if (!found) return fail("must be one of " + Short(*e) + ", got " + Short(v));
  }
  if (auto c = schema.find("const"); c != schema.end() && *c != v) {
    return fail("must be " + Short(*c) + ", got " + Short(v));
  }
  if (v.is_number()) {
    const double d = v.get<double>();
    if (auto m = schema.find("minimum");
        m != schema.end() && m->is_number() && d < m->get<double>())
      return fail("must be at least " + m->dump() + ", got " + Short(v));
    if (auto m = schema.find("maximum");
        m != schema.end() && m->is_number() && d > m->get<double>())
      return fail("must be at most " + m->dump() + ", got " + Short(v));
    // After minimum and maximum, whose message is the more useful one.
    if (auto t = schema.find("type"); int_integers && t != schema.end() &&
                                      TypeSays(*t, "integer") && !TypeSays(*t, "number") &&
                                      HasType(v, "integer") && !FitsInt(v)) {
      return fail("must be from " + std::to_string(std::numeric_limits<int>::min()) + " to " +
                  std::to_string(std::numeric_limits<int>::max()) + ", got " + Short(v));
    }
  }
  if (v.is_string()) {
    const size_t n = CodePoints(v.get_ref<const std::string&>());
    if (auto m = schema.find("minLength");
        m != schema.end() && m->is_number_unsigned() && n < m->get<size_t>())
      return fail("must be at least " + m->dump() + " characters long");
    if (auto m = schema.find("maxLength");
        m != schema.end() && m->is_number_unsigned() && n > m->get<size_t>())
      return fail("must be at most " + m->dump() + " characters long");
  }
  if (v.is_array()) {
    if (auto m = schema.find("minItems");
        m != schema.end() && m->is_number_unsigned() && v.size() < m->get<size_t>())
      return fail("needs at least " + m->dump() + " items");
    if (auto m = schema.find("maxItems");
        m != schema.end() && m->is_number_unsigned() && v.size() > m->get<size_t>())
      return fail("takes at most " + m->dump() + " items");
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (auto err = Validate(*items, v[i], path + "[" + std::to_string(i) + "]", int_integers))
          return err;
      }
    }
  }
  if (v.is_object()) {
    const json* props = nullptr;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) props = &*p;
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const auto& key : *r) {
        if (key.is_string() && !v.contains(key.get<std::string>()))
          return fail("missing required property \"" + key.get<std::string>() + "\"");
      }
    }
    auto additional = schema.find("additionalProperties");
    for (const auto& [key, value] : v.items()) {
      if (props && props->contains(key)) {
        if (auto err = Validate((*props)[key], value, Join(path, key), int_integers)) return err;
      } else if (additional != schema.end()) {
        if (additional->is_boolean() && !additional->get<bool>()) {
          std::string known;
          if (props) {
            for (const auto& [name, unused] : props->items())
              known += (known.empty() ? "" : ", ") + name;
          }
          return fail("unknown property \"" + key + "\"" +
                      (known.empty() ? std::string() : " (known: " + known + ")"));
        }
        if (auto err = Validate(*additional, value, Join(path, key), int_integers)) return err;
      }
    }
  }
  if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array()) {
    std::optional<std::string> first;
    for (const auto& alt : *any) {
      auto err = Validate(alt, v, path, int_integers);
      if (!err) {
        first.reset();
        break;
      }
      if (!first) first = err;
    }
    if (first) return first;
  }
  if (auto one = schema.find("oneOf"); one != schema.end() && one->is_array()) {
    int matches = 0;
    std::optional<std::string> first;
    for (const auto& alt : *one) {
      auto err = Validate(alt, v, path, int_integers);
      if (!err) {
        ++matches;
      } else if (!first) {
        first = err;
      }
    }
    if (matches == 0) return first;
    if (matches > 1) return fail("matches more than one alternative of oneOf");
  }
  return std::nullopt;
}

const std::set<std::string, std::less<>>& KnownKeywords() {
  static const std::set<std::string, std::less<>> kKnown = {
      "type",     "properties", "required",  "additionalProperties",
      "items",    "enum",       "const",     "minimum",
      "maximum",  "minLength",  "maxLength", "minItems",
      "maxItems", "anyOf",      "oneOf",     "description",
      "title",    "default",    "$schema",   "examples"};
  return kKnown;
}

std::optional<std::string> Check(const json& schema, const std::string& path) {
  auto fail = [&](const std::string& what) -> std::optional<std::string> {
    return (path.empty() ? std::string("schema") : path) + ": " + what;
  };
  if (schema.is_boolean()) return std::nullopt;
  if (!schema.is_object()) return fail("a schema must be an object or a boolean");
  for (const auto& [key, value] : schema.items()) {
    if (!KnownKeywords().contains(key)) return fail("unsupported keyword \"" + key + "\"");
  }
  if (auto p = schema.find("properties"); p != schema.end()) {
    if (!p->is_object()) return fail("\"properties\" must be an object");
    for (const auto& [key, sub] : p->items()) {
      if (auto err = Check(sub, Join(path, key))) return err;
    }
  }
  for (const char* key : {"items", "additionalProperties"}) {
    if (auto s = schema.find(key); s != schema.end()) {
      if (auto err = Check(*s, Join(path, key))) return err;
    }
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    if (auto s = schema.find(key); s != schema.end()) {
      if (!s->is_array()) return fail(std::string("\"") + key + "\" must be an array");
      for (const auto& sub : *s) {
        if (auto err = Check(sub, Join(path, key))) return err;
      }
    }
  }
  if (auto r = schema.find("required"); r != schema.end()) {
    if (!r->is_array()) return fail("\"required\" must be an array");
    for (const auto& key : *r) {
      if (!key.is_string()) return fail("\"required\" lists property names");
      auto p = schema.find("properties");
      if (p == schema.end() || !p->contains(key.get<std::string>()))
        return fail("required property \"" + key.get<std::string>() + "\" is not declared");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ValidateJson(const json& schema, const json& value) {
  return Validate(schema, value, "", /*int_integers=*/false);
}

std::optional<std::string> ValidateArguments(const json& schema, const json& arguments) {
  return Validate(schema, arguments, "", /*int_integers=*/true);
}

std::optional<std::string> CheckSchema(const json& schema) { return Check(schema, ""); }

}  // namespace uiscope::mcp
