// How the CLI prints what the safety layer keeps, as lines for a person's
// terminal: a held confirmation, a grant, an audit entry.
//
// Targets, app names, arguments, reasons and errors are what an app or an
// agent wrote. Each goes through the one escaping printer (core/escape.h),
// so an entry is exactly its own lines: none can rewrite the entry above
// it, set the terminal's title or clipboard, or clear the screen. A person
// approves from these lines, so this is where a forged one would do harm.
//
// Pure functions of their arguments (the time and what the process table
// says are passed in), for `uiscope confirm`, `uiscope audit` and the
// display-text fuzzer. Safe from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "safety/audit.h"
#include "safety/confirmations.h"

namespace uiscope::cli {

// Two lines without the final newline:
// `tok  pending  click button "Save" btn_a in gedit  (expires in 30 s)`
// `    R4: 2 elements match`.
std::string DescribeConfirmation(const safety::Confirmation& c, int64_t now_ms);

// One line: `grant 3  gedit on :90  rule R7 for click  ... ends in 1800 s`.
std::string DescribeGrant(const safety::Grant& g, int64_t now_ms);

// The entry's line, then indented lines for its rule, its error and, while
// it is in flight, whether its writer (`writer_alive`) still performs it.
// `local_time`: the entry's time as printed. No final newline.
std::string AuditLine(const safety::AuditEntry& e, const std::string& local_time,
                      bool writer_alive);

}  // namespace uiscope::cli
