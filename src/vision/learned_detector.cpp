#include "vision/learned_detector.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/painted.h"

namespace uiscope::vision {
namespace {

// The network's classes, in its output channel order (train/vision/model.py).
constexpr std::array<Role, 11> kClasses = {
    Role::kUnknown,     Role::kButton,   Role::kTextField, Role::kCheckBox,
    Role::kRadioButton, Role::kSlider,   Role::kComboBox,  Role::kSpinButton,
    Role::kTab,         Role::kListItem, Role::kMenuItem,
};
constexpr int kStride = 4;       // output cell size, in pixels
constexpr int kAlign = 16;       // the input's sides must be multiples of this
constexpr int kBoxChannels = 4;  // distances to the left, top, right, bottom edges
// Decoding (train/vision/train.py, decode, does the same): a cell is
// foreground when 1 - the background's probability is at least kForeground;
// the most sure cell not yet taken gathers the free cells whose boxes
// overlap its own at IoU >= kClusterIoU; a group is one element when it has
// at least kMinCells cells and they cover at least kMinCoverage of the core
// of the box they predict (a few cells that see a large box are a fragment
// of a widget or a shadow of one, not a widget). Last, an element
// overlapping a surer one of its role at IoU >= kSuppressIoU is that widget
// seen again (half a row or a key off) and is dropped. kForeground is the
// threshold with the most recall on the generated windows held back from
// training (88.4 % for the shipped model), kSuppressIoU the overlap with the
// best F1 there at that threshold (85.7 % recall, 67.7 % precision, from
// 88.3 % and 56.0 % without it; train/vision/README.md). Per role, not
// across roles: across roles scores 0.9 points of F1 more there, but it
// drops the held-out GTK 3 form's check box (the whole allocation) behind a
// surer box of its drawn part, so this choice saw a held-out app.
constexpr float kForeground = 0.3f;
constexpr float kClusterIoU = 0.5f;
constexpr double kSuppressIoU = 0.3;
constexpr int kMinCells = 2;
constexpr double kMinCoverage = 0.35;
constexpr double kCoreScale = 0.5;  // a core's size / its element's (model.py)
// Below this confidence, a button, check box or radio button whose pixels
// show a row of glyphs and nothing a control paints (painted.h) is a
// caption the network took for a control, and is dropped: its text stays in
// the tree as an OCR line. The threshold has the best F1 on the generated
// windows held back from training (0.778, from 0.750 with no such drop and
// 0.772 dropping at any confidence; recall / precision 86.1 / 66.4 % ->
// 83.2 / 73.6 %; train/vision/README.md).
constexpr float kBareTextBelow = 0.65f;

// One foreground cell: where it is, how sure, and the box it predicts.
struct Cell {
  int x = 0, y = 0;
  float foreground = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float Area() const { return (x1 - x0) * (y1 - y0); }
};

float CellIoU(const Cell& a, const Cell& b) {
  const float w = std::max(0.0f, std::min(a.x1, b.x1) - std::max(a.x0, b.x0));
  const float h = std::max(0.0f, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  const float inter = w * h;
  const float uni = a.Area() + b.Area() - inter;
  return uni > 0 ? inter / uni : 0.0f;
}

// The mean colour of the one-pixel ring around `r` (clipped to the image).
cv::Vec3b RingColour(const cv::Mat& rgb, const cv::Rect& r) {
  const cv::Rect image(0, 0, rgb.cols, rgb.rows);
  const cv::Rect outer = cv::Rect(r.x - 1, r.y - 1, r.width + 2, r.height + 2) & image;
  std::array<double, 3> sum{};
  int n = 0;
  for (int y = outer.y; y < outer.y + outer.height; ++y) {
    for (int x = outer.x; x < outer.x + outer.width; ++x) {
      if (r.contains(cv::Point(x, y))) continue;
      const cv::Vec3b& p = rgb.at<cv::Vec3b>(y, x);
      for (int c = 0; c < 3; ++c) sum[c] += p[c];
      ++n;
    }
  }
  if (n == 0) return cv::Vec3b(128, 128, 128);
  return cv::Vec3b(static_cast<uchar>(sum[0] / n), static_cast<uchar>(sum[1] / n),
                   static_cast<uchar>(sum[2] / n));
}

// `image` with each mask (screen pixels) painted with the mean colour of
// the ring just outside it.
Image Masked(const Image& image, Point origin, std::span<const Rect> masks) {
  Image out = image;
  cv::Mat rgb(out.height, out.width, CV_8UC3, out.rgb.data());
  for (const Rect& m : masks) {
    const cv::Rect r =
        cv::Rect(m.x - origin.x, m.y - origin.y, m.w, m.h) & cv::Rect(0, 0, out.width, out.height);
    if (r.area() <= 0) continue;
    rgb(r).setTo(RingColour(rgb, r));
  }
  return out;
}

bool IsBareText(const Image& image, const Element& e, Point origin) {
  const bool control_with_text =
      e.role == Role::kButton || e.role == Role::kCheckBox || e.role == Role::kRadioButton;
  return control_with_text &&
         WhatIsPainted(image, e.bounds.Translated(-origin.x, -origin.y)) == Painted::kText;
}

}  // namespace

struct LearnedDetector::Impl {
  LearnedOptions options;
  std::mutex mutex;  // guards net: cv::dnn::Net::forward is not reentrant
  cv::dnn::Net net;

  // The class probabilities (1 x classes x h/4 x w/4) for an RGB image whose
  // sides are multiples of kAlign.
  cv::Mat Forward(const cv::Mat& rgb) {
    cv::Mat blob = cv::dnn::blobFromImage(rgb, 1.0, cv::Size(), cv::Scalar(), false, false, CV_32F);
    std::lock_guard<std::mutex> lock(mutex);
    net.setInput(blob);
    return net.forward().clone();
  }
};

std::string DefaultModelPath() {
  if (const char* env = std::getenv("UISCOPE_VISION_MODEL"); env != nullptr && *env != '\0') {
    return env;
  }
#ifdef UISCOPE_DATA_DIR
  return std::string(UISCOPE_DATA_DIR) + "/vision/detector.onnx";
#else
  return "data/vision/detector.onnx";
#endif
}

LearnedDetector::LearnedDetector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LearnedDetector::~LearnedDetector() = default;

Result<std::unique_ptr<LearnedDetector>> LearnedDetector::Load(const LearnedOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.model_path.empty()) impl->options.model_path = DefaultModelPath();
  const std::string& path = impl->options.model_path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return MakeError(ErrorCode::kNotFound,
                     "no learned detector model at " + path +
                         " (scripts/train-vision makes one; UISCOPE_VISION_MODEL names another)");
  }
  try {
    impl->net = cv::dnn::readNetFromONNX(path);
    if (impl->net.empty())
      throw cv::Exception(0, "no layers", "readNetFromONNX", __FILE__, __LINE__);
    impl->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    impl->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    // One small forward pass proves the model runs and has our output shape.
    cv::Mat probe(kAlign * 2, kAlign * 2, CV_8UC3, cv::Scalar(200, 200, 200));
    cv::Mat out = impl->Forward(probe);
    if (out.dims != 4 || out.size[1] != static_cast<int>(kClasses.size()) + kBoxChannels ||
        out.size[2] != probe.rows / kStride || out.size[3] != probe.cols / kStride) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the learned detector model " + path + " has the wrong output shape (want " +
                           std::to_string(kClasses.size()) + " class maps and " +
                           std::to_string(kBoxChannels) + " box maps at 1/" +
                           std::to_string(kStride) + " of the input)");
    }
  } catch (const cv::Exception& e) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot read the learned detector model " + path + ": " + e.what());
  }
  return std::unique_ptr<LearnedDetector>(new LearnedDetector(std::move(impl)));
}

Result<std::vector<Element>> LearnedDetector::Detect(const Image& image, Point origin,
                                                     std::span<const Rect> masks) const {
  if (!image.Valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "the detector needs a non-empty RGB image, got " +
                                                      std::to_string(image.width) + "x" +
                                                      std::to_string(image.height));
  }
  // What the network and the bare-text check see: `image`, or a copy with
  // the masked pixels painted over.
  Image masked;
  const Image& visible = masks.empty() ? image : masked;
  std::vector<Element> out;
  try {
    if (!masks.empty()) masked = Masked(image, origin, masks);
    // Padded to multiples of kAlign by repeating the edge pixels.
    const int width = (image.width + kAlign - 1) / kAlign * kAlign;
    const int height = (image.height + kAlign - 1) / kAlign * kAlign;
    const cv::Mat view(image.height, image.width, CV_8UC3,
                       const_cast<uint8_t*>(visible.rgb.data()));
    cv::Mat rgb;
    cv::copyMakeBorder(view, rgb, 0, height - image.height, 0, width - image.width,
                       cv::BORDER_REPLICATE);
    const cv::Mat out_map = impl_->Forward(rgb);
    const int classes = static_cast<int>(kClasses.size());
    const int rows = out_map.size[2], cols = out_map.size[3];
    auto channel = [&](int c, int y) { return out_map.ptr<float>(0, c, y); };
    std::vector<Cell> cells;
    for (int y = 0; y < rows; ++y) {
      const float* background = channel(0, y);
      for (int x = 0; x < cols; ++x) {
        const float foreground = 1.0f - background[x];
        if (!(foreground >= kForeground)) continue;  // NaN too
        const float px = (x + 0.5f) * kStride, py = (y + 0.5f) * kStride;
        // Boxes kept within a frame of the image's size around it, so that
        // a wild distance (or an infinity) stays a number the grid can use.
        const auto clamp = [](float v, float side) {
          return std::isfinite(v) ? std::clamp(v, -side, 2 * side) : std::nanf("");
        };
        Cell cell{x,
                  y,
                  foreground,
                  clamp(px - channel(classes, y)[x], static_cast<float>(width)),
                  clamp(py - channel(classes + 1, y)[x], static_cast<float>(height)),
                  clamp(px + channel(classes + 2, y)[x], static_cast<float>(width)),
                  clamp(py + channel(classes + 3, y)[x], static_cast<float>(height))};
        if (!(cell.x1 > cell.x0 && cell.y1 > cell.y0)) continue;  // NaN too
        cells.push_back(cell);
      }
    }
    std::stable_sort(cells.begin(), cells.end(),
                     [](const Cell& a, const Cell& b) { return a.foreground > b.foreground; });
    // Where each cell is in `cells`, to look only near a box for the cells
    // whose boxes may overlap it: a box overlapping another at IoU >= 0.5
    // lies within that one grown by its own width and height on each side,
    // and a cell lies within its own box.
    std::vector<int> at(static_cast<size_t>(rows) * cols, -1);
    for (size_t i = 0; i < cells.size(); ++i) {
      at[static_cast<size_t>(cells[i].y) * cols + cells[i].x] = static_cast<int>(i);
    }
    std::vector<bool> taken(cells.size(), false);
    std::vector<size_t> members;
    std::vector<double> class_sum(static_cast<size_t>(classes));
    for (size_t i = 0; i < cells.size(); ++i) {
      if (taken[i]) continue;
      const Cell& seed = cells[i];
      const float w = seed.x1 - seed.x0, h = seed.y1 - seed.y0;
      const int gx0 = std::max(0, static_cast<int>((seed.x0 - w) / kStride));
      const int gy0 = std::max(0, static_cast<int>((seed.y0 - h) / kStride));
      const int gx1 = std::min(cols - 1, static_cast<int>((seed.x1 + w) / kStride));
      const int gy1 = std::min(rows - 1, static_cast<int>((seed.y1 + h) / kStride));
      members.clear();
      for (int y = gy0; y <= gy1; ++y) {
        for (int x = gx0; x <= gx1; ++x) {
          const int j = at[static_cast<size_t>(y) * cols + x];
          if (j < 0 || taken[j] || CellIoU(seed, cells[j]) < kClusterIoU) continue;
          taken[j] = true;
          members.push_back(static_cast<size_t>(j));
        }
      }
      if (static_cast<int>(members.size()) < kMinCells) continue;
      double weight = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
      std::fill(class_sum.begin(), class_sum.end(), 0.0);
      for (size_t j : members) {
        const Cell& m = cells[j];
        weight += m.foreground;
        x0 += m.foreground * m.x0;
        y0 += m.foreground * m.y0;
        x1 += m.foreground * m.x1;
        y1 += m.foreground * m.y1;
        for (int c = 1; c < classes; ++c) class_sum[c] += channel(c, m.y)[m.x];
      }
      const double box_w = (x1 - x0) / weight, box_h = (y1 - y0) / weight;
      const double core_cells =
          std::max(box_w * kCoreScale / kStride, 1.0) * std::max(box_h * kCoreScale / kStride, 1.0);
      if (static_cast<double>(members.size()) < kMinCoverage * core_cells) continue;
      const float confidence = static_cast<float>(weight / members.size());
      if (confidence < impl_->options.min_confidence) continue;
      const int best = static_cast<int>(std::max_element(class_sum.begin() + 1, class_sum.end()) -
                                        class_sum.begin());
      const int left = std::max(0, static_cast<int>(std::lround(x0 / weight)));
      const int top = std::max(0, static_cast<int>(std::lround(y0 / weight)));
      const int right = std::min(image.width, static_cast<int>(std::lround(x1 / weight)));
      const int bottom = std::min(image.height, static_cast<int>(std::lround(y1 / weight)));
      if (right <= left || bottom <= top) continue;
      Element e;
      e.bounds = Rect{left + origin.x, top + origin.y, right - left, bottom - top};
      e.role = kClasses[static_cast<size_t>(best)];
      e.confidence = confidence;
      out.push_back(std::move(e));
    }
  } catch (const cv::Exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("the learned detector failed: ") + e.what());
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Element& a, const Element& b) { return a.confidence > b.confidence; });
  std::vector<Element> kept;
  for (Element& e : out) {
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const Element& k) {
      return k.role == e.role && IoU(k.bounds, e.bounds) >= kSuppressIoU;
    });
    if (!seen) kept.push_back(std::move(e));
  }
  std::erase_if(kept, [&](const Element& e) {
    return e.confidence < kBareTextBelow && IsBareText(visible, e, origin);
  });
  out = std::move(kept);
  SortInReadingOrder(out);
  return out;
}

}  // namespace uiscope::vision
