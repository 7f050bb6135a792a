// The safety rules of DESIGN §8 (seed 001's R3-R6, seed 002's deny list), as
// pure functions of plain data: a PlannedAction and the policy in, a verdict
// out. PolicyGate (policy_gate.h) applies them in order; they are unit-tested
// here without a desktop.
//
// Each Check* returns nullopt when the rule has nothing to say, else the
// decision it forces (rule, verdict, and a reason that says what happened
// and what to do). A kNeedsConfirmation decision carries no token yet: the
// gate issues it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/node.h"
#include "engine/action_gate.h"

namespace uiscope::safety {

// --- names and commands -------------------------------------------------------

// True when `name` matches `pattern`: case-insensitive, "*" any run of
// characters, "?" one character; otherwise the whole name must match. Like
// the names people give apps (core/app_name.h: `--app inkscape` names
// "org.inkscape.Inkscape"), a pattern without a dot also matches the last
// part of a reverse-DNS name, so a deny list never misses an app that the
// same word would select.
bool AppPatternMatches(std::string_view pattern, std::string_view name);
// The first pattern of `patterns` that `name` matches, or nullopt.
std::optional<std::string> MatchingPattern(const std::vector<std::string>& patterns,
                                           std::string_view name);

// The program of a command line: its first word, with shell quotes removed
// ("'/opt/My App/app' --x" -> "/opt/My App/app"); "" for an empty command.
std::string ProgramOf(std::string_view command);
// The base name of a program path ("/usr/bin/gedit" -> "gedit").
std::string BaseName(std::string_view program);

// `role "name" id` of a node, for reasons and the audit log.
std::string DescribeNode(const Node& node);

// --- rules -----------------------------------------------------------------------

// Deny list: the action touches an application on `deny_apps` — its target's
// or a candidate's app, `action.app`, for app_launch the program's base
// name — or its input would reach a hidden window (`hidden_window`, set
// whatever the list: the observers hide what the list names). Verdict
// kDeny, rule "deny_list".
std::optional<GateDecision> CheckDenyList(const PlannedAction& action,
                                          const std::vector<std::string>& deny_apps);

// R3: app_launch of a program that is not on `launch_allow` (when set), or
// of a command line that runs commands of its own (CommandRunnersIn) that
// launch_allow does not name, whether it is set or not: app_launch starts
// applications. Verdict kDeny, rule "R3".
std::optional<GateDecision> CheckLaunchAllowList(
    const PlannedAction& action, const std::optional<std::vector<std::string>>& launch_allow);

// The words of `command` (quotes taken off) that run commands of their own,
// as written: uiscope itself, a shell (sh, bash, dash, zsh, ..., in any form:
// `env ... sh` too), an interpreter given inline code (python3 -c, perl -e,
// node -e, ...; awk always). Matched by base name anywhere in the command
// line, so wrappers (env, setsid, a terminal's -e) and absolute paths do
// not hide them.
std::vector<std::string> CommandRunnersIn(std::string_view command);

// R6: the action names an element ID that a fresh observation does not have
// (`target` empty), or one that is gone (defunct). Verdict kDeny, rule "R6";
// the reason says to observe again.
std::optional<GateDecision> CheckKnownTarget(const PlannedAction& action);

// R5: a point outside the screen (`frame`), or, when the target's window is
// known, outside that window. Verdict kDrop, rule "R5". An unknown screen
// size (0 x 0) with points to check drops too: nothing is sent blind.
std::optional<GateDecision> CheckPoints(const PlannedAction& action);

// R4: the target was named by a label that several elements match. Verdict
// kNeedsConfirmation, rule "R4"; the reason lists the candidates (at most
// `max_listed`) and says which one the action will use.
std::optional<GateDecision> CheckAmbiguous(const PlannedAction& action, size_t max_listed = 10);

// The tool is on `confirm_tools` ("plan" names every step of a plan), rule
// "confirm_tools"; or the action is a plan step marked requireConfirmation,
// rule "plan". Verdict kNeedsConfirmation.
std::optional<GateDecision> CheckConfirmTools(const PlannedAction& action,
                                              const std::vector<std::string>& confirm_tools);

// True when the action types or sets text into a password or secured field:
// `action.sensitive`, or a target (or candidate) with the password state.
bool IsSensitive(const PlannedAction& action);

}  // namespace uiscope::safety
