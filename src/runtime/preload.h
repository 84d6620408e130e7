// prun --preload-binary and --preload-files: a file prun read where it runs, on its way with the
// job (runtime::AppContext::preload) to the daemons that run the app's processes, which write it
// before they fork them (odls/base/odls_base_preload.h). One encoding (rml/preload_codec.h)
// carries it in the spawn request (pmix::kPreloadFile) and in the launch message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace prte::runtime {

// The most bytes of preloaded files one job may carry, all its apps' together: the spawn request
// that carries them from prun must stay below PMIx's 16 MiB message limit (ptl_base_max_msg_size).
inline constexpr uint64_t kMaxPreloadBytes = 8ull << 20;

struct PreloadFile {
    // The app's program (--preload-binary), written to the job's session directory and run from
    // there; otherwise a --preload-files file, written to the process's working directory.
    bool binary = false;
    // Where it goes: the program's base name, or a file's path relative to the working directory.
    std::string name;
    uint32_t mode = 0644;  // the source's permission bits
    // The source where prun read it: its machine (runtime::local_machine) and its device and inode
    // there, so that a daemon finding that very file in the working directory (a shared file
    // system) writes nothing.
    std::string machine;
    uint64_t device = 0;
    uint64_t inode = 0;
    std::vector<uint8_t> content;
};

// Which machine this process runs on: its host name and the kernel's boot id
// (/proc/sys/kernel/random/boot_id), joined as "<host> <boot id>", or empty when the boot id cannot
// be read. Daemons of the local test-bed's nodes all run here and report the same text; two real
// machines never do (they may share a host name, never a boot id). Daemons send it when they call
// home (plm DaemonReport), and the master keeps it as runtime::Node::machine.
std::string local_machine();

// A name a preloaded file may be written under: relative, no "." or ".." component, not empty.
// The error says why, naming it.
Status check_preload_name(const std::string& name);

}  // namespace prte::runtime
