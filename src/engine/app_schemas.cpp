#include "engine/app_schemas.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/ascii.h"

namespace uiscope {

std::vector<std::string> AppSchemaDirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("UISCOPE_SCHEMA_DIRS"); env != nullptr && *env != '\0') {
    std::string_view rest(env);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      std::string_view d = rest.substr(0, colon);
      if (!d.empty()) dirs.emplace_back(d);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    return dirs;
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    dirs.push_back(std::string(xdg) + "/uiscope/schemas");
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dirs.push_back(std::string(home) + "/.config/uiscope/schemas");
  }
#ifdef UISCOPE_DATA_DIR
  dirs.push_back(std::string(UISCOPE_DATA_DIR) + "/schemas");
#endif
  return dirs;
}

Result<AppSchema> ParseAppSchema(const nlohmann::json& j, const std::string& file) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument, "app schema " + file + ": " + why);
  };
  if (!j.is_object()) return bad("not a JSON object");
  AppSchema schema;
  schema.file = file;
  if (!j.contains("app") || !j["app"].is_string() || j["app"].get<std::string>().empty()) {
    return bad("\"app\" (the application's name) is missing");
  }
  schema.app = j["app"].get<std::string>();
  if (j.contains("aliases")) {
    if (!j["aliases"].is_array()) return bad("\"aliases\" is not a list of names");
    for (const auto& a : j["aliases"]) {
      if (!a.is_string()) return bad("\"aliases\" is not a list of names");
      schema.aliases.push_back(a.get<std::string>());
    }
  }
  if (j.contains("toolkit") && j["toolkit"].is_string()) schema.toolkit = j["toolkit"];
  if (j.contains("shortcuts") && !j["shortcuts"].is_array()) {
    return bad("\"shortcuts\" is not a list");
  }
  if (j.contains("shortcuts")) {
    int index = 0;
    for (const auto& s : j["shortcuts"]) {
      const std::string where = "shortcut " + std::to_string(index++);
      if (!s.is_object() || !s.contains("keys") || !s["keys"].is_string() ||
          !s.contains("action") || !s["action"].is_string()) {
        return bad(where + " needs \"keys\" and \"action\" strings");
      }
      auto keys = NormaliseChord(s["keys"].get<std::string>());
      if (!keys) return bad(where + ": \"" + s["keys"].get<std::string>() + "\" is not a chord");
      Shortcut out;
      out.app = schema.app;
      out.keys = *keys;
      out.action = s["action"].get<std::string>();
      out.category = s.value("category", "general");
      out.path = s.value("path", "");
      out.source = "schema";
      schema.shortcuts.push_back(std::move(out));
    }
  }
  return schema;
}

Result<std::optional<AppSchema>> FindAppSchema(std::string_view app) {
  namespace fs = std::filesystem;
  for (const std::string& dir : AppSchemaDirs()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& path : files) {
      std::ifstream in(path);
      nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_discarded()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "app schema " + path.string() + " is not valid JSON");
      }
      auto schema = ParseAppSchema(j, path.string());
      if (!schema.ok()) return schema.error();
      bool named = EqualsIgnoringCase(schema->app, app);
      for (const std::string& a : schema->aliases) named = named || EqualsIgnoringCase(a, app);
      if (named) return std::optional<AppSchema>(std::move(schema).value());
    }
  }
  return std::optional<AppSchema>();
}

}  // namespace uiscope
