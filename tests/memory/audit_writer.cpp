// Tests only: appends audit entries to DB as fast as it can and prints the
// id of each one after its commit returned ("<id> <marker>"), until killed
// or COUNT entries were written. The kill -9 test kills it mid-run and
// checks that every printed entry is in the database.
//   uiscope_audit_writer DB MARKER [COUNT]
#include <unistd.h>

#include <cstdio>
#include <string>

#include "memory/audit_log.h"
#include "memory/state_db.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DB MARKER [COUNT]\n", argv[0]);
    return 2;
  }
  const std::string marker = argv[2];
  const long count = argc > 3 ? std::stol(argv[3]) : -1;
  auto db = uiscope::memory::OpenStateDatabase(argv[1]);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.error().message.c_str());
    return 1;
  }
  uiscope::memory::AuditLog log(*db);
  std::printf("ready\n");
  std::fflush(stdout);
  for (long i = 0; count < 0 || i < count; ++i) {
    uiscope::safety::AuditEntry e;
    e.time_ms = 1'700'000'000'000 + i;
    e.pid = static_cast<int>(getpid());
    e.tool = "click";
    e.target = "btn_" + std::to_string(i);
    e.decision = "done";
    e.arguments = {{"id", e.target}, {"marker", marker}, {"i", i}};
    e.reason = std::string(200, 'x');  // bigger rows: more pages, more to tear
    auto id = log.Append(e);
    if (!id.ok()) {
      std::fprintf(stderr, "%s\n", id.error().message.c_str());
      return 1;
    }
    // Unbuffered write: what the test reads was committed before.
    const std::string line = std::to_string(*id) + " " + marker + " " + std::to_string(i) + "\n";
    if (::write(STDOUT_FILENO, line.data(), line.size()) < 0) return 1;
    // SQLite's locks are not fair: two writers in tight loops can starve one
    // of them past its busy timeout. Real writers (a server acting on a
    // desktop) pause between entries; so does this one, briefly.
    ::usleep(1000);
  }
  return 0;
}
