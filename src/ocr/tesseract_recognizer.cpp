// The Tesseract pool behind Recognizer (recognizer.h).
#include <dlfcn.h>
#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "ocr/recognizer.h"

namespace uiscope::ocr {
namespace {

namespace fs = std::filesystem;

struct TessDeleter {
  void operator()(tesseract::TessBaseAPI* api) const {
    api->End();
    delete api;
  }
};
using TessPtr = std::unique_ptr<tesseract::TessBaseAPI, TessDeleter>;
using TessText = std::unique_ptr<char[]>;  // GetUTF8Text returns new[]

// Resolution announced to Tesseract. Line crops are scaled so that glyphs are
// about 30 pixels tall, the size of 10-12 pt print at 300 dpi, which is what
// its heuristics (minimum blob sizes, noise limits) are tuned for.
constexpr int kSourceDpi = 300;

// Tesseract's LSTM layers run OpenMP teams ("#pragma omp parallel
// num_threads(N)") when the library is built with OpenMP, as Debian's is.
// The pool already keeps every core busy with one line per worker; nested
// teams on top oversubscribe the cores and make each line 6-10x slower.
// OMP_THREAD_LIMIT=1 would stop them, but libgomp reads its environment once,
// when it is loaded with libtesseract, before main(): setting it from here is
// too late. The num_threads clause overrides omp_set_num_threads, so the
// per-thread switch that works is max-active-levels = 0 (a per-thread ICV in
// libgomp since GCC 11): every parallel region on this thread then runs as a
// team of one. The symbols are looked up, not linked, so a Tesseract built
// without OpenMP needs nothing.
void RunOpenMpSerially() {
  using SetInt = void (*)(int);
  if (auto set_levels =
          reinterpret_cast<SetInt>(dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"))) {
    set_levels(0);
  }
  if (auto set_threads = reinterpret_cast<SetInt>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) {
    set_threads(1);
  }
}

std::optional<fs::path> FindTessdata(const std::string& configured) {
  std::vector<fs::path> candidates;
  if (!configured.empty()) {
    candidates = {configured, fs::path(configured) / "tessdata"};
  } else {
    if (const char* prefix = std::getenv("TESSDATA_PREFIX"); prefix && *prefix) {
      candidates.emplace_back(prefix);
      candidates.push_back(fs::path(prefix) / "tessdata");
    }
    for (const char* dir :
         {"/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
          "/usr/share/tessdata", "/usr/local/share/tessdata",
          "/usr/local/share/tesseract-ocr/tessdata"}) {
      candidates.emplace_back(dir);
    }
  }
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".traineddata") return dir;
    }
  }
  return std::nullopt;
}

std::vector<std::string> ListLanguages(const fs::path& dir) {
  std::vector<std::string> langs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".traineddata") continue;
    std::string stem = entry.path().stem().string();
    // Orientation/script detection and the legacy equation model are data
    // files, not languages text can be read in.
    if (stem == "osd" || stem == "equ") continue;
    langs.push_back(std::move(stem));
  }
  std::sort(langs.begin(), langs.end());
  return langs;
}

class TesseractRecognizer final : public Recognizer {
 public:
  TesseractRecognizer(fs::path tessdata, std::vector<std::string> languages, int workers)
      : tessdata_(std::move(tessdata)), languages_(std::move(languages)) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { WorkerLoop(); });
  }

  ~TesseractRecognizer() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  std::vector<std::string> Languages() const override { return languages_; }
  std::string Identity() const override {
    std::string id = std::string("tesseract ") + tesseract::TessBaseAPI::Version() + " " +
                     tessdata_.string();
    // The trained data's size and time: an updated model reads differently.
    for (const std::string& lang : languages_) {
      std::error_code ec;
      const fs::path file = tessdata_ / (lang + ".traineddata");
      const auto size = fs::file_size(file, ec);
      const auto time = fs::last_write_time(file, ec);
      id += " " + lang + ":" + std::to_string(ec ? 0 : size) + ":" +
            std::to_string(ec ? 0 : time.time_since_epoch().count());
    }
    return id;
  }

  Result<std::vector<std::vector<RecognizedWord>>> Recognize(std::span<const LineImage> lines,
                                                             const std::string& lang) override {
    if (auto st = CheckLanguage(lang, languages_); !st.ok()) return st.error();
    std::vector<std::vector<RecognizedWord>> out(lines.size());
    if (lines.empty()) return out;
    Batch batch;
    batch.lines = lines;
    batch.lang = lang;
    batch.out = &out;
    batch.remaining = lines.size();
    // Longest lines first, so that the last one to finish is a short one and
    // the workers end together.
    std::vector<size_t> order(lines.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return lines[a].pixels.size() > lines[b].pixels.size();
    });
    {
      std::lock_guard lock(mutex_);
      for (size_t i : order) queue_.push_back({&batch, i});
    }
    wake_.notify_all();
    std::unique_lock lock(batch.mutex);
    batch.done.wait(lock, [&] { return batch.remaining == 0; });
    if (batch.error) return *batch.error;
    return out;
  }

 private:
  struct Batch {
    std::span<const LineImage> lines;
    std::string lang;
    std::vector<std::vector<RecognizedWord>>* out = nullptr;
    std::mutex mutex;
    std::condition_variable done;
    size_t remaining = 0;
    std::optional<Error> error;
  };
  struct Job {
    Batch* batch;
    size_t index;
  };

  void WorkerLoop() {
    RunOpenMpSerially();
    std::map<std::string, TessPtr> apis;  // this worker's engines, by language
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping
        job = queue_.front();
        queue_.pop_front();
      }
      Batch& b = *job.batch;
      std::vector<RecognizedWord> words;
      std::optional<Error> error;
      auto api = Engine(apis, b.lang);
      if (api.ok()) {
        words = ReadLine(**api, b.lines[job.index]);
      } else {
        error = api.error();
      }
      std::lock_guard lock(b.mutex);
      (*b.out)[job.index] = std::move(words);
      if (error && !b.error) b.error = std::move(error);
      if (--b.remaining == 0) b.done.notify_all();
    }
  }

  Result<tesseract::TessBaseAPI*> Engine(std::map<std::string, TessPtr>& apis,
                                         const std::string& lang) {
    if (auto it = apis.find(lang); it != apis.end()) return it->second.get();
    TessPtr api(new tesseract::TessBaseAPI());
    if (api->Init(tessdata_.c_str(), lang.c_str(), tesseract::OEM_LSTM_ONLY) != 0) {
      return MakeError(ErrorCode::kUnavailable, "Tesseract could not load the \"" + lang +
                                                    "\" language data from " + tessdata_.string() +
                                                    "; reinstall tesseract-ocr-" + lang);
    }
    // uiscope inverts light-on-dark lines itself; Tesseract's retry of every
    // low-confidence line inverted would double the cost of hard lines.
    api->SetVariable("tessedit_do_invert", "0");
    // Warnings such as "Empty page!!" go nowhere: a line without text is an
    // ordinary answer here.
    api->SetVariable("debug_file", "/dev/null");
    api->SetPageSegMode(tesseract::PSM_SINGLE_LINE);
    tesseract::TessBaseAPI* raw = api.get();
    apis.emplace(lang, std::move(api));
    return raw;
  }

  static std::vector<RecognizedWord> ReadLine(tesseract::TessBaseAPI& api, const LineImage& line) {
    std::vector<RecognizedWord> words;
    if (line.width <= 0 || line.height <= 0) return words;
    // Tesseract thresholds only to find the line's blobs and word gaps; the
    // LSTM reads the grey pixels. Sauvola (local thresholds, so text on a
    // gradient or a coloured bar separates from its own background) costs
    // about a sixth of a line's recognition time on a terminal line
    // (bench/ocr); on a flat background Otsu's global threshold finds the
    // same blobs, so Sauvola runs only where the background varies.
    api.SetVariable("thresholding_method", line.flat_background ? "0" : "2");
    api.SetImage(line.pixels.data(), line.width, line.height, 1, line.width);
    api.SetSourceResolution(kSourceDpi);
    if (api.Recognize(nullptr) == 0) {
      std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
      if (it) {
        do {
          TessText text(it->GetUTF8Text(tesseract::RIL_WORD));
          if (!text || text[0] == '\0') continue;
          int left = 0, top = 0, right = 0, bottom = 0;
          it->BoundingBox(tesseract::RIL_WORD, &left, &top, &right, &bottom);
          words.push_back({std::string(text.get()), Rect{left, top, right - left, bottom - top},
                           it->Confidence(tesseract::RIL_WORD) / 100.0f});
        } while (it->Next(tesseract::RIL_WORD));
      }
    }
    api.Clear();
    return words;
  }

  const fs::path tessdata_;
  const std::vector<std::string> languages_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

Status CheckLanguage(const std::string& lang, const std::vector<std::string>& installed) {
  std::string names;
  for (const auto& l : installed) names += (names.empty() ? "" : ", ") + l;
  if (lang.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "no OCR language given; installed languages: " + names);
  }
  size_t start = 0;
  while (start <= lang.size()) {
    size_t plus = lang.find('+', start);
    if (plus == std::string::npos) plus = lang.size();
    std::string part = lang.substr(start, plus - start);
    if (std::find(installed.begin(), installed.end(), part) == installed.end()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "OCR language \"" + part +
                           "\" is not installed; installed languages: " + names +
                           " (add one with `apt-get install tesseract-ocr-LANG`, e.g. "
                           "tesseract-ocr-deu; join several with '+': \"eng+deu\")");
    }
    start = plus + 1;
  }
  return OkStatus();
}

namespace {

struct Tessdata {
  fs::path dir;
  std::vector<std::string> languages;
};

Result<Tessdata> LocateTessdata(const std::string& configured) {
  auto dir = FindTessdata(configured);
  if (!dir) {
    return MakeError(
        ErrorCode::kUnavailable,
        configured.empty()
            ? std::string("no Tesseract language data found (looked in "
                          "$TESSDATA_PREFIX and /usr/share/tesseract-ocr/*/tessdata); "
                          "install tesseract-ocr-eng")
            : "no *.traineddata in " + configured + "; point it at a tessdata directory");
  }
  auto languages = ListLanguages(*dir);
  if (languages.empty()) {
    return MakeError(ErrorCode::kUnavailable, "the Tesseract data directory " + dir->string() +
                                                  " holds no language; install tesseract-ocr-eng");
  }
  return Tessdata{std::move(*dir), std::move(languages)};
}

}  // namespace

Result<std::vector<std::string>> InstalledLanguages(const std::string& tessdata_dir) {
  auto data = LocateTessdata(tessdata_dir);
  if (!data.ok()) return data.error();
  return std::move(data->languages);
}

Result<std::unique_ptr<Recognizer>> CreateTesseractRecognizer(const TesseractOptions& options) {
  auto data = LocateTessdata(options.tessdata_dir);
  if (!data.ok()) return data.error();
  const int workers = options.workers > 0
                          ? options.workers
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::unique_ptr<Recognizer>(
      new TesseractRecognizer(std::move(data->dir), std::move(data->languages), workers));
}

}  // namespace uiscope::ocr
