// How a running DVM is found without ambiguity (DESIGN.md, "PMIx"): the master publishes a small
// file per DVM in a per-user directory, and tools (prun, pterm) choose among the live ones.
//
//   ${TMPDIR:-/tmp}/prte.<uid>/dvm.<pid>      mode 0600 in a 0700 directory, written atomically
//       uri=<PMIx server URI>
//       pid=<master pid>
//       nspace=<DVM namespace>
//       host=<master host>
//       started=<epoch seconds>
//       system=1                  (prte --system-server only)
//
// A file whose process is gone (a crashed prte, a killed DVM) is stale: list() deletes it, so a
// dead DVM never makes later tools fail or choose wrongly. A pid reused by a process that started
// after the file was written is recognised too (Linux /proc start times).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace prte::runtime::dvm_registry {

struct Entry {
    std::string uri;
    pid_t pid = 0;          // 0 when unknown (a bare --dvm-uri)
    std::string nspace;     // empty when unknown
    std::string host;
    int64_t started = 0;    // epoch seconds; 0 when unknown
    std::string file;       // the registry file it came from; empty for a bare URI
    std::string log;        // where the DVM writes its messages (prte --log-file); empty: none known
    std::string daemon_logs;  // its daemons' own files (prte --debug-daemons-file), as a glob; empty: none
    bool system_server = false;  // started with prte --system-server (the line system=1)
};

// The per-user directory: ${TMPDIR:-/tmp}/prte.<uid>.
std::string directory();

// Called by the master once its PMIx server accepts tools; writes dvm.<getpid()>. Creates the
// directory (0700) if needed and refuses one owned by another user.
Status publish(const std::string& uri, const std::string& dvm_nspace, const std::string& log = {},
               const std::string& daemon_logs = {}, bool system_server = false);

// The master's last word to the pterm that stopped it, when its daemons did not all exit in time
// (which ones, and what it did about them): dvm.<pid>.teardown beside the registry file, written
// just before it exits. Notes nobody read are swept after an hour by the next publish().
Status write_teardown_note(const std::string& text);

// The note of DVM `pid`, removed as it is read; empty when there is none.
std::string take_teardown_note(pid_t pid);

// Removes the file publish() wrote (no-op if none). Safe to call more than once.
void unpublish();

// The live DVMs of this user, oldest first. Stale files (pid gone, or the pid now belongs to a
// process started after the file was written) are deleted on the way.
std::vector<Entry> list();

// Parses a registry file's text; "file" names it in messages.
Status parse(const std::string& text, const std::string& file, Entry& out);

// What the user asked for on the command line.
struct Selector {
    std::string dvm_uri;  // --dvm-uri: a URI, or file:<path> holding one
    std::string dvm;      // --dvm: pid:<n>, file:<path>, uri:<uri>, ns:<nspace>, search, system, system-first
};

// Resolves the selector to one DVM. With neither option: the single live DVM of this user.
// Errors are one line (an ambiguity error is followed by one line per DVM found).
Status locate(const Selector& selector, Entry& out);

// One line describing an entry for listings: "pid 1234 on node01, started 2024-05-01 10:00:00, uri ...".
std::string describe(const Entry& entry);

// True while `pid` is a running process of this node (one that has exited but not yet been
// reaped by its parent counts as gone).
bool process_alive(pid_t pid);

// Removes the per-user directory if nothing is left in it (rmdir: never anything in it). A DVM or
// daemon starting meanwhile retries making its session directory there (Runtime::init).
void remove_directory_if_empty();

// When process `pid` of this node started (epoch seconds), or -1 when unknown.
int64_t process_started(pid_t pid);

// True while the process `pid` that started at `started` (process_started, epoch seconds; -1:
// unknown) is running: false once it has exited, or when its pid now belongs to a later process.
bool still_running(pid_t pid, int64_t started);

// The namespace part of a PMIx server URI ("<nspace>.<rank>;<address>"), or empty.
std::string nspace_from_uri(const std::string& uri);

}  // namespace prte::runtime::dvm_registry
