#include "vision/classical_detector.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "ocr/gray_image.h"
#include "ocr/line_finder.h"

namespace uiscope::vision {
namespace {

// Sizes in pixels, for UI drawn at 1x (96 dpi): a check box is 12-20 px, a
// button or field 20-48 px tall.
constexpr int kMinBox = 9;            // smaller holes are glyph counters or dots
constexpr double kMinFill = 0.6;      // contour area / box area of a box
constexpr double kSquareFill = 0.88;  // at least this: square; below: round
constexpr int kMinToggle = 10;        // check box / radio button side
constexpr int kMaxToggle = 26;
constexpr int kMinControlHeight = 14;
constexpr int kMaxControlHeight = 56;
constexpr double kMaxButtonAspect = 16;
constexpr int kMinIcon = 12;
constexpr int kMaxIcon = 48;
constexpr int kBrightInterior = 250;  // a field's fill: white or nearly (Adwaita, Qt, Athena: 255)

// Confidences are fixed per rule and ordered by how strong its cue is (text
// centred in a bordered box is a surer button than an empty box); they are
// not calibrated probabilities.
constexpr float kButtonWithText = 0.7f;
constexpr float kFieldWithText = 0.6f;
constexpr float kToggle = 0.6f;
constexpr float kSlider = 0.65f;
constexpr float kTab = 0.6f;
constexpr float kListRow = 0.5f;
constexpr float kEmptyField = 0.5f;
constexpr float kOffCentreText = 0.5f;
constexpr float kEmptyButton = 0.4f;
constexpr float kIcon = 0.4f;
constexpr float kCompound = 0.55f;
constexpr float kTextArea = 0.45f;

enum class Kind { kNone, kContainer, kTabStrip, kElement };

struct Candidate {
  Rect box;
  double fill = 0;
  Kind kind = Kind::kNone;
  Role role = Role::kUnknown;
  float confidence = 0;
  std::vector<int> texts;     // text regions inside
  std::vector<int> children;  // candidates inside
  double interior = 0;        // the fill: most common luminance inside
  double ring = 0;            // mean luminance just outside
  bool compound = false;      // a combo or spin box: its children are parts
};

Rect FromCv(const cv::Rect& r) { return {r.x, r.y, r.width, r.height}; }
cv::Rect ToCv(const Rect& r) { return {r.x, r.y, r.w, r.h}; }

Rect Grow(const Rect& r, int by) { return {r.x - by, r.y - by, r.w + 2 * by, r.h + 2 * by}; }

double ShareInside(const Rect& inner, const Rect& outer) {
  const int64_t area = inner.Area();
  return area == 0 ? 0 : static_cast<double>(Intersect(inner, outer).Area()) / area;
}

bool Inside(const Rect& inner, const Rect& outer) { return ShareInside(inner, outer) >= 0.95; }

double Mean(const cv::Mat& gray, const Rect& r) {
  const Rect c = ClampToFrame(r, gray.cols, gray.rows);
  if (c.Empty()) return 0;
  return cv::mean(gray(ToCv(c)))[0];
}

// The most common luminance inside `r`: a box's fill, whatever text or
// icon is drawn on it.
int FillLevel(const cv::Mat& gray, const Rect& r) {
  const Rect c = ClampToFrame(r, gray.cols, gray.rows);
  if (c.Empty()) return 0;
  int histogram[256] = {};
  for (int y = c.y; y < c.Bottom(); ++y) {
    const uint8_t* row = gray.ptr<uint8_t>(y);
    for (int x = c.x; x < c.Right(); ++x) ++histogram[row[x]];
  }
  return static_cast<int>(std::max_element(histogram, histogram + 256) - histogram);
}

// Mean luminance of the band of `width` pixels around `r`.
double RingMean(const cv::Mat& gray, const Rect& r, int width) {
  const Rect outer = ClampToFrame(Grow(r, width), gray.cols, gray.rows);
  const Rect inner = ClampToFrame(r, gray.cols, gray.rows);
  const double outer_sum = cv::sum(gray(ToCv(outer)))[0];
  const double inner_sum = inner.Empty() ? 0 : cv::sum(gray(ToCv(inner)))[0];
  const int64_t n = outer.Area() - inner.Area();
  return n <= 0 ? 0 : (outer_sum - inner_sum) / static_cast<double>(n);
}

Rect UnionOf(const std::vector<ocr::TextRegion>& text, const std::vector<int>& which) {
  Rect u;
  for (int i : which) u = Union(u, text[static_cast<size_t>(i)].bounds);
  return u;
}

// Text regions that share a row with another (vertical overlap) form one
// row; how many rows do `which` make?
int TextRows(const std::vector<ocr::TextRegion>& text, std::vector<int> which) {
  std::sort(which.begin(), which.end(), [&](int a, int b) {
    return text[static_cast<size_t>(a)].bounds.y < text[static_cast<size_t>(b)].bounds.y;
  });
  int rows = 0;
  int bottom = -1;
  for (int i : which) {
    const Rect& r = text[static_cast<size_t>(i)].bounds;
    if (r.y + r.h / 2 >= bottom) {
      ++rows;
      bottom = r.Bottom();
    } else {
      bottom = std::max(bottom, r.Bottom());
    }
  }
  return rows;
}

// Lines of running text follow each other closely (gaps under half a line);
// list rows leave more room.
bool TightlySpaced(const std::vector<ocr::TextRegion>& text, std::vector<int> which) {
  std::sort(which.begin(), which.end(), [&](int a, int b) {
    return text[static_cast<size_t>(a)].bounds.y < text[static_cast<size_t>(b)].bounds.y;
  });
  std::vector<int> gaps, heights;
  int bottom = -1;
  for (int i : which) {
    const Rect& r = text[static_cast<size_t>(i)].bounds;
    heights.push_back(r.h);
    if (bottom >= 0 && r.y >= bottom) gaps.push_back(r.y - bottom);
    bottom = std::max(bottom, r.Bottom());
  }
  if (gaps.empty()) return false;
  std::sort(gaps.begin(), gaps.end());
  std::sort(heights.begin(), heights.end());
  return gaps[gaps.size() / 2] * 2 <= heights[heights.size() / 2];
}

// Holes of the boundary map: regions enclosed by a border or a colour step.
std::vector<Candidate> FindBoxes(const std::vector<std::vector<cv::Point>>& contours,
                                 const std::vector<cv::Vec4i>& hierarchy, int width, int height) {
  std::vector<Candidate> boxes;
  for (size_t i = 0; i < contours.size(); ++i) {
    if (hierarchy[i][3] < 0) continue;  // an outer boundary, not a hole
    const cv::Rect r = cv::boundingRect(contours[i]);
    if (r.width < kMinBox || r.height < kMinBox) continue;
    if (r.width >= width - 4 && r.height >= height - 4) continue;  // the whole image
    // contourArea runs through pixel centres: a w x h hole encloses
    // (w - 1) x (h - 1).
    const double fill =
        cv::contourArea(contours[i]) / (static_cast<double>(r.width - 1) * (r.height - 1));
    if (fill < kMinFill) continue;
    // The hole lies inside the boundary band, which is one pixel wider than
    // the border or colour step on each side.
    Candidate c;
    c.box = ClampToFrame(Grow(FromCv(r), 1), width, height);
    c.fill = fill;
    boxes.push_back(c);
  }
  // Nested near-duplicates (a focus ring inside a button, an entry's inner
  // frame) are one element: keep the outer box.
  std::sort(boxes.begin(), boxes.end(),
            [](const Candidate& a, const Candidate& b) { return a.box.Area() > b.box.Area(); });
  std::vector<Candidate> kept;
  for (const Candidate& c : boxes) {
    const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const Candidate& k) {
      return Inside(c.box, Grow(k.box, 1)) && IoU(c.box, k.box) >= 0.7;
    });
    if (!duplicate) kept.push_back(c);
  }
  return kept;
}

bool IsGlyphHole(const Rect& box, const std::vector<ocr::TextRegion>& text) {
  return std::any_of(text.begin(), text.end(), [&](const ocr::TextRegion& t) {
    // A counter ("o", "e") is well below the line's height; a check box or
    // radio button the line finder took into the line is about as tall.
    return Inside(box, Grow(t.bounds, 2)) && box.h * 10 <= t.bounds.h * 7;
  });
}

// A field with one or two small buttons flush against its right end, the
// whole drawn as one linked box: a combo box (one arrow button) or a spin
// button (minus and plus). Its parts are not elements of their own.
bool IsCompound(Candidate& c, const std::vector<Candidate>& all) {
  const Rect& b = c.box;
  if (c.children.size() < 2 || c.children.size() > 3 || b.h < kMinControlHeight ||
      b.h > kMaxControlHeight) {
    return false;
  }
  std::vector<const Candidate*> parts;
  for (int k : c.children) parts.push_back(&all[static_cast<size_t>(k)]);
  std::sort(parts.begin(), parts.end(),
            [](const Candidate* x, const Candidate* y) { return x->box.x < y->box.x; });
  int covered = 0;
  for (const Candidate* p : parts) {
    if (p->box.h < b.h * 7 / 10) return false;
    covered += p->box.w;
  }
  if (covered < b.w * 85 / 100) return false;
  const Rect& field = parts.front()->box;
  for (size_t i = 1; i < parts.size(); ++i) {
    const Rect& button = parts[i]->box;
    if (button.w * 10 > button.h * 14 || field.w < 2 * button.w) return false;
  }
  c.kind = Kind::kElement;
  c.role = parts.size() == 2 ? Role::kComboBox : Role::kSpinButton;
  c.confidence = kCompound;
  c.compound = true;
  return true;
}

// How many items the text of a box holds along its row: the text regions,
// each cut where its columns are blank for a glyph height or more (a word
// space is a third of one). A button's label is one item, or two with an
// icon or arrow beside it; three or more are a bar of items (a menu bar
// taken whole: "File  Edit  Settings  Help").
int ItemsInRow(const cv::Mat& edges, const std::vector<ocr::TextRegion>& text,
               const std::vector<int>& which) {
  int items = 0;
  for (int i : which) {
    const ocr::TextRegion& t = text[static_cast<size_t>(i)];
    const Rect r = ClampToFrame(t.bounds, edges.cols, edges.rows);
    ++items;
    if (r.Empty()) continue;
    const int wide = std::max(4, t.glyph_height);
    int blank = 0;
    for (int x = r.x; x < r.Right(); ++x) {
      if (cv::countNonZero(edges(cv::Rect(x, r.y, 1, r.h))) == 0) {
        ++blank;
        continue;
      }
      // The boundary map is the gradient over 3x3: glyphs grow a pixel
      // each side, and a gap shrinks by two.
      if (blank + 2 >= wide) ++items;
      blank = 0;
    }
  }
  return items;
}

void Classify(Candidate& c, const cv::Mat& gray, const cv::Mat& edges,
              const std::vector<ocr::TextRegion>& text, const std::vector<Candidate>& all) {
  const Rect& b = c.box;
  const double aspect = static_cast<double>(b.w) / b.h;
  c.interior = FillLevel(gray, Grow(b, -3));
  c.ring = RingMean(gray, b, 3);
  const int rows = TextRows(text, c.texts);
  int big_children = 0;
  for (int k : c.children) big_children += all[static_cast<size_t>(k)].box.h >= kMinToggle;
  if (IsCompound(c, all)) return;
  if (rows >= 2 && c.children.empty() && c.interior >= kBrightInterior &&
      TightlySpaced(text, c.texts)) {
    // Several left-aligned lines on a bright fill and nothing else: a text
    // area (or a read-only view of text), not a container of controls.
    const Rect t = UnionOf(text, c.texts);
    if (t.x - b.x <= std::max(12, b.w / 8)) {
      c.kind = Kind::kElement;
      c.role = Role::kTextArea;
      c.confidence = kTextArea;
      return;
    }
  }
  // A bright box of control height is a field however wide it is: a
  // full-width entry in a wide window or of a compact toolkit (Tk's, 362 x
  // 20) is longer than any button.
  const bool bright = c.interior >= kBrightInterior && c.interior >= c.ring + 4;
  const bool field_like = bright && b.h >= kMinControlHeight && rows <= 1 && big_children == 0;
  // Wider than any button, or holding a row of items: a menu bar, a tool
  // bar, a header.
  if (big_children >= 2 || rows >= 2 || b.h > kMaxControlHeight ||
      (aspect > kMaxButtonAspect && !field_like) || ItemsInRow(edges, text, c.texts) >= 3) {
    c.kind = Kind::kContainer;
    return;
  }
  // Check boxes and radio buttons: small, square, no text inside.
  if (b.w >= kMinToggle && b.h >= kMinToggle && b.w <= kMaxToggle && b.h <= kMaxToggle &&
      aspect >= 0.75 && aspect <= 1.33 && c.texts.empty()) {
    c.kind = Kind::kElement;
    c.role = c.fill >= kSquareFill ? Role::kCheckBox : Role::kRadioButton;
    c.confidence = kToggle;
    return;
  }
  if (b.h < kMinControlHeight || aspect < 0.8) return;
  c.kind = Kind::kElement;
  if (c.texts.empty()) {
    if (aspect >= 3) {
      c.role = Role::kTextField;
      c.confidence = bright ? kEmptyField : kEmptyButton;
    } else {
      c.role = Role::kButton;
      c.confidence = kEmptyButton;
    }
    return;
  }
  const Rect t = UnionOf(text, c.texts);
  const int centre_offset = std::abs((t.x + t.w / 2) - (b.x + b.w / 2));
  const bool centred = centre_offset <= std::max(4, b.w / 8);
  if (centred && !(bright && aspect >= 5)) {
    c.role = Role::kButton;
    c.confidence = kButtonWithText;
  } else if (bright) {
    c.role = Role::kTextField;
    c.confidence = kFieldWithText;
  } else {
    c.role = Role::kButton;
    c.confidence = kOffCentreText;
  }
}

// Toolkits report a check box or radio button together with its label (the
// widget is indicator + text): the box grows over the text just right of it
// on its row, up to the next indicator on that row (the line finder may
// have taken a row of check boxes into one line).
Rect WithLabel(const Rect& box, const std::vector<ocr::TextRegion>& text,
               const std::vector<Rect>& toggles) {
  const int centre = box.y + box.h / 2;
  int limit = INT32_MAX;
  for (const Rect& t : toggles) {
    if (t.x > box.Right() && centre >= t.y && centre < t.Bottom()) limit = std::min(limit, t.x);
  }
  const ocr::TextRegion* best = nullptr;
  for (const ocr::TextRegion& t : text) {
    const Rect& r = t.bounds;
    if (centre < r.y - 2 || centre > r.Bottom() + 2 || r.Right() <= box.Right() + 4) continue;
    // The line may start inside the box (the mark of a checked box read as
    // a glyph) or hold it whole; one starting further left is other text.
    const bool holds_box = Inside(box, Grow(r, 2));
    if (!holds_box && (r.x < box.x - 2 || r.x - box.Right() > std::max(10, box.w))) continue;
    if (best == nullptr || r.x < best->bounds.x) best = &t;
  }
  if (best == nullptr) return box;
  const Rect& r = best->bounds;
  // Up to the next indicator, less the gap a label leaves before it.
  const int right = limit == INT32_MAX ? r.Right() : std::min(r.Right(), limit - box.w);
  if (right <= box.Right()) return box;
  const int top = std::min(box.y, r.y);
  const int bottom = std::max(box.Bottom(), r.Bottom());
  return Rect{box.x, top, right - box.x, bottom - top};
}

// A field followed, edge to edge, by one or two small square buttons of its
// height: a combo box (the arrow) or a spin button (minus, plus), drawn as
// linked boxes. The parts merge into one element.
void JoinLinkedBoxes(std::vector<Candidate>& boxes) {
  std::vector<Candidate*> elements;
  for (Candidate& c : boxes) {
    if (c.kind == Kind::kElement && c.box.h >= kMinControlHeight) elements.push_back(&c);
  }
  std::sort(elements.begin(), elements.end(),
            [](const Candidate* a, const Candidate* b) { return a->box.x < b->box.x; });
  auto next_to = [&](const Rect& left) -> Candidate* {
    for (Candidate* c : elements) {
      const Rect& b = c->box;
      if (c->kind != Kind::kElement || b.x <= left.x) continue;
      if (std::abs(b.x - left.Right()) <= 2 && std::abs(b.y - left.y) <= 2 &&
          std::abs(b.h - left.h) <= 2 && b.w * 10 <= b.h * 14) {
        return c;
      }
    }
    return nullptr;
  };
  for (Candidate* field : elements) {
    // A spin button's entry may be narrow ("50"); a combo's is wide.
    if (field->kind != Kind::kElement || field->box.w * 10 < field->box.h * 12) continue;
    Candidate* first = next_to(field->box);
    if (first == nullptr) continue;
    Candidate* second = next_to(first->box);
    if (second == nullptr && field->box.w < 2 * field->box.h) continue;
    Rect joined = Union(field->box, first->box);
    if (second != nullptr) joined = Union(joined, second->box);
    // An arrow or clear button ends the field; two buttons step a number.
    field->box = joined;
    field->role = second != nullptr ? Role::kSpinButton : Role::kComboBox;
    field->confidence = kCompound;
    first->kind = Kind::kNone;
    if (second != nullptr) second->kind = Kind::kNone;
  }
}

// The value label drawn just above a horizontal slider ("25") is part of
// it, as toolkits report it.
Rect WithValueAbove(Rect box, const std::vector<ocr::TextRegion>& text) {
  for (const ocr::TextRegion& t : text) {
    const Rect& b = t.bounds;
    const int gap = box.y - b.Bottom();
    if (gap >= 0 && gap <= 8 && b.h <= box.h && b.x >= box.x && b.Right() <= box.Right() &&
        b.w * 4 <= box.w) {
      box = Union(box, b);
    }
  }
  return box;
}

// A sunken trough that a raised knob cuts in two (Tk, Motif, Athena: the
// knob fills the trough's height): two long empty boxes of one height end
// to end on a row, with the knob's box between them. One slider.
void JoinTroughs(std::vector<Candidate>& boxes, const std::vector<ocr::TextRegion>& text,
                 std::vector<Element>& out) {
  std::vector<Candidate*> long_parts;
  for (Candidate& c : boxes) {
    const Rect& b = c.box;
    if (c.kind == Kind::kElement && c.texts.empty() && c.children.empty() && b.h >= kMinToggle &&
        b.h <= kMaxToggle + 4 && b.w >= 2 * b.h) {
      long_parts.push_back(&c);
    }
  }
  std::sort(long_parts.begin(), long_parts.end(),
            [](const Candidate* a, const Candidate* b) { return a->box.x < b->box.x; });
  for (Candidate* left : long_parts) {
    for (Candidate* right : long_parts) {
      if (left->kind != Kind::kElement || right->kind != Kind::kElement) continue;
      const Rect& l = left->box;
      const Rect& r = right->box;
      const int gap = r.x - l.Right();
      if (gap < l.h / 2 || gap > 3 * l.h || std::abs(l.y - r.y) > 2 || std::abs(l.h - r.h) > 2) {
        continue;
      }
      const Rect between{l.Right() - 2, std::min(l.y, r.y) - 3, gap + 4, std::max(l.h, r.h) + 6};
      std::vector<Candidate*> knob;
      for (Candidate& c : boxes) {
        if (&c != left && &c != right && c.kind == Kind::kElement && Inside(c.box, between)) {
          knob.push_back(&c);
        }
      }
      if (knob.empty()) continue;
      out.push_back({WithValueAbove(Union(l, r), text), Role::kSlider, kSlider, ""});
      left->kind = right->kind = Kind::kNone;
      for (Candidate* k : knob) k->kind = Kind::kNone;
    }
  }
}

// Filled indicators (a checked box, a selected radio button): a solid blob
// of toggle size whose fill stands out from what is around it. Outlined
// ones are holes and were found as boxes.
void FindFilledToggles(const std::vector<std::vector<cv::Point>>& contours,
                       const std::vector<cv::Vec4i>& hierarchy, const cv::Mat& gray,
                       std::vector<Candidate>& boxes) {
  for (size_t i = 0; i < contours.size(); ++i) {
    if (hierarchy[i][3] >= 0) continue;
    const cv::Rect cr = cv::boundingRect(contours[i]);
    const Rect r = Grow(FromCv(cr), -1);
    if (r.w < 14 || r.h < 14 || r.w > kMaxToggle || r.h > kMaxToggle) continue;
    const double aspect = static_cast<double>(r.w) / r.h;
    if (aspect < 0.8 || aspect > 1.25) continue;
    const double fill =
        cv::contourArea(contours[i]) / (static_cast<double>(cr.width - 1) * (cr.height - 1));
    if (fill < 0.7) continue;
    const double inside = Mean(gray, Grow(r, -2));
    const double around = RingMean(gray, r, 2);
    if (std::abs(inside - around) < 40) continue;
    const bool known = std::any_of(boxes.begin(), boxes.end(),
                                   [&](const Candidate& c) { return IoU(c.box, r) >= 0.5; });
    if (known) continue;
    Candidate c;
    c.box = r;
    c.fill = fill;
    c.kind = Kind::kElement;
    c.role = fill >= kSquareFill ? Role::kCheckBox : Role::kRadioButton;
    c.confidence = kToggle;
    boxes.push_back(c);
  }
}

// A strip of labels on top of a framed page: a notebook's tabs.
bool FindTabs(Candidate& strip, const std::vector<Candidate>& all,
              const std::vector<ocr::TextRegion>& text, std::vector<Element>& out) {
  const Rect& s = strip.box;
  if (strip.texts.size() < 2) return false;
  const bool across = s.h >= 18 && s.h <= 50 && s.w >= 3 * s.h;     // tabs side by side
  const bool down = s.w >= 30 && s.w <= 200 && s.h >= 2 * s.w / 3;  // tabs stacked
  if (!across && !down) return false;
  const int rows = TextRows(text, strip.texts);
  if (across && rows != 1) return false;
  if (!across && rows != static_cast<int>(strip.texts.size())) return false;
  // Tabs are labels on a strip; labels in boxes of their own are buttons
  // (a segmented switcher).
  for (int k : strip.children) {
    const Rect& child = all[static_cast<size_t>(k)].box;
    for (int i : strip.texts) {
      if (ShareInside(text[static_cast<size_t>(i)].bounds, child) >= 0.8) return false;
    }
  }
  // The page the tabs switch: a larger box sharing the strip's long edge.
  const bool page = std::any_of(all.begin(), all.end(), [&](const Candidate& p) {
    const Rect& b = p.box;
    if (across) {
      return b.h > s.h && std::abs(b.x - s.x) <= 4 && std::abs(b.Right() - s.Right()) <= 4 &&
             (std::abs(b.y - s.Bottom()) <= 4 || std::abs(b.Bottom() - s.y) <= 4);
    }
    return b.w > s.w && std::abs(b.y - s.y) <= 4 && std::abs(b.Bottom() - s.Bottom()) <= 4 &&
           (std::abs(b.x - s.Right()) <= 4 || std::abs(b.Right() - s.x) <= 4);
  });
  if (!page) return false;
  for (int i : strip.texts) {
    const Rect& t = text[static_cast<size_t>(i)].bounds;
    const int h = across ? std::max(t.h, s.h - 6) : 2 * t.h + 2;
    const int y = across ? s.y + (s.h - h) / 2 : t.y - (h - t.h) / 2;
    out.push_back({Rect{t.x - 2, y, t.w + 4, h}, Role::kTab, kTab, ""});
  }
  strip.kind = Kind::kTabStrip;
  return true;
}

// Rows repeating at a regular pitch, left-aligned, in a bright bordered
// region: a list; each row spans the region's width, split half-way between
// the rows' contents.
void FindListRows(const Candidate& list, const std::vector<Candidate>& all,
                  const std::vector<ocr::TextRegion>& text, std::vector<Element>& out) {
  if (list.interior < kBrightInterior) return;
  struct Row {
    int top, bottom, left;
  };
  std::vector<Rect> anchors;
  for (int i : list.texts) anchors.push_back(text[static_cast<size_t>(i)].bounds);
  for (int k : list.children) {
    const Candidate& c = all[static_cast<size_t>(k)];
    if (c.kind == Kind::kElement) anchors.push_back(c.box);
  }
  std::sort(anchors.begin(), anchors.end(), [](const Rect& a, const Rect& b) { return a.y < b.y; });
  std::vector<Row> rows;
  for (const Rect& a : anchors) {
    if (!rows.empty() && a.y + a.h / 2 < rows.back().bottom) {
      Row& r = rows.back();
      r.top = std::min(r.top, a.y);
      r.bottom = std::max(r.bottom, a.Bottom());
      r.left = std::min(r.left, a.x);
    } else {
      rows.push_back({a.y, a.Bottom(), a.x});
    }
  }
  if (rows.size() < 2) return;
  int min_left = rows[0].left, max_left = rows[0].left;
  for (const Row& r : rows) {
    min_left = std::min(min_left, r.left);
    max_left = std::max(max_left, r.left);
  }
  if (max_left - min_left > 6) return;
  std::vector<int> pitches;
  for (size_t i = 1; i < rows.size(); ++i) pitches.push_back(rows[i].top - rows[i - 1].top);
  const auto [lo, hi] = std::minmax_element(pitches.begin(), pitches.end());
  if (*lo <= 0 || *hi > *lo * 1.35) return;
  std::vector<int> gaps;
  for (size_t i = 1; i < rows.size(); ++i)
    gaps.push_back(std::max(0, rows[i].top - rows[i - 1].bottom));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  const int half_gap = gaps[gaps.size() / 2] / 2;
  const Rect& l = list.box;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int top = i == 0 ? std::max(l.y + 1, rows[i].top - half_gap)
                           : (rows[i - 1].bottom + rows[i].top + 1) / 2;
    const int bottom = i + 1 == rows.size() ? std::min(l.Bottom() - 1, rows[i].bottom + half_gap)
                                            : (rows[i].bottom + rows[i + 1].top + 1) / 2;
    out.push_back({Rect{l.x + 1, top, l.w - 2, bottom - top}, Role::kListItem, kListRow, ""});
  }
}

// Thin, long boundary components with a knob: sliders, horizontal or
// vertical. The trough is a band of rows (columns) where the boundary runs
// along most of the component, contiguous and in its middle third (the
// knob is centred on it); a word never has one, and a box has its runs at
// its top and bottom edges instead.
void FindSliders(const std::vector<std::vector<cv::Point>>& contours,
                 const std::vector<cv::Vec4i>& hierarchy, const std::vector<ocr::TextRegion>& text,
                 std::vector<Element>& out) {
  for (size_t i = 0; i < contours.size(); ++i) {
    if (hierarchy[i][3] >= 0) continue;
    const cv::Rect r = cv::boundingRect(contours[i]);
    const bool horizontal = r.width >= 60 && r.height <= 40 && r.width >= 4 * r.height;
    const bool vertical = r.height >= 60 && r.width <= 40 && r.height >= 4 * r.width;
    if (!horizontal && !vertical) continue;
    const int length = horizontal ? r.width : r.height;
    const int across = horizontal ? r.height : r.width;
    // The component filled: a trough's rows are covered end to end whether
    // it is drawn as an outline or as a fill.
    cv::Mat solid = cv::Mat::zeros(r.height, r.width, CV_8UC1);
    cv::drawContours(solid, contours, static_cast<int>(i), cv::Scalar(255), cv::FILLED, cv::LINE_8,
                     cv::noArray(), 0, cv::Point(-r.x, -r.y));
    int best_start = -1, best_run = 0, start = -1, run = 0;
    for (int k = 0; k < across; ++k) {
      const cv::Mat line = horizontal ? solid.row(k) : solid.col(k);
      if (cv::countNonZero(line) >= length * 0.85) {
        if (run == 0) start = k;
        if (++run > best_run) {
          best_run = run;
          best_start = start;
        }
      } else {
        run = 0;
      }
    }
    if (best_run < 3 || best_run > 14) continue;
    // Text is no slider, even where its glyphs join along a dash run
    // ("drwxr-xr-x" in a terminal): a component the line finder took for
    // a line of text is one.
    const Rect component = FromCv(r);
    const bool is_text = std::any_of(text.begin(), text.end(), [&](const ocr::TextRegion& t) {
      return ShareInside(component, Grow(t.bounds, 2)) >= 0.8;
    });
    if (is_text) continue;
    // The knob makes the component at least twice as thick as its trough,
    // and sits centred on it.
    if (across < 2 * best_run) continue;
    const int middle = best_start + best_run / 2;
    if (middle < across / 3 || middle > across * 2 / 3) continue;
    Rect box = Grow(FromCv(r), -1);
    // Toolkits give a slider room around its knob: 1.5 knob widths across.
    const int room = (across * 3 / 2 - across) / 2;
    box = horizontal ? Rect{box.x, box.y - room, box.w, box.h + 2 * room}
                     : Rect{box.x - room, box.y, box.w + 2 * room, box.h};
    if (horizontal) box = WithValueAbove(box, text);
    out.push_back({box, Role::kSlider, kSlider, ""});
  }
}

// Compact blobs of icon size outside every element and every text line.
void FindIcons(const std::vector<std::vector<cv::Point>>& contours,
               const std::vector<cv::Vec4i>& hierarchy, const cv::Mat& edges,
               const std::vector<ocr::TextRegion>& text, const std::vector<Candidate>& boxes,
               std::vector<Element>& out) {
  const std::vector<Element> found = out;
  for (size_t i = 0; i < contours.size(); ++i) {
    if (hierarchy[i][3] >= 0) continue;
    const cv::Rect cr = cv::boundingRect(contours[i]);
    const Rect r = Grow(FromCv(cr), -1);
    if (r.w < kMinIcon || r.h < kMinIcon || r.w > kMaxIcon || r.h > kMaxIcon) continue;
    const double aspect = static_cast<double>(r.w) / r.h;
    if (aspect < 0.6 || aspect > 1.6) continue;
    const double density =
        cv::countNonZero(edges(cr)) / (static_cast<double>(cr.width) * cr.height);
    if (density < 0.15 || density > 0.9) continue;
    // A "line" that is this blob alone is the line finder taking a lone
    // symbol for a glyph; any other overlap means the blob is text.
    const auto overlaps_text = std::any_of(text.begin(), text.end(), [&](const ocr::TextRegion& t) {
      return !Intersect(Grow(t.bounds, 2), r).Empty() && IoU(t.bounds, r) < 0.6;
    });
    if (overlaps_text) continue;
    // The border of a box is a blob of the box's size: not an icon.
    const bool is_box = std::any_of(boxes.begin(), boxes.end(), [&](const Candidate& c) {
      return IoU(c.box, r) >= 0.5 || (c.kind == Kind::kElement && ShareInside(r, c.box) >= 0.5);
    });
    if (is_box) continue;
    const bool in_element = std::any_of(found.begin(), found.end(), [&](const Element& e) {
      return ShareInside(r, e.bounds) >= 0.5;
    });
    if (in_element) continue;
    out.push_back({r, Role::kIcon, kIcon, ""});
  }
}

}  // namespace

Result<std::vector<Element>> ClassicalDetector::Detect(const Image& image, Point origin,
                                                       std::span<const Rect> masks) const {
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "the detector needs a non-empty RGB image, got " +
                                                      std::to_string(image.width) + "x" +
                                                      std::to_string(image.height));
  }
  std::vector<Rect> local;
  for (const Rect& m : masks) local.push_back(m.Translated(-origin.x, -origin.y));
  // Masked pixels are filled before anything looks at them (ocr::ToGray).
  ocr::GrayImage gray_image = ocr::ToGray(image, local);
  std::vector<ocr::TextRegion> text;
  std::vector<std::vector<cv::Point>> contours;
  std::vector<cv::Vec4i> hierarchy;
  cv::Mat edges;
  cv::Mat gray(gray_image.height, gray_image.width, CV_8UC1, gray_image.pixels.data());
  try {
    cv::Mat gradient;
    cv::morphologyEx(gray, gradient, cv::MORPH_GRADIENT,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::threshold(gradient, edges, options_.edge_threshold - 1, 255, cv::THRESH_BINARY);
    // A boundary frame around the image closes boxes cut by its edge (a
    // button flush with the window border); contours come back shifted by
    // one pixel.
    cv::Mat framed;
    cv::copyMakeBorder(edges, framed, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(255));
    cv::findContours(framed, contours, hierarchy, cv::RETR_CCOMP, cv::CHAIN_APPROX_SIMPLE,
                     cv::Point(-1, -1));
  } catch (const cv::Exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("OpenCV failed: ") + e.what());
  }
  text = ocr::FindTextRegions(gray_image);

  std::vector<Candidate> boxes = FindBoxes(contours, hierarchy, image.width, image.height);
  boxes.erase(std::remove_if(boxes.begin(), boxes.end(),
                             [&](const Candidate& c) { return IsGlyphHole(c.box, text); }),
              boxes.end());
  // Containment: what each box holds (text and other boxes), directly or not.
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t t = 0; t < text.size(); ++t) {
      if (ShareInside(text[t].bounds, boxes[i].box) >= 0.8) boxes[i].texts.push_back(int(t));
    }
    for (size_t k = 0; k < boxes.size(); ++k) {
      if (k != i && boxes[k].box.Area() < boxes[i].box.Area() &&
          Inside(boxes[k].box, boxes[i].box)) {
        boxes[i].children.push_back(static_cast<int>(k));
      }
    }
  }
  std::vector<Element> found;
  // Tab strips first: a strip of labels looks like a wide button.
  for (Candidate& c : boxes) FindTabs(c, boxes, text, found);
  for (Candidate& c : boxes) {
    if (c.kind != Kind::kTabStrip) Classify(c, gray, edges, text, boxes);
  }
  for (const Candidate& c : boxes) {
    if (c.kind == Kind::kContainer) FindListRows(c, boxes, text, found);
  }
  JoinLinkedBoxes(boxes);
  FindFilledToggles(contours, hierarchy, gray, boxes);
  JoinTroughs(boxes, text, found);
  std::vector<Rect> toggles;
  for (const Candidate& c : boxes) {
    if (c.kind == Kind::kElement && (c.role == Role::kCheckBox || c.role == Role::kRadioButton)) {
      toggles.push_back(c.box);
    }
  }
  FindSliders(contours, hierarchy, text, found);
  // A slider's knob is a round box: part of the slider, not a radio button.
  std::vector<Element> sliders;
  for (const Element& e : found) {
    if (e.role == Role::kSlider) sliders.push_back(e);
  }
  for (const Candidate& c : boxes) {
    if (c.kind != Kind::kElement) continue;
    // An element inside another element is a part of it (the box of a
    // spin button's entry), except buttons in list rows, which the row
    // logic kept apart.
    const bool in_slider = std::any_of(sliders.begin(), sliders.end(), [&](const Element& s) {
      return ShareInside(c.box, s.bounds) >= 0.8;
    });
    if (in_slider) continue;
    const bool part_of_compound = std::any_of(boxes.begin(), boxes.end(), [&](const Candidate& o) {
      return o.compound && &o != &c && Inside(c.box, o.box);
    });
    if (part_of_compound) continue;
    Rect box = c.box;
    if (c.role == Role::kCheckBox || c.role == Role::kRadioButton) {
      box = WithLabel(box, text, toggles);
    }
    found.push_back({box, c.role, c.confidence, ""});
  }
  FindIcons(contours, hierarchy, edges, text, boxes, found);

  std::vector<Element> out;
  for (Element& e : found) {
    if (e.confidence < options_.min_confidence) continue;
    e.bounds = e.bounds.Translated(origin.x, origin.y);
    out.push_back(std::move(e));
  }
  SortInReadingOrder(out);
  return out;
}

}  // namespace uiscope::vision
