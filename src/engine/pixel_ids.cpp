#include "engine/pixel_ids.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/format.h"
#include "engine/private_file.h"

namespace uiscope {
namespace {

using nlohmann::json;

// Grey levels two captures of unchanged pixels may differ by in a cell
// (rounding of the cell mean, a server's dithering).
constexpr int kGreyNoise = 8;
// The widest text caret there is (GTK draws 1-2 px, Qt 1 px, xterm's bar 2 px).
constexpr int kCaretWidth = 3;

json Read(const std::string& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  // Another process's file: anything unreadable is as good as none.
  try {
    json j = json::parse(ss.str());
    if (j.is_object() && j.contains("observations") && j["observations"].is_array()) return j;
  } catch (const json::exception&) {
  }
  return json::object();
}

json RectJson(const Rect& r) { return json::array({r.x, r.y, r.w, r.h}); }

std::optional<Rect> RectFrom(const json& j) {
  if (!j.is_array() || j.size() != 4) return std::nullopt;
  for (const json& v : j) {
    if (!v.is_number_integer()) return std::nullopt;
  }
  return Rect{j[0].get<int>(), j[1].get<int>(), j[2].get<int>(), j[3].get<int>()};
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::optional<std::vector<uint8_t>> FromHex(const std::string& text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int v = 0;
    for (size_t k = i; k < i + 2; ++k) {
      const char c = text[k];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else {
        return std::nullopt;
      }
    }
    out.push_back(static_cast<uint8_t>(v));
  }
  return out;
}

json PlaceJson(const RememberedPlace& p) {
  return {{"node", NodeToJson(p.node, false)},
          {"window", p.window},
          {"window_bounds", RectJson(p.window_bounds)},
          {"patch",
           {{"columns", p.patch.columns}, {"rows", p.patch.rows}, {"grey", Hex(p.patch.grey)}}}};
}

std::optional<RememberedPlace> PlaceFrom(const json& j) {
  if (!j.is_object() || !j.contains("node") || !j.contains("patch")) return std::nullopt;
  auto nodes = NodesFromJson(json::array({j["node"]}));
  if (!nodes.ok() || nodes->size() != 1 || !(*nodes)[0].bounds) return std::nullopt;
  auto window = RectFrom(j.value("window_bounds", json()));
  const json& patch = j["patch"];
  if (!window || !patch.is_object() || !j.contains("window") || !j["window"].is_number_unsigned()) {
    return std::nullopt;
  }
  RememberedPlace place;
  place.node = std::move((*nodes)[0]);
  place.window = j.value("window", uint64_t{0});
  place.window_bounds = *window;
  place.patch.columns = patch.value("columns", 0);
  place.patch.rows = patch.value("rows", 0);
  auto grey = FromHex(patch.value("grey", ""));
  if (!grey || place.patch.Empty() || place.patch.columns > kPatchMaxColumns ||
      place.patch.rows > kPatchMaxRows ||
      grey->size() != static_cast<size_t>(place.patch.columns) * place.patch.rows) {
    return std::nullopt;
  }
  place.patch.grey = std::move(*grey);
  return place;
}

std::string RectText(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," +
         std::to_string(r.h);
}

// The places of the pixel nodes of one window, read from one capture of the
// box holding them (a node partly off screen gets no place).
void Fingerprint(const std::vector<const Node*>& nodes, const WindowInfo& window,
                 const RegionCapture& pixels, json& places) {
  Rect box = *nodes.front()->bounds;
  for (const Node* n : nodes) box = Union(box, *n->bounds);
  auto image = pixels(box);
  // Clipped to the screen: the image no longer starts at the box's corner.
  if (!image.ok() || image->width != box.w || image->height != box.h) return;
  for (const Node* n : nodes) {
    RememberedPlace place;
    place.node.id = n->id;
    place.node.role = n->role;
    place.node.name = n->name;
    place.node.value = n->value;
    place.node.bounds = n->bounds;
    place.node.states = n->states;
    place.node.source = n->source;
    place.node.confidence = n->confidence;
    place.node.app = n->app;
    place.node.pid = n->pid;
    place.node.window = n->window;
    place.window = window.id;
    place.window_bounds = window.bounds;
    place.patch = PatchOf(*image, n->bounds->Translated(-box.x, -box.y));
    if (place.patch.Empty()) continue;
    places.push_back(PlaceJson(place));
  }
}

// The topmost visible window of `windows` (bottom to top) holding `p`.
const WindowInfo* TopmostAt(const std::vector<WindowInfo>& windows, Point p) {
  const WindowInfo* top = nullptr;
  for (const WindowInfo& w : windows) {
    if (w.visible && w.Covers().Contains(p)) top = &w;
  }
  return top;
}

}  // namespace

PixelPatch PatchOf(const Image& image, const Rect& area) {
  PixelPatch patch;
  if (!image.Valid() || area.Empty() || area.x < 0 || area.y < 0 || area.Right() > image.width ||
      area.Bottom() > image.height) {
    return patch;
  }
  patch.columns = std::clamp((area.w + kPatchCell - 1) / kPatchCell, 1, kPatchMaxColumns);
  patch.rows = std::clamp((area.h + kPatchCell - 1) / kPatchCell, 1, kPatchMaxRows);
  patch.grey.resize(static_cast<size_t>(patch.columns) * patch.rows);
  for (int row = 0; row < patch.rows; ++row) {
    const int y0 = area.y + area.h * row / patch.rows;
    const int y1 = std::max(y0 + 1, area.y + area.h * (row + 1) / patch.rows);
    for (int col = 0; col < patch.columns; ++col) {
      const int x0 = area.x + area.w * col / patch.columns;
      const int x1 = std::max(x0 + 1, area.x + area.w * (col + 1) / patch.columns);
      uint64_t sum = 0;
      for (int y = y0; y < y1; ++y) {
        const uint8_t* p = image.Pixel(x0, y);
        for (int x = x0; x < x1; ++x, p += 3) {
          sum += (uint32_t{p[0]} * 77 + uint32_t{p[1]} * 150 + uint32_t{p[2]} * 29) >> 8;
        }
      }
      const uint64_t count = static_cast<uint64_t>(x1 - x0) * (y1 - y0);
      patch.grey[static_cast<size_t>(row) * patch.columns + col] =
          static_cast<uint8_t>((sum + count / 2) / count);
    }
  }
  return patch;
}

PatchComparison ComparePatches(const PixelPatch& remembered, const PixelPatch& now, int width) {
  PatchComparison c;
  c.cells = static_cast<int>(remembered.grey.size());
  if (remembered.Empty() || remembered.columns != now.columns || remembered.rows != now.rows ||
      remembered.grey.size() != now.grey.size()) {
    c.why = "its size changed";
    return c;
  }
  int first_column = remembered.columns, last_column = -1, most = 0;
  std::vector<int> row_change(remembered.rows, 0);  // grey levels summed over the row's cells
  for (int row = 0; row < remembered.rows; ++row) {
    for (int col = 0; col < remembered.columns; ++col) {
      const size_t i = static_cast<size_t>(row) * remembered.columns + col;
      const int d = std::abs(int{remembered.grey[i]} - int{now.grey[i]});
      if (d <= kGreyNoise) continue;
      ++c.changed_cells;
      most = std::max(most, d);
      first_column = std::min(first_column, col);
      last_column = std::max(last_column, col);
      row_change[row] += d;
    }
  }
  if (c.changed_cells == 0) {
    c.same = true;
    return c;
  }
  // A caret: a vertical bar at most kCaretWidth px wide. It touches at most
  // ceil(kCaretWidth / cell width) + 1 columns, and changes each row of
  // cells by at most kCaretWidth px at full contrast: a cell's mean moves by
  // (caret px in it / cell width) * contrast.
  const double cell_width = static_cast<double>(std::max(width, 1)) / remembered.columns;
  const int strip = static_cast<int>(std::ceil(kCaretWidth / cell_width)) + 1;
  const bool narrow = last_column - first_column + 1 <= strip;
  const bool thin = std::all_of(row_change.begin(), row_change.end(), [&](int levels) {
    return levels * cell_width <= kCaretWidth * 255.0;
  });
  if (narrow && thin) {
    c.same = true;
    return c;
  }
  c.why = std::to_string(c.changed_cells) + " of " + std::to_string(c.cells) +
          " cells of its pixels changed, by up to " + std::to_string(most) + " grey levels";
  return c;
}

void PixelIds::Remember(const std::vector<Node>& roots, const PixelIdOrigin& origin,
                        const RegionCapture& pixels, const std::vector<WindowInfo>& windows) {
  json ids = json::array();
  std::map<uint64_t, std::vector<const Node*>> by_window;
  ForEachNode(roots, [&](const Node& n, int) {
    // Merged nodes are accessible ones: any observation finds them.
    if ((n.source == Source::kOcr || n.source == Source::kVision) && !n.id.empty()) {
      ids.push_back(n.id);
      if (!n.bounds || n.bounds->Empty() || n.window.empty()) return;
      if (const WindowInfo* w = TopmostAt(windows, n.bounds->Center())) {
        by_window[w->id].push_back(&n);
      }
    }
  });
  if (ids.empty() || file_.empty()) return;
  json places = json::array();
  if (pixels) {
    for (const auto& entry : by_window) {
      const uint64_t id = entry.first;  // (clang 14 lambdas capture no structured bindings)
      const auto w = std::find_if(windows.begin(), windows.end(),
                                  [id](const WindowInfo& info) { return info.id == id; });
      if (w != windows.end()) Fingerprint(entry.second, *w, pixels, places);
    }
  }
  json j = Read(file_);
  json observations = j.value("observations", json::array());
  observations.push_back({{"ocr", origin.ocr},
                          {"vision", origin.vision},
                          {"app", origin.app},
                          {"pid", origin.pid},
                          {"ax", origin.ax},
                          {"ids", std::move(ids)},
                          {"places", std::move(places)}});
  while (observations.size() > kKept) observations.erase(observations.begin());
  // Unwritable: an OCR or vision ID is then found only within this process.
  (void)WritePrivateFile(file_,
                         json{{"observations", std::move(observations)}}.dump(
                             -1, ' ', false, json::error_handler_t::replace),
                         "the pixel IDs");
}

std::optional<PixelIdRecord> PixelIds::Lookup(const std::string& id) const {
  if (file_.empty()) return std::nullopt;
  const json j = Read(file_);
  if (!j.contains("observations")) return std::nullopt;
  const json& observations = j["observations"];
  for (auto it = observations.rbegin(); it != observations.rend(); ++it) {
    if (!it->is_object()) continue;
    const json& ids = (*it)["ids"];
    if (!ids.is_array()) continue;
    for (const json& known : ids) {
      if (!known.is_string() || known.get<std::string>() != id) continue;
      PixelIdRecord record;
      record.origin.ocr = it->value("ocr", false);
      record.origin.vision = it->value("vision", false);
      record.origin.app = it->value("app", "");
      record.origin.pid = it->value("pid", 0);
      record.origin.ax = it->value("ax", true);
      const json& places = (*it)["places"];
      if (places.is_array()) {
        for (const json& p : places) {
          if (!p.is_object() || !p.contains("node") || !p["node"].is_object() ||
              p["node"].value("id", "") != id) {
            continue;
          }
          record.place = PlaceFrom(p);
          break;
        }
      }
      return record;
    }
  }
  return std::nullopt;
}

std::string PixelIdsFile(const std::string& dir, const std::string& display) {
  std::string key;
  for (char c : display) key += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // A folder of its own: the state dir's top level is the session registry.
  return dir + "/pixel-ids/" + key + ".json";
}

PlaceCheck CheckPlace(const RememberedPlace& place, const std::vector<WindowInfo>& windows,
                      ScreenCapture& capture) {
  PlaceCheck check;
  const Node& node = place.node;
  if (!node.bounds || node.bounds->Empty()) {
    check.why = "it has no bounds";
    return check;
  }
  const Rect bounds = *node.bounds;
  const auto window = std::find_if(windows.begin(), windows.end(),
                                   [&](const WindowInfo& w) { return w.id == place.window; });
  if (window == windows.end() || !window->visible) {
    check.why = "its window is closed or hidden";
    return check;
  }
  if (window->bounds != place.window_bounds) {
    check.why = "its window moved or was resized (" + RectText(place.window_bounds) + " then, " +
                RectText(window->bounds) + " now)";
    return check;
  }
  const WindowInfo* top = TopmostAt(windows, bounds.Center());
  if (top == nullptr || top->id != window->id) {
    check.why =
        "another window" + (top ? " (\"" + top->title + "\")" : std::string()) + " is over it now";
    return check;
  }
  auto frame = capture.CaptureRegion(bounds);
  if (!frame.ok()) {
    check.why = "its pixels could not be read: " + frame.error().message;
    return check;
  }
  if (frame->region != bounds) {
    check.why = "it is partly off screen";
    return check;
  }
  check.pixels =
      ComparePatches(place.patch, PatchOf(frame->image, Rect{0, 0, bounds.w, bounds.h}), bounds.w);
  if (!check.pixels.same) {
    check.why = check.pixels.why;
    return check;
  }
  check.still = true;
  return check;
}

}  // namespace uiscope
