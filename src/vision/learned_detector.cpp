#include "vision/learned_detector.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

namespace uiscope::vision {
namespace {

// The network's classes, in its output channel order (train/vision/model.py).
constexpr std::array<Role, 11> kClasses = {
    Role::kUnknown,     Role::kButton,   Role::kTextField, Role::kCheckBox,
    Role::kRadioButton, Role::kSlider,   Role::kComboBox,  Role::kSpinButton,
    Role::kTab,         Role::kListItem, Role::kMenuItem,
};
constexpr int kStride = 4;          // output cell size, in pixels
constexpr double kCoreScale = 0.5;  // core size / element size
constexpr int kAlign = 16;          // the input's sides must be multiples of this
// A cell belongs to a core when its foreground probability (1 - the
// background's) is at least this: lower, neighbouring cores run together
// (chosen on the generated windows held back from training, never on the
// held-out apps: recall 48 % at 0.6, 54 % at 0.7 for the shipped model).
constexpr float kForeground = 0.7f;

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
    if (out.dims != 4 || out.size[1] != static_cast<int>(kClasses.size()) ||
        out.size[2] != probe.rows / kStride || out.size[3] != probe.cols / kStride) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the learned detector model " + path + " has the wrong output shape (want " +
                           std::to_string(kClasses.size()) + " class maps at 1/" +
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
  std::vector<Element> out;
  try {
    // Padded to multiples of kAlign by repeating the edge pixels.
    const int width = (image.width + kAlign - 1) / kAlign * kAlign;
    const int height = (image.height + kAlign - 1) / kAlign * kAlign;
    const cv::Mat view(image.height, image.width, CV_8UC3, const_cast<uint8_t*>(image.rgb.data()));
    cv::Mat rgb;
    cv::copyMakeBorder(view, rgb, 0, height - image.height, 0, width - image.width,
                       cv::BORDER_REPLICATE);
    for (const Rect& m : masks) {
      const cv::Rect r = cv::Rect(m.x - origin.x, m.y - origin.y, m.w, m.h) &
                         cv::Rect(0, 0, image.width, image.height);
      if (r.area() <= 0) continue;
      rgb(r).setTo(RingColour(rgb, r));
    }
    const cv::Mat prob = impl_->Forward(rgb);
    const int classes = prob.size[1], rows = prob.size[2], cols = prob.size[3];
    // Foreground: 1 - the background's probability.
    cv::Mat foreground;
    cv::subtract(cv::Scalar(1.0),
                 cv::Mat(rows, cols, CV_32FC1, const_cast<float*>(prob.ptr<float>(0, 0))),
                 foreground);
    cv::Mat core = foreground >= kForeground;
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(core, labels, stats, centroids, 4, CV_32S);
    // Per region: its summed foreground and per-class probability.
    std::vector<double> fg_sum(static_cast<size_t>(n), 0.0);
    std::vector<double> class_sum(static_cast<size_t>(n) * classes, 0.0);
    for (int y = 0; y < rows; ++y) {
      const int* l = labels.ptr<int>(y);
      const float* f = foreground.ptr<float>(y);
      for (int x = 0; x < cols; ++x) {
        if (l[x] <= 0) continue;
        fg_sum[l[x]] += f[x];
        for (int c = 1; c < classes; ++c) {
          class_sum[static_cast<size_t>(l[x]) * classes + c] += prob.ptr<float>(0, c, y)[x];
        }
      }
    }
    for (int i = 1; i < n; ++i) {
      const int area = stats.at<int>(i, cv::CC_STAT_AREA);
      const float confidence = static_cast<float>(fg_sum[i] / area);
      if (confidence < impl_->options.min_confidence) continue;
      int best = 1;
      for (int c = 2; c < classes; ++c) {
        if (class_sum[static_cast<size_t>(i) * classes + c] >
            class_sum[static_cast<size_t>(i) * classes + best]) {
          best = c;
        }
      }
      const double cx =
          (stats.at<int>(i, cv::CC_STAT_LEFT) + stats.at<int>(i, cv::CC_STAT_WIDTH) / 2.0) *
          kStride;
      const double cy =
          (stats.at<int>(i, cv::CC_STAT_TOP) + stats.at<int>(i, cv::CC_STAT_HEIGHT) / 2.0) *
          kStride;
      // Training rounds a core out to whole cells, a cell more than its size
      // on average (train/vision/train.py, core_map): that cell is taken off
      // before growing it back.
      const double w =
          std::max(stats.at<int>(i, cv::CC_STAT_WIDTH) - 1.0, 0.5) * kStride / kCoreScale;
      const double h =
          std::max(stats.at<int>(i, cv::CC_STAT_HEIGHT) - 1.0, 0.5) * kStride / kCoreScale;
      const int x0 = std::max(0, static_cast<int>(std::lround(cx - w / 2)));
      const int y0 = std::max(0, static_cast<int>(std::lround(cy - h / 2)));
      const int x1 = std::min(image.width, static_cast<int>(std::lround(cx + w / 2)));
      const int y1 = std::min(image.height, static_cast<int>(std::lround(cy + h / 2)));
      if (x1 <= x0 || y1 <= y0) continue;
      Element e;
      e.bounds = Rect{x0 + origin.x, y0 + origin.y, x1 - x0, y1 - y0};
      e.role = kClasses[static_cast<size_t>(best)];
      e.confidence = confidence;
      out.push_back(std::move(e));
    }
  } catch (const cv::Exception& e) {
    return MakeError(ErrorCode::kInternal, std::string("the learned detector failed: ") + e.what());
  }
  std::sort(out.begin(), out.end(), [](const Element& a, const Element& b) {
    return a.bounds.y != b.bounds.y ? a.bounds.y < b.bounds.y : a.bounds.x < b.bounds.x;
  });
  return out;
}

}  // namespace uiscope::vision
