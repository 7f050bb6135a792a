// Learner: what uiscope learns about each application as it works (DESIGN
// §5.6, seed 002 §4-§5), between the observations and actions of the
// engine and the learned memory (core/learned_targets.h for the rules,
// memory/target_store.h for the store).
//
// One hook each: Perceive calls Learn on every observation (passive
// learning, then memory's targets merged into the snapshot after
// accessibility and vision), PerformAction calls RecordAction after every
// verified action (active learning), `teach` calls Teach. Applications on
// the deny list never reach it (the Observer hides them) and are refused
// again here; password fields are never stored (SeenTargetsOf).
//
// Errors of the store never fail an observation or an action: they become
// a warning.
//
// Not thread-safe: call under the workspace lease.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/learned_targets.h"
#include "core/node.h"
#include "core/result.h"
#include "image/image.h"
#include "platform/capture.h"

namespace uiscope {

// The pixels of a screen region, for fingerprints; empty (no function) where
// there is no screen (a fake desktop).
using RegionCapture = std::function<Result<Image>(const Rect& screen_region)>;

// Regions of `capture`'s screen; `capture` must outlive the function.
RegionCapture RegionsOf(ScreenCapture& capture);

struct LearnStats {
  int windows = 0;
  LearnCounts counts;
  int merged = 0;  // memory's nodes added to the snapshot
  double ms = 0;   // the time Learn took
};

class Learner {
 public:
  // `learns`: whether an application is learned about (the configuration's
  // "memory" key and the deny list, safety/policy_config.h); empty = all.
  Learner(std::shared_ptr<LearnedStore> store,
          std::function<bool(const std::string& app)> learns = {});

  // Whether `app` is learned about.
  bool Learns(const std::string& app) const;

  // Passive learning on `snapshot`, then memory's nodes added under their
  // windows: re-found in the pixels (source learned) or reliable and not
  // seen (source learned, stale).
  LearnStats Learn(Snapshot& snapshot, const RegionCapture& capture,
                   std::vector<std::string>& warnings);

  // Active learning after an action on `target` (as resolved: its window
  // and app are looked up in `roots`, the observation it was resolved in)
  // with verification effect `effect` ("observed": a hit; "none": a miss;
  // anything else: nothing learned).
  void RecordAction(const Node& target, const std::vector<Node>& roots, std::string_view effect,
                    std::vector<std::string>& warnings);

  // Teaches `label` at `bounds` (screen pixels) in the window of `roots`
  // under the bounds' centre (the active one, else the smallest, when
  // windows overlap). NotFound when no window is there, Denied for an app
  // not learned about.
  struct Taught {
    LearnedTarget target;
    AppSignature signature;
    std::string window_id;
  };
  Result<Taught> Teach(const std::vector<Node>& roots, std::string_view label, const Rect& bounds,
                       Role role, const RegionCapture& capture);

  // How often an action on element `id` had its effect, as far as the
  // targets of the windows Learn or RecordAction last saw go (0 when not
  // known): find ranks by it (FindQuery::learned_hits).
  int Hits(const std::string& id) const {
    auto it = hits_.find(id);
    return it == hits_.end() ? 0 : it->second;
  }

  // Every element Hits knows of, with its hits: a copy to rank by after
  // the lease is released (the learner is not thread-safe).
  const std::unordered_map<std::string, int>& AllHits() const { return hits_; }

  // The signature whose learned targets hold ID `id` (nullopt when none
  // does): where a learned target that is not shown now belongs.
  Result<std::optional<AppSignature>> Holding(const std::string& id) const {
    return store_->Holding(id);
  }

  // The signature of `window` under application node `app`.
  static AppSignature SignatureOf(const Node& app, const Node& window);

 private:
  std::shared_ptr<LearnedStore> store_;
  std::function<bool(const std::string&)> learns_;
  std::unordered_map<std::string, int> hits_;
};

}  // namespace uiscope
