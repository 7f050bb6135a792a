// Launch marks: what uiscope leaves on every process it starts for an agent
// (app_launch, a session's desktop and what runs in it), and the question
// they answer: does a given process come from one of them? A decision on a
// held action counts as a person's only when it does not: an agent that
// can launch programs must not be able to run `uiscope confirm --approve`
// on its own held actions (tools/uiscope/confirm_command.cpp).
//
// Three marks, because a child can shed any one of them alone:
//  1. the environment: kLaunchedEnv in every process app_launch or a session
//     starts (SpawnInSession(), the session's helpers), inherited by all
//     they start. A child may clear it; the others remain.
//  2. a record in the state directory: one "pid start_time" line per process
//     app_launch started (LaunchRecordPath()). With the start time, a pid
//     the kernel later recycles is never taken for it.
//  3. the process tree: FindLaunchOrigin() walks from the process through
//     its parents (/proc/PID/stat) up to pid 1 and checks each against the
//     first two, against the process session (setsid) of a recorded
//     process, which a forked child keeps even once reparented to init, and
//     against the processes of every registered uiscope session
//     (ListSessionProcesses()).
// What still escapes: a descendant that forks twice, calls setsid() and
// clears its environment is reparented to init with no mark left; the
// default launch policy (safety/rules.h, R3) keeps the shells and inline
// interpreters that would do that out of app_launch.
//
// The records live beside the session registry (SessionStateDir()), so a
// process that points UISCOPE_STATE_DIR elsewhere reads other records and
// also another confirmation database.
//
// Safe to call from several processes at once (records are appended under
// an flock).
#pragma once

#include <optional>
#include <string>

#include "core/result.h"

namespace uiscope {

// Set in the environment of every process uiscope starts for an agent;
// never in what `session start` prints for a person's shell.
inline constexpr char kLaunchedEnv[] = "UISCOPE_LAUNCHED";

// SessionStateDir()/launched.
std::string LaunchRecordPath();

// Records `pid` (a process app_launch just started) with its start time.
// Records of processes gone are dropped now and then. OK if it already
// exited.
Status RecordLaunched(int pid);

struct LaunchOrigin {
  int pid = 0;      // the marked process: the one asked about or an ancestor
  std::string how;  // "app_launch started it", "it runs in session s3", ...
  // "pid 812 (xterm): app_launch started it".
  std::string Describe() const;
};

// The process uiscope started that `pid` is or descends from (see the
// marks above); nullopt when there is none.
std::optional<LaunchOrigin> FindLaunchOrigin(int pid);

}  // namespace uiscope
