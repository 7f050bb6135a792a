#include "vision/labels.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace uiscope::vision {
namespace {

// A word belongs to an element when this share of it lies inside.
constexpr double kInsideShare = 0.6;

double ShareInside(const Rect& inner, const Rect& outer) {
  const int64_t area = inner.Area();
  return area == 0 ? 0 : static_cast<double>(Intersect(inner, outer).Area()) / area;
}

std::string Join(const std::vector<const ocr::OcrWord*>& words) {
  std::string out;
  for (const ocr::OcrWord* w : words) {
    if (!out.empty()) out += ' ';
    out += w->text;
  }
  return out;
}

void AppendWords(std::string& to, const std::string& words) {
  if (!to.empty() && !words.empty()) to += ' ';
  to += words;
}

// A word of 1-3 characters standing apart at an end of a label, by 1.5 of
// its height, is a symbol taken for letters even when read confidently (a
// combo's arrow read as "Eka", an icon as "fe"; the unsure ones were
// dropped already, TextWords). A digit that ends "Page 1" is not apart.
bool SymbolApart(const ocr::OcrWord& w, int gap) {
  if (w.text.size() > 3) return false;
  return gap * 2 >= w.bounds.h * 3;
}

// The words inside `box`, per line, lines in reading order. For a check box
// or radio button, nothing read on its indicator (the square at its left).
std::vector<std::vector<const ocr::OcrWord*>> WordsInside(const Rect& box, Role role,
                                                          std::span<const ocr::OcrLine> lines) {
  const bool toggle = role == Role::kCheckBox || role == Role::kRadioButton;
  std::vector<std::vector<const ocr::OcrWord*>> out;
  for (const ocr::OcrLine& line : lines) {
    if (Intersect(line.bounds, box).Empty()) continue;
    std::vector<const ocr::OcrWord*> inside;
    for (const ocr::OcrWord& w : line.words) {
      if (ShareInside(w.bounds, box) < kInsideShare) continue;
      if (toggle && w.bounds.x + w.bounds.w / 2 < box.x + box.h) continue;
      inside.push_back(&w);
    }
    while (inside.size() >= 2 &&
           SymbolApart(*inside.back(),
                       inside.back()->bounds.x - inside[inside.size() - 2]->bounds.Right())) {
      inside.pop_back();
    }
    while (inside.size() >= 2 &&
           SymbolApart(*inside.front(), inside[1]->bounds.x - inside.front()->bounds.Right())) {
      inside.erase(inside.begin());
    }
    if (!inside.empty()) out.push_back(std::move(inside));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const Rect& ra = a.front()->bounds;
    const Rect& rb = b.front()->bounds;
    if (std::abs(ra.y - rb.y) > std::min(ra.h, rb.h) / 2) return ra.y < rb.y;
    return ra.x < rb.x;
  });
  // OCR splits words far apart on a row into lines of their own: a symbol
  // at the far end of a label is such a line.
  auto same_row = [](const ocr::OcrWord& a, const ocr::OcrWord& b) {
    return std::abs((a.bounds.y + a.bounds.h / 2) - (b.bounds.y + b.bounds.h / 2)) <=
           std::min(a.bounds.h, b.bounds.h) / 2;
  };
  while (out.size() >= 2 && out.back().size() == 1) {
    const ocr::OcrWord& last = *out.back().front();
    const ocr::OcrWord& before = *out[out.size() - 2].back();
    if (!same_row(last, before) || !SymbolApart(last, last.bounds.x - before.bounds.Right())) break;
    out.pop_back();
  }
  return out;
}

bool SameRow(const Rect& line, const Rect& box) {
  const int centre = line.y + line.h / 2;
  return centre >= box.y - 2 && centre <= box.Bottom() + 2;
}

// The nearest line right of `box` on its row, within `reach` pixels.
const ocr::OcrLine* RightOf(const Rect& box, std::span<const ocr::OcrLine> lines, int reach) {
  const ocr::OcrLine* best = nullptr;
  for (const ocr::OcrLine& l : lines) {
    const int gap = l.bounds.x - box.Right();
    if (gap < -2 || gap > reach || !SameRow(l.bounds, box)) continue;
    if (best == nullptr || l.bounds.x < best->bounds.x) best = &l;
  }
  return best;
}

// The nearest line left of `box` on its row, else just above it.
const ocr::OcrLine* LeftOrAbove(const Rect& box, std::span<const ocr::OcrLine> lines, int reach) {
  const ocr::OcrLine* best = nullptr;
  for (const ocr::OcrLine& l : lines) {
    const int gap = box.x - l.bounds.Right();
    if (gap < -2 || gap > reach || !SameRow(l.bounds, box)) continue;
    if (best == nullptr || l.bounds.Right() > best->bounds.Right()) best = &l;
  }
  if (best != nullptr) return best;
  for (const ocr::OcrLine& l : lines) {
    const int gap = box.y - l.bounds.Bottom();
    if (gap < -2 || gap > std::max(8, box.h) || l.bounds.x > box.x + box.w / 2 ||
        l.bounds.Right() < box.x) {
      continue;
    }
    if (best == nullptr || l.bounds.Bottom() > best->bounds.Bottom()) best = &l;
  }
  return best;
}

int Reach(const Rect& box) { return std::clamp(box.h * 3, 24, 120); }

// `lines` with only the words read as text (ocr::ReadAsText): a symbol OCR
// took for letters (π read as "Tl") is no label. Lines left without words are dropped; the others
// are re-joined.
std::vector<ocr::OcrLine> TextWords(std::span<const ocr::OcrLine> lines) {
  std::vector<ocr::OcrLine> out;
  for (const ocr::OcrLine& line : lines) {
    ocr::OcrLine kept;
    for (const ocr::OcrWord& w : line.words) {
      if (!ocr::ReadAsText(w)) continue;
      kept.bounds = kept.words.empty() ? w.bounds : Union(kept.bounds, w.bounds);
      AppendWords(kept.text, w.text);
      kept.words.push_back(w);
    }
    if (kept.words.empty()) continue;
    float weighted = 0;
    size_t letters = 0;
    for (const ocr::OcrWord& w : kept.words) {
      weighted += w.confidence * static_cast<float>(w.text.size());
      letters += w.text.size();
    }
    kept.confidence = letters == 0 ? 0 : weighted / static_cast<float>(letters);
    out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

std::vector<Detection> ToDetections(std::span<const Element> elements) {
  std::vector<Detection> out;
  out.reserve(elements.size());
  for (const Element& e : elements) {
    Detection d;
    d.bounds = e.bounds;
    d.role = e.role;
    d.name = e.label;
    d.confidence = e.confidence;
    d.source = Source::kVision;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Detection> LabelElements(std::span<const Element> elements,
                                     std::span<const ocr::OcrLine> read) {
  const std::vector<ocr::OcrLine> text = TextWords(read);
  const std::span<const ocr::OcrLine> lines = text;
  std::vector<Detection> out = ToDetections(elements);
  for (size_t i = 0; i < out.size(); ++i) {
    Detection& d = out[i];
    if (!d.name.empty()) continue;
    const auto inside = WordsInside(d.bounds, d.role, lines);
    // The text beside it, less what another element shows inside itself:
    // the placeholder of the field above is not this field's label, nor a
    // check box's label the slider's below it.
    std::vector<ocr::OcrLine> free;
    for (const ocr::OcrLine& l : lines) {
      bool owned = false;
      for (size_t k = 0; k < elements.size() && !owned; ++k) {
        owned = k != i && ShareInside(l.bounds, elements[k].bounds) >= kInsideShare;
      }
      if (!owned) free.push_back(l);
    }
    const std::span<const ocr::OcrLine> beside = free;
    switch (d.role) {
      case Role::kCheckBox:
      case Role::kRadioButton:
        // The detector may have taken the label into the box already.
        if (!inside.empty()) {
          d.name = Join(inside.front());
        } else if (const ocr::OcrLine* l = RightOf(d.bounds, beside, Reach(d.bounds))) {
          d.name = l->text;
        }
        break;
      case Role::kSlider: {
        // Inside a slider is its trough and knob (which OCR may read as
        // "—o" or "©") and perhaps its value: only numbers are taken, as
        // the value.
        for (const auto& line : inside) {
          for (const ocr::OcrWord* w : line) {
            if (std::any_of(w->text.begin(), w->text.end(),
                            [](char c) { return c >= '0' && c <= '9'; })) {
              AppendWords(d.value, w->text);
            }
          }
        }
        if (const ocr::OcrLine* l = LeftOrAbove(d.bounds, beside, Reach(d.bounds))) {
          d.name = l->text;
        }
        break;
      }
      case Role::kTextField:
      case Role::kComboBox:
      case Role::kSpinButton: {
        std::string own;
        for (const auto& line : inside) AppendWords(own, Join(line));
        const ocr::OcrLine* l = LeftOrAbove(d.bounds, beside, Reach(d.bounds));
        if (l != nullptr) {
          d.name = l->text;
          d.value = own;
        } else {
          d.name = own;
        }
        break;
      }
      case Role::kListItem:
        if (!inside.empty()) d.name = Join(inside.front());
        break;
      default:
        for (const auto& line : inside) AppendWords(d.name, Join(line));
        break;
    }
  }
  return out;
}

std::vector<Rect> LabelRegions(std::span<const Element> elements, const Rect& frame) {
  std::vector<Rect> regions;
  for (const Element& e : elements) {
    if (!e.label.empty()) continue;
    const Rect& b = e.bounds;
    const int reach = Reach(b);
    Rect r = b;
    switch (e.role) {
      case Role::kCheckBox:
      case Role::kRadioButton:
        r = Rect{b.x, b.y - 4, b.w + reach + 200, b.h + 8};
        break;
      case Role::kTextField:
      case Role::kSlider:
      case Role::kComboBox:
      case Role::kSpinButton:
        r = Union(b, Rect{b.x - reach - 200, b.y - std::max(8, b.h) - 24, reach + 200 + b.w / 2,
                          b.h + std::max(8, b.h) + 24});
        break;
      default:
        break;
    }
    r = Intersect(r, frame);
    if (!r.Empty()) regions.push_back(r);
  }
  // Merge overlapping rectangles until none overlap: OCR then reads each
  // pixel once.
  bool merged = true;
  while (merged) {
    merged = false;
    for (size_t i = 0; i < regions.size() && !merged; ++i) {
      for (size_t j = i + 1; j < regions.size(); ++j) {
        if (!Intersect(regions[i], regions[j]).Empty()) {
          regions[i] = Union(regions[i], regions[j]);
          regions.erase(regions.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
          break;
        }
      }
    }
  }
  return regions;
}

}  // namespace uiscope::vision
