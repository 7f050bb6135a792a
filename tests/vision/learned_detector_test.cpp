// The learned detector (vision/learned_detector.h) with the shipped model
// (data/vision/detector.onnx): it loads, finds the controls of a real GTK
// screenshot (tests/fixtures/images/ui.png) in screen coordinates, honours
// masks, is safe to call from two threads; a missing or corrupt model is a
// clear error, and "auto" then falls back to the classical detector.
#include "vision/learned_detector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../ocr/ocr_test_support.h"
#include "core/geometry.h"

namespace uiscope::vision {
namespace {

using test::LoadPng;

const std::string kImages = UISCOPE_TEST_IMAGES;
// Screen rectangles of controls in ui.png (a GTK 3 window at 0,0).
constexpr Rect kLogin{165, 151, 331, 34};
constexpr Rect kOk{32, 552, 90, 36};

std::unique_ptr<LearnedDetector> Shipped() {
  auto d = LearnedDetector::Load();
  if (!d.ok()) ADD_FAILURE() << d.error().message;
  return d.ok() ? std::move(d).value() : nullptr;
}

const Element* Best(const std::vector<Element>& found, const Rect& r) {
  const Element* best = nullptr;
  for (const Element& e : found) {
    if (IoU(e.bounds, r) >= 0.5 && (best == nullptr || IoU(e.bounds, r) > IoU(best->bounds, r))) {
      best = &e;
    }
  }
  return best;
}

TEST(LearnedDetectorTest, FindsControlsInScreenCoordinates) {
  auto detector = Shipped();
  ASSERT_NE(detector, nullptr);
  EXPECT_EQ(detector->name(), "learned");
  const Image image = LoadPng(kImages + "/ui.png");
  ASSERT_TRUE(image.Valid());
  auto at_zero = detector->Detect(image, Point{0, 0});
  ASSERT_TRUE(at_zero.ok()) << at_zero.error().message;
  const Element* login = Best(*at_zero, kLogin);
  ASSERT_NE(login, nullptr) << "the Login button was not found";
  EXPECT_EQ(login->role, Role::kButton);
  const Element* ok = Best(*at_zero, kOk);
  ASSERT_NE(ok, nullptr) << "the OK button was not found";
  EXPECT_EQ(ok->role, Role::kButton);
  for (const Element& e : *at_zero) {
    EXPECT_GE(e.confidence, 0.35f);
    EXPECT_LE(e.confidence, 1.0f);
  }
  // The same window shown at (300, 200): the same elements, moved.
  auto moved = detector->Detect(image, Point{300, 200});
  ASSERT_TRUE(moved.ok());
  ASSERT_EQ(moved->size(), at_zero->size());
  for (size_t i = 0; i < moved->size(); ++i) {
    EXPECT_EQ((*moved)[i].bounds, (*at_zero)[i].bounds.Translated(300, 200));
    EXPECT_EQ((*moved)[i].role, (*at_zero)[i].role);
  }
}

TEST(LearnedDetectorTest, MaskedPixelsAreNotSeen) {
  auto detector = Shipped();
  ASSERT_NE(detector, nullptr);
  const Image image = LoadPng(kImages + "/ui.png");
  const Point origin{50, 20};
  const Rect login = kLogin.Translated(origin.x, origin.y);
  auto plain = detector->Detect(image, origin);
  ASSERT_TRUE(plain.ok());
  ASSERT_NE(Best(*plain, login), nullptr);
  const Rect masks[] = {login};
  auto masked = detector->Detect(image, origin, masks);
  ASSERT_TRUE(masked.ok());
  for (const Element& e : *masked) {
    EXPECT_LT(IoU(e.bounds, login), 0.3) << "a detection over the masked button";
  }
  // Elsewhere what was found still is: the OK button.
  EXPECT_NE(Best(*masked, kOk.Translated(origin.x, origin.y)), nullptr);
}

TEST(LearnedDetectorTest, ConcurrentCallsAgree) {
  auto detector = Shipped();
  ASSERT_NE(detector, nullptr);
  const Image image = LoadPng(kImages + "/ui.png");
  auto expected = detector->Detect(image, Point{0, 0});
  ASSERT_TRUE(expected.ok());
  std::vector<size_t> counts(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < counts.size(); ++t) {
    threads.emplace_back([&, t] {
      auto r = detector->Detect(image, Point{0, 0});
      counts[t] = r.ok() ? r->size() : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (size_t c : counts) EXPECT_EQ(c, expected->size());
}

TEST(LearnedDetectorTest, FullHdFrameInBoundedTime) {
  auto detector = Shipped();
  ASSERT_NE(detector, nullptr);
  const Image ui = LoadPng(kImages + "/ui.png");
  Image frame = MakeImage(1920, 1080);
  for (int y = 0; y < frame.height; ++y) {
    for (int x = 0; x < frame.width; ++x) {
      std::copy_n(ui.Pixel(x % ui.width, y % ui.height), 3, frame.Pixel(x, y));
    }
  }
  ASSERT_TRUE(detector->Detect(frame, Point{0, 0}).ok());  // warm-up
  const auto start = std::chrono::steady_clock::now();
  auto found = detector->Detect(frame, Point{0, 0});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(found.ok());
  std::printf("learned detector, 1920x1080 frame: %.1f ms, %zu elements\n", ms, found->size());
  EXPECT_GT(found->size(), 10u);
  // The bench's goal is 100 ms on one core; 10x that on a loaded test machine.
  EXPECT_LT(ms, 1000.0);
}

TEST(LearnedDetectorTest, InvalidImageRefused) {
  auto detector = Shipped();
  ASSERT_NE(detector, nullptr);
  auto bad = detector->Detect(Image{}, Point{0, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

class BadModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "uiscope_learned_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(BadModelTest, MissingModelIsNotFoundAndAutoFallsBack) {
  const std::string path = dir_ + "/absent.onnx";
  auto loaded = LearnedDetector::Load({path});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::kNotFound);
  EXPECT_NE(loaded.error().message.find(path), std::string::npos);

  DetectorOptions options;
  options.kind = "learned";
  options.model_path = path;
  auto named = CreateDetector(options);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().code, ErrorCode::kNotFound);
  options.kind = "combined";  // needs the model as much: no silent fallback
  auto combined = CreateDetector(options);
  ASSERT_FALSE(combined.ok());
  EXPECT_EQ(combined.error().code, ErrorCode::kNotFound);

  options.kind = "auto";
  std::string warning;
  auto fallback = CreateDetector(options, &warning);
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ((*fallback)->name(), "classical");
  EXPECT_NE(warning.find("classical"), std::string::npos);
  EXPECT_NE(warning.find(path), std::string::npos);

  // The default (no kind named) is "combined", and falls back as "auto" does.
  options.kind.clear();
  warning.clear();
  auto by_default = CreateDetector(options, &warning);
  ASSERT_TRUE(by_default.ok()) << by_default.error().message;
  EXPECT_EQ((*by_default)->name(), "classical");
  EXPECT_NE(warning.find("classical"), std::string::npos);
  EXPECT_NE(warning.find(path), std::string::npos);
}

TEST_F(BadModelTest, CorruptModelIsInvalidAndAutoFallsBack) {
  const std::string path = dir_ + "/corrupt.onnx";
  {
    std::ofstream f(path, std::ios::binary);
    f << "this is not an ONNX model\n";
  }
  auto loaded = LearnedDetector::Load({path});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(loaded.error().message.find(path), std::string::npos);

  DetectorOptions options;
  options.kind = "auto";
  options.model_path = path;
  std::string warning;
  auto fallback = CreateDetector(options, &warning);
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ((*fallback)->name(), "classical");
  EXPECT_FALSE(warning.empty());
}

// "combined" keeps every element the classical detector finds, box and role
// as they are, and adds only learned elements that overlap none of them.
TEST(DetectorFactoryTest, CombinedKeepsTheClassicalElementsAndAddsOnlyNewOnes) {
  DetectorOptions options;
  options.kind = "combined";
  auto combined = CreateDetector(options);
  ASSERT_TRUE(combined.ok()) << combined.error().message;
  EXPECT_EQ((*combined)->name(), "combined");
  options.kind = "classical";
  auto classical = CreateDetector(options);
  ASSERT_TRUE(classical.ok());
  options.kind = "learned";
  auto learned = CreateDetector(options);
  ASSERT_TRUE(learned.ok());
  const Image image = LoadPng(kImages + "/ui.png");
  const Point origin{40, 30};
  auto both = (*combined)->Detect(image, origin);
  auto classic = (*classical)->Detect(image, origin);
  auto alone = (*learned)->Detect(image, origin);
  ASSERT_TRUE(both.ok() && classic.ok() && alone.ok());
  for (const Element& c : *classic) {
    const bool kept = std::any_of(both->begin(), both->end(), [&](const Element& e) {
      return e.bounds == c.bounds && e.role == c.role;
    });
    EXPECT_TRUE(kept) << "a classical element is missing from the combined result";
  }
  for (const Element& e : *both) {
    const bool from_classical = std::any_of(classic->begin(), classic->end(),
                                            [&](const Element& c) { return c.bounds == e.bounds; });
    if (from_classical) continue;
    EXPECT_TRUE(std::any_of(alone->begin(), alone->end(), [&](const Element& l) {
      return l.bounds == e.bounds;
    })) << "an element neither detector found";
    for (const Element& c : *classic) {
      EXPECT_LT(IoU(c.bounds, e.bounds), 0.3) << "a learned element over a classical one";
    }
  }
  EXPECT_GE(both->size(), classic->size());
}

TEST(DetectorFactoryTest, LearnedByName) {
  DetectorOptions options;
  options.kind = "learned";
  auto d = CreateDetector(options);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ((*d)->name(), "learned");
}

}  // namespace
}  // namespace uiscope::vision
