#include "ocr/ocr_cache.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

namespace uiscope::ocr {

OcrCache::OcrCache(OcrCacheOptions options) : options_(options) {}

template <typename V>
const V* OcrCache::Get(Lru<V>& lru, uint64_t key) {
  auto it = lru.index.find(key);
  if (it == lru.index.end()) return nullptr;
  lru.order.splice(lru.order.begin(), lru.order, it->second);
  return &it->second->second;
}

template <typename V>
void OcrCache::Put(Lru<V>& lru, uint64_t key, V value, size_t max) {
  if (max == 0) return;
  if (auto it = lru.index.find(key); it != lru.index.end()) {
    it->second->second = std::move(value);
    lru.order.splice(lru.order.begin(), lru.order, it->second);
    return;
  }
  lru.order.emplace_front(key, std::move(value));
  lru.index[key] = lru.order.begin();
  while (lru.order.size() > max) {
    lru.index.erase(lru.order.back().first);
    lru.order.pop_back();
  }
}

std::optional<std::vector<OcrWord>> OcrCache::FindRegion(uint64_t key) {
  std::lock_guard lock(mutex_);
  const auto* words = Get(regions_, key);
  if (!words) {
    ++stats_.region_misses;
    return std::nullopt;
  }
  ++stats_.region_hits;
  return *words;
}

void OcrCache::PutRegion(uint64_t key, std::vector<OcrWord> words) {
  std::lock_guard lock(mutex_);
  dirty_ = true;
  Put(regions_, key, std::move(words), options_.max_regions);
}

std::optional<OcrResult> OcrCache::FindFrame(uint64_t key) {
  std::lock_guard lock(mutex_);
  const auto* result = Get(frames_, key);
  if (!result) {
    ++stats_.frame_misses;
    return std::nullopt;
  }
  ++stats_.frame_hits;
  return *result;
}

void OcrCache::PutFrame(uint64_t key, OcrResult result) {
  std::lock_guard lock(mutex_);
  Put(frames_, key, std::move(result), options_.max_frames);
}

void OcrCache::Clear() {
  std::lock_guard lock(mutex_);
  regions_ = {};
  frames_ = {};
}

namespace {

// The file: kMagic, the recognizer's identity, the regions (most recent
// first), then the XXH64 of everything before it.
constexpr char kMagic[] = "uiscope ocr regions 1\n";
// Bounds a damaged file cannot make us exceed.
constexpr uint32_t kMaxFileRegions = 1u << 20;
constexpr uint32_t kMaxWords = 4096;
constexpr uint32_t kMaxText = 1u << 16;

template <typename T>
void Append(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void AppendText(std::string& out, const std::string& text) {
  Append<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out += text;
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  template <typename T>
  bool Get(T& v) {
    if (data_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, data_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool GetText(std::string& text, uint32_t max) {
    uint32_t n = 0;
    if (!Get(n) || n > max || data_.size() - pos_ < n) return false;
    text.assign(data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace

Status OcrCache::SaveRegions(const std::string& path, const std::string& identity,
                             size_t max) const {
  std::string out(kMagic);
  AppendText(out, identity);
  {
    std::lock_guard lock(mutex_);
    const uint32_t count = static_cast<uint32_t>(std::min(max, regions_.order.size()));
    Append<uint32_t>(out, count);
    auto it = regions_.order.begin();
    for (uint32_t i = 0; i < count; ++i, ++it) {
      Append<uint64_t>(out, it->first);
      Append<uint32_t>(out, static_cast<uint32_t>(it->second.size()));
      for (const OcrWord& w : it->second) {
        AppendText(out, w.text);
        for (int32_t v : {w.bounds.x, w.bounds.y, w.bounds.w, w.bounds.h}) Append<int32_t>(out, v);
        Append<float>(out, w.confidence);
      }
    }
    dirty_ = false;
  }
  Append<uint64_t>(out, XXH64(out.data(), out.size(), 0));
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot write the OCR cache " + tmp + ": " + std::strerror(errno));
  }
  size_t written = 0;
  while (written < out.size()) {
    const ssize_t n = ::write(fd, out.data() + written, out.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  if (written != out.size() || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kUnavailable, "cannot write the OCR cache " + path);
  }
  return OkStatus();
}

void OcrCache::LoadRegions(const std::string& path, const std::string& identity) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t magic = sizeof kMagic - 1;
  if (data.size() < magic + sizeof(uint64_t) || data.compare(0, magic, kMagic) != 0) return;
  const size_t body = data.size() - sizeof(uint64_t);
  uint64_t sum = 0;
  std::memcpy(&sum, data.data() + body, sizeof sum);
  if (XXH64(data.data(), body, 0) != sum) return;
  Reader r(std::string_view(data).substr(magic, body - magic));
  std::string file_identity;
  uint32_t count = 0;
  if (!r.GetText(file_identity, kMaxText) || file_identity != identity || !r.Get(count) ||
      count > kMaxFileRegions) {
    return;
  }
  std::vector<std::pair<uint64_t, std::vector<OcrWord>>> loaded;
  loaded.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t key = 0;
    uint32_t n = 0;
    if (!r.Get(key) || !r.Get(n) || n > kMaxWords) return;
    std::vector<OcrWord> words(n);
    for (OcrWord& w : words) {
      if (!r.GetText(w.text, kMaxText) || !r.Get(w.bounds.x) || !r.Get(w.bounds.y) ||
          !r.Get(w.bounds.w) || !r.Get(w.bounds.h) || !r.Get(w.confidence)) {
        return;
      }
    }
    loaded.emplace_back(key, std::move(words));
  }
  if (!r.done()) return;
  std::lock_guard lock(mutex_);
  // Least recent: what this process read already stays ahead of them.
  for (auto& [key, words] : loaded) {
    if (regions_.order.size() >= options_.max_regions) break;
    if (regions_.index.count(key)) continue;
    regions_.order.emplace_back(key, std::move(words));
    regions_.index[key] = std::prev(regions_.order.end());
  }
}

bool OcrCache::dirty() const {
  std::lock_guard lock(mutex_);
  return dirty_;
}

OcrCache::Stats OcrCache::stats() const {
  std::lock_guard lock(mutex_);
  Stats s = stats_;
  s.regions = regions_.order.size();
  s.frames = frames_.order.size();
  return s;
}

namespace {

struct StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
using HashState = std::unique_ptr<XXH3_state_t, StateDeleter>;

template <typename T>
void Feed(XXH3_state_t* state, const T& value) {
  XXH3_64bits_update(state, &value, sizeof(value));
}

}  // namespace

uint64_t HashRegion(const GrayImage& image, const Rect& rect, uint64_t seed) {
  const Rect r = ClampToFrame(rect, image.width, image.height);
  const uint64_t size[2] = {static_cast<uint64_t>(r.w), static_cast<uint64_t>(r.h)};
  uint64_t h = XXH3_64bits_withSeed(size, sizeof(size), seed);
  if (r.Empty()) return h;
  // Rows of a line region are short; hashing them into one buffer-sized
  // stream costs less than one call per row.
  HashState state(XXH3_createState());
  XXH3_64bits_reset_withSeed(state.get(), h);
  for (int y = r.y; y < r.Bottom(); ++y) {
    XXH3_64bits_update(state.get(), image.Row(y) + r.x, static_cast<size_t>(r.w));
  }
  return XXH3_64bits_digest(state.get());
}

uint64_t HashImageMasked(const Image& image, std::span<const Rect> masks, uint64_t seed) {
  HashState state(XXH3_createState());
  XXH3_64bits_reset_withSeed(state.get(), seed);
  Feed(state.get(), image.width);
  Feed(state.get(), image.height);
  std::vector<Rect> clipped;
  for (const Rect& m : masks) {
    Rect c = ClampToFrame(m, image.width, image.height);
    if (c.Empty()) continue;
    clipped.push_back(c);
    Feed(state.get(), c.x);
    Feed(state.get(), c.y);
    Feed(state.get(), c.w);
    Feed(state.get(), c.h);
  }
  const size_t stride = static_cast<size_t>(image.width) * 3;
  if (clipped.empty()) {
    XXH3_64bits_update(state.get(), image.rgb.data(), stride * image.height);
    return XXH3_64bits_digest(state.get());
  }
  std::vector<std::pair<int, int>> spans;
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.rgb.data() + stride * y;
    spans.clear();
    for (const Rect& m : clipped) {
      if (y >= m.y && y < m.Bottom()) spans.emplace_back(m.x, m.Right());
    }
    std::sort(spans.begin(), spans.end());
    int x = 0;
    for (const auto& [from, to] : spans) {
      if (from > x) XXH3_64bits_update(state.get(), row + x * 3, static_cast<size_t>(from - x) * 3);
      x = std::max(x, to);
    }
    if (x < image.width) {
      XXH3_64bits_update(state.get(), row + x * 3, static_cast<size_t>(image.width - x) * 3);
    }
  }
  return XXH3_64bits_digest(state.get());
}

}  // namespace uiscope::ocr
