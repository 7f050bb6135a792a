// The classical detector and the labels on synthesised screens (no display):
// each kind of control drawn at a known place, found there with its role.
#include "vision/detector.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../ocr/ocr_test_support.h"
#include "engine/vision_nodes.h"
#include "image/draw.h"
#include "support/fake_screen.h"
#include "vision/classical_detector.h"
#include "vision/labels.h"

namespace uiscope::vision {
namespace {

constexpr Rgb kWindow{246, 245, 244};
constexpr Rgb kBorder{90, 97, 115};
constexpr Rgb kInk{20, 20, 20};
constexpr Rgb kWhite{255, 255, 255};

void Box(Image& image, const Rect& r, Rgb fill) {
  FillRect(image, r, fill);
  DrawRectOutline(image, r, kBorder, 1);
}

struct Expected {
  Rect bounds;
  Role role;
};

// A window of every control kind the detector knows, and where each is.
Image Screen(std::vector<Expected>* expected) {
  Image image = MakeImage(640, 420);
  FillRect(image, Rect{0, 0, 640, 420}, kWindow);
  // A button with centred text.
  Box(image, Rect{40, 40, 120, 36}, Rgb{220, 224, 235});
  DrawText(image, 90, 49, "OK", kInk, 2);
  expected->push_back({Rect{40, 40, 120, 36}, Role::kButton});
  // A text field: white, its text at the left.
  Box(image, Rect{200, 40, 240, 36}, kWhite);
  DrawText(image, 210, 49, "name", kInk, 2);
  expected->push_back({Rect{200, 40, 240, 36}, Role::kTextField});
  // A check box and its label: one widget.
  Box(image, Rect{40, 120, 16, 16}, kWhite);
  DrawText(image, 64, 119, "Sync", kInk, 2);
  expected->push_back({Rect{40, 119, 72, 18}, Role::kCheckBox});
  // A slider: a trough and a square knob on it.
  FillRect(image, Rect{200, 126, 200, 6}, Rgb{180, 180, 190});
  Box(image, Rect{260, 119, 20, 20}, kWhite);
  expected->push_back({Rect{200, 119, 200, 20}, Role::kSlider});
  // An icon: a plus sign, no text.
  FillRect(image, Rect{520, 110, 28, 8}, Rgb{200, 90, 20});
  FillRect(image, Rect{530, 100, 8, 28}, Rgb{200, 90, 20});
  expected->push_back({Rect{520, 100, 28, 28}, Role::kIcon});
  // A list: a bright bordered region with left-aligned rows at a pitch.
  Box(image, Rect{40, 200, 300, 180}, kWhite);
  for (int i = 0; i < 3; ++i) {
    DrawText(image, 52, 214 + 42 * i, std::string("Row ") + char('1' + i), kInk, 2);
  }
  expected->push_back({Rect{41, 201, 298, 42}, Role::kListItem});
  expected->push_back({Rect{41, 243, 298, 42}, Role::kListItem});
  expected->push_back({Rect{41, 285, 298, 42}, Role::kListItem});
  return image;
}

TEST(ClassicalDetectorTest, FindsEachKindOfControlWithItsRole) {
  std::vector<Expected> expected;
  const Image image = Screen(&expected);
  ClassicalDetector detector;
  auto found = detector.Detect(image, Point{1000, 500});
  ASSERT_TRUE(found.ok()) << found.error().ToString();
  std::string all;
  for (const Element& d : *found) {
    all += std::string(RoleName(d.role)) + " " + std::to_string(d.bounds.x - 1000) + "," +
           std::to_string(d.bounds.y - 500) + "," + std::to_string(d.bounds.w) + "," +
           std::to_string(d.bounds.h) + "; ";
  }
  for (const Expected& e : expected) {
    const Rect on_screen = e.bounds.Translated(1000, 500);
    const auto hit = std::find_if(found->begin(), found->end(), [&](const Element& d) {
      return IoU(d.bounds, on_screen) >= 0.5 && d.role == e.role;
    });
    EXPECT_NE(hit, found->end()) << RoleName(e.role) << " at " << e.bounds.x << "," << e.bounds.y
                                 << "; found: " << all;
    if (hit != found->end()) {
      EXPECT_GE(hit->confidence, 0.35f);
      EXPECT_LE(hit->confidence, 1.0f);
      EXPECT_TRUE(hit->label.empty()) << "the classical detector reads no text";
    }
  }
  EXPECT_LE(found->size(), expected.size() + 1) << "few false detections";
}

// Issue 17: an xterm's `ls -l` listing (tests/fixtures/images/
// xterm_listing.png, captured from xterm with its default font): each
// "drwxr-xr-x" joins along its dashes into a long thin component with
// letters standing out of it, like a trough and a knob. Text, not sliders;
// the synthesised screen's slider is still found (FindsEachKindOfControl).
TEST(ClassicalDetectorTest, TerminalTextIsNoSlider) {
  const Image image = test::LoadPng(std::string(UISCOPE_TEST_IMAGES) + "/xterm_listing.png");
  ASSERT_TRUE(image.Valid());
  ClassicalDetector detector;
  auto found = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(found.ok());
  for (const Element& e : *found) {
    EXPECT_NE(e.role, Role::kSlider) << "a slider at " << e.bounds.x << "," << e.bounds.y;
  }
}

// Issue 17: kcalc's menu bar, a framed strip with its menus' names spread
// along it, was taken for one button "File Edit Settings Help". A box
// whose text is three or more items apart is a bar; a button's label with
// several words is still a button.
TEST(ClassicalDetectorTest, ARowOfItemsIsABarNotAButton) {
  Image image = MakeImage(640, 200);
  FillRect(image, Rect{0, 0, 640, 200}, kWindow);
  Box(image, Rect{20, 20, 400, 30}, Rgb{236, 236, 236});
  int x = 34;
  for (const char* menu : {"File", "Edit", "Settings", "Help"}) {
    DrawText(image, x, 26, menu, kInk, 2);
    x += TextWidth(menu, 2) + 36;
  }
  Box(image, Rect{20, 100, 240, 36}, Rgb{220, 224, 235});
  DrawText(image, 20 + (240 - TextWidth("Send the parcel", 2)) / 2, 109, "Send the parcel", kInk,
           2);
  ClassicalDetector detector;
  auto found = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(found.ok());
  bool parcel = false;
  for (const Element& e : *found) {
    EXPECT_FALSE(e.role == Role::kButton && IoU(e.bounds, Rect{20, 20, 400, 30}) >= 0.5)
        << "the menu bar as a button";
    parcel = parcel || (e.role == Role::kButton && IoU(e.bounds, Rect{20, 100, 240, 36}) >= 0.8);
  }
  EXPECT_TRUE(parcel) << "a button with a label of three words";
}

// Issue 17: a full-width entry longer than any button (Tk's: 362 x 20, or
// a GTK one in a wide window) was taken for a bar and missed. A bright box
// of control height is a field however wide.
TEST(ClassicalDetectorTest, AFullWidthFieldIsAFieldHoweverWide) {
  Image image = MakeImage(700, 160);
  FillRect(image, Rect{0, 0, 700, 160}, Rgb{217, 217, 217});
  Box(image, Rect{20, 30, 620, 22}, kWhite);
  Box(image, Rect{20, 80, 620, 30}, kWhite);
  DrawText(image, 28, 87, "lantern", kInk, 2);
  ClassicalDetector detector;
  auto found = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(found.ok());
  int fields = 0;
  for (const Element& e : *found) {
    if (e.role == Role::kTextField && (IoU(e.bounds, Rect{20, 30, 620, 22}) >= 0.8 ||
                                       IoU(e.bounds, Rect{20, 80, 620, 30}) >= 0.8)) {
      ++fields;
    }
  }
  EXPECT_EQ(fields, 2);
}

// Issue 17, tried on a Tk form: a classic scale is a sunken trough that
// its raised knob cuts in two; the detector saw two fields and two check
// boxes. Two long empty boxes of one height end to end with the knob's box
// between them are one slider, with its value label above.
TEST(ClassicalDetectorTest, ATroughCutByItsKnobIsOneSlider) {
  Image image = MakeImage(400, 120);
  FillRect(image, Rect{0, 0, 400, 120}, Rgb{217, 217, 217});
  Box(image, Rect{20, 60, 121, 18}, Rgb{195, 195, 195});
  Box(image, Rect{140, 60, 31, 18}, Rgb{230, 230, 230});
  Box(image, Rect{170, 60, 150, 18}, Rgb{195, 195, 195});
  DrawText(image, 144, 38, "35", kInk, 2);
  ClassicalDetector detector;
  auto found = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(found.ok());
  int sliders = 0;
  for (const Element& e : *found) {
    if (e.role == Role::kSlider) {
      ++sliders;
      EXPECT_GE(IoU(e.bounds, Rect{20, 38, 300, 40}), 0.8)
          << e.bounds.x << "," << e.bounds.y << " " << e.bounds.w << "x" << e.bounds.h;
    } else {
      EXPECT_TRUE(Intersect(e.bounds, Rect{20, 60, 300, 18}).Empty())
          << RoleName(e.role) << " at " << e.bounds.x << "," << e.bounds.y;
    }
  }
  EXPECT_EQ(sliders, 1);
}

TEST(ClassicalDetectorTest, ResultsAreInReadingOrderAndDeterministic) {
  std::vector<Expected> expected;
  const Image image = Screen(&expected);
  ClassicalDetector detector;
  auto a = detector.Detect(image, Point{0, 0});
  auto b = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].bounds, (*b)[i].bounds);
    if (i > 0) {
      EXPECT_LE((*a)[i - 1].bounds.y, (*a)[i].bounds.y);
    }
  }
}

TEST(ClassicalDetectorTest, MaskedPixelsAreNotSeen) {
  Image image = MakeImage(300, 100);
  FillRect(image, Rect{0, 0, 300, 100}, kWindow);
  Box(image, Rect{20, 20, 120, 36}, Rgb{220, 224, 235});
  DrawText(image, 60, 29, "OK", kInk, 2);
  ClassicalDetector detector;
  auto seen = detector.Detect(image, Point{0, 0});
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->size(), 1u);
  const std::vector<Rect> masks = {Rect{10, 10, 140, 56}};
  auto masked = detector.Detect(image, Point{0, 0}, masks);
  ASSERT_TRUE(masked.ok());
  EXPECT_TRUE(masked->empty());
}

TEST(ClassicalDetectorTest, EmptyAndInvalidImages) {
  ClassicalDetector detector;
  Image blank = MakeImage(200, 120);
  FillRect(blank, Rect{0, 0, 200, 120}, kWindow);
  auto none = detector.Detect(blank, Point{0, 0});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto bad = detector.Detect(Image{}, Point{0, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

// The default runs both detectors when the shipped model loads (a missing
// model falls back: learned_detector_test.cpp).
TEST(DetectorFactoryTest, CombinedByDefaultAndUnknownKindsRefused) {
  std::string warning;
  auto d = CreateDetector({}, &warning);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->name(), "combined");
  EXPECT_EQ(warning, "");
  DetectorOptions options;
  options.kind = "omniparser";
  auto unknown = CreateDetector(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unknown.error().message.find("classical"), std::string::npos);
}

ocr::OcrLine Line(std::string text, Rect bounds) {
  ocr::OcrLine l;
  l.text = text;
  l.bounds = bounds;
  l.confidence = 0.9f;
  // One word per space-separated part, laid out left to right.
  int x = bounds.x;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const int w = static_cast<int>(end - start) * 10;
    l.words.push_back({text.substr(start, end - start), Rect{x, bounds.y, w, bounds.h}, 0.9f});
    x += w + 10;
    start = end + 1;
  }
  return l;
}

TEST(LabelsTest, InsideBesideAndAboveByRole) {
  const std::vector<Element> elements = {
      {Rect{100, 10, 80, 30}, Role::kButton, 0.7f, ""},
      {Rect{100, 60, 16, 16}, Role::kCheckBox, 0.6f, ""},
      {Rect{200, 100, 200, 30}, Role::kTextField, 0.6f, ""},
      {Rect{200, 160, 200, 30}, Role::kTextField, 0.6f, ""},
      {Rect{200, 220, 200, 24}, Role::kSlider, 0.6f, ""},
      {Rect{0, 300, 300, 40}, Role::kListItem, 0.5f, ""},
      {Rect{500, 10, 30, 30}, Role::kIcon, 0.4f, "Gear"},
  };
  const std::vector<ocr::OcrLine> lines = {
      Line("Save", Rect{120, 17, 40, 16}),          // inside the button
      Line("Remember me", Rect{122, 60, 110, 16}),  // right of the check box
      Line("Email", Rect{140, 107, 50, 16}),        // left of the first field
      Line("ada", Rect{208, 107, 30, 16}),          // in it: its value
      Line("Search...", Rect{208, 167, 90, 16}),    // in the second: its name
      Line("Volume", Rect{130, 224, 60, 16}),       // left of the slider
      Line("Row 1", Rect{8, 312, 50, 16}),          // the row's own label
      Line("Open", Rect{240, 312, 40, 16}),         // another cell
  };
  std::vector<Detection> d = LabelElements(elements, lines);
  ASSERT_EQ(d.size(), elements.size());
  EXPECT_EQ(d[0].name, "Save");
  EXPECT_EQ(d[1].name, "Remember me");
  EXPECT_EQ(d[2].name, "Email");
  EXPECT_EQ(d[2].value, "ada");
  EXPECT_EQ(d[3].name, "Search...");
  EXPECT_TRUE(d[3].value.empty());
  EXPECT_EQ(d[4].name, "Volume");
  EXPECT_EQ(d[5].name, "Row 1");
  EXPECT_EQ(d[6].name, "Gear") << "a detector's own label is kept";
  for (const Detection& x : d) {
    EXPECT_EQ(x.source, Source::kVision);
  }
  EXPECT_FLOAT_EQ(d[0].confidence, 0.7f);
}

TEST(LabelsTest, SymbolsReadAsLettersAreNotPartOfTheLabel) {
  const std::vector<Element> elements = {
      {Rect{0, 0, 120, 34}, Role::kButton, 0.5f, ""},      // "Left" and its arrow
      {Rect{0, 50, 120, 34}, Role::kButton, 0.7f, ""},     // "Page 1"
      {Rect{0, 100, 140, 22}, Role::kCheckBox, 0.6f, ""},  // mark read as "4"
  };
  std::vector<ocr::OcrLine> lines = {
      Line("Left", Rect{10, 9, 40, 16}),
      Line("Eka", Rect{95, 9, 20, 16}),  // OCR made the far arrow a line of its own
      Line("Page 1", Rect{30, 59, 60, 16}),
      Line("4 checkbutton", Rect{2, 103, 130, 16}),
  };
  std::vector<Detection> d = LabelElements(elements, lines);
  EXPECT_EQ(d[0].name, "Left");
  EXPECT_EQ(d[1].name, "Page 1") << "a digit next to its word stays";
  EXPECT_EQ(d[2].name, "checkbutton") << "nothing read on the indicator";
}

// Issue 17: gnome-calculator's π read as "Tl" at 0.64 named its button.
// A reading of 1-3 characters under 0.7 is a symbol, not a label; a longer
// word read as unsurely is still text.
TEST(LabelsTest, UnsureShortReadingsLabelNothing) {
  const std::vector<Element> elements = {
      {Rect{0, 0, 60, 40}, Role::kButton, 0.7f, ""},
      {Rect{0, 50, 120, 34}, Role::kButton, 0.7f, ""},
      {Rect{0, 100, 60, 40}, Role::kButton, 0.7f, ""},
  };
  std::vector<ocr::OcrLine> lines = {Line("Tl", Rect{20, 12, 20, 16}),
                                     Line("Settings", Rect{20, 59, 80, 16}),
                                     Line("mod", Rect{15, 112, 30, 16})};
  lines[0].words[0].confidence = lines[0].confidence = 0.64f;
  lines[1].words[0].confidence = lines[1].confidence = 0.62f;
  lines[2].words[0].confidence = lines[2].confidence = 0.97f;
  std::vector<Detection> d = LabelElements(elements, lines);
  EXPECT_EQ(d[0].name, "") << "a symbol taken for letters";
  EXPECT_EQ(d[1].name, "Settings");
  EXPECT_EQ(d[2].name, "mod");
}

// Issue 17, on a plain GTK 3 form: the second field was labelled with the
// first one's placeholder (the text just above it) and the slider with the
// check box's label. Text another element shows inside itself labels no
// neighbour; a slider's value is only its numbers (the knob read as "©").
TEST(LabelsTest, TextInsideAnotherElementIsNoLabelBesideIt) {
  const std::vector<Element> elements = {
      {Rect{18, 18, 384, 34}, Role::kTextField, 0.6f, ""},
      {Rect{18, 64, 384, 34}, Role::kTextField, 0.6f, ""},
      {Rect{22, 113, 190, 16}, Role::kCheckBox, 0.6f, ""},
      {Rect{30, 147, 360, 44}, Role::kSlider, 0.65f, ""},
  };
  std::vector<ocr::OcrLine> lines = {Line("Harbour name", Rect{28, 27, 110, 16}),
                                     Line("lantern@example.org", Rect{28, 73, 160, 16}),
                                     Line("Keep the orchard", Rect{42, 113, 108, 16}),
                                     Line("35 ©", Rect{148, 148, 40, 12})};
  std::vector<Detection> d = LabelElements(elements, lines);
  EXPECT_EQ(d[0].name, "Harbour name") << "its own text, nothing beside it";
  EXPECT_EQ(d[1].name, "lantern@example.org") << "not the placeholder of the field above";
  EXPECT_EQ(d[2].name, "Keep the orchard");
  EXPECT_EQ(d[3].name, "") << "not the check box's label";
  EXPECT_EQ(d[3].value, "35");
}

TEST(LabelsTest, RegionsCoverLabelsBesideAndMerge) {
  const std::vector<Element> elements = {
      {Rect{100, 100, 16, 16}, Role::kCheckBox, 0.6f, ""},
      {Rect{110, 104, 16, 16}, Role::kRadioButton, 0.6f, ""},
      {Rect{600, 400, 200, 30}, Role::kTextField, 0.6f, ""},
      {Rect{10, 10, 30, 30}, Role::kIcon, 0.4f, "named already"},
  };
  const std::vector<Rect> regions = LabelRegions(elements, Rect{0, 0, 1000, 800});
  ASSERT_EQ(regions.size(), 2u) << "the two toggles' regions overlap and merge";
  EXPECT_TRUE(regions[0].Contains(Rect{116, 100, 150, 16})) << "room for the label at the right";
  EXPECT_TRUE(regions[1].Contains(Rect{450, 400, 150, 30})) << "room for the label at the left";
  for (const Rect& r : regions) EXPECT_TRUE((Rect{0, 0, 1000, 800}).Contains(r));
}

// Issue 20: vision reads the desktop through its ScreenCapture and
// WindowSystem alone, so a fake desktop serves it as X11 does: the controls
// of a window the tree lacks (the synthesised screen, on an in-memory
// screen) become nodes of that window with their roles, in screen pixels.
TEST(VisionOnAFakeScreenTest, ControlsOfAWindowMissingFromTheTreeBecomeNodes) {
  std::vector<Expected> expected;
  const Image synth = Screen(&expected);
  const Rect at{100, 80, synth.width, synth.height};
  WindowInfo window;
  window.id = 0x900;
  window.title = "Synthesised";
  window.app_instance = "synth";
  window.bounds = window.frame = at;
  auto workspace = test::WorkspaceShowing(synth, window);
  auto lease = workspace->Acquire();
  ASSERT_TRUE(lease.ok()) << lease.error().ToString();
  auto observed = lease->observer->Observe(ObserveRequest{});
  ASSERT_TRUE(observed.ok()) << observed.error().ToString();
  Snapshot snapshot = observed->snapshot;

  ClassicalDetector detector;
  TextReader reader;
  auto seen = AddVisionSource(snapshot, *lease, reader, detector, ObserveRequest{});
  ASSERT_TRUE(seen.ok()) << seen.error().ToString();
  EXPECT_EQ(seen->targets, 1);
  EXPECT_GE(seen->detected, static_cast<int>(expected.size()));
  std::vector<const Node*> nodes;
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.source == Source::kVision && n.bounds) nodes.push_back(&n);
  });
  for (const Expected& e : expected) {
    const Rect on_screen = e.bounds.Translated(at.x, at.y);
    const bool found = std::any_of(nodes.begin(), nodes.end(), [&](const Node* n) {
      return n->role == e.role && IoU(*n->bounds, on_screen) >= 0.5;
    });
    EXPECT_TRUE(found) << RoleName(e.role) << " at " << e.bounds.x << "," << e.bounds.y;
  }
}

}  // namespace
}  // namespace uiscope::vision
