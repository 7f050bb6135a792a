#include "detector_flags.h"

#include <spdlog/spdlog.h>

namespace uiscope::cli {

CLI::Option* AddDetectorOption(CLI::App* cmd, std::string& kind) {
  return cmd
      ->add_option("--detector", kind,
                   "vision's element detector: classical (edges and shapes: the most precise), "
                   "learned (a small network trained on GTK 3, GTK 4, Qt 5, Tk and HTML windows, "
                   "data/vision/detector.onnx: finds the most in apps nobody tuned for, less "
                   "precisely), combined (classical, plus what the learned one finds elsewhere: "
                   "between the two), auto (learned, else classical with a warning); figures in "
                   "train/vision/README.md. Default: " +
                       std::string(vision::kDefaultDetector) +
                       " (the classical one alone, with a warning, when the model cannot be read)")
      ->check(CLI::IsMember({"classical", "learned", "combined", "auto"}));
}

Result<std::unique_ptr<vision::Detector>> CliDetector(const std::string& kind) {
  if (kind.empty()) return std::unique_ptr<vision::Detector>();
  vision::DetectorOptions options;
  options.kind = kind;
  std::string warning;
  auto created = vision::CreateDetector(options, &warning);
  if (!created.ok()) return created.error();
  if (!warning.empty()) spdlog::warn("{}", warning);
  return std::move(created).value();
}

}  // namespace uiscope::cli
