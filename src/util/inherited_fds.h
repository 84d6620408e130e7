// For a child between fork and exec: whatever the parent opened without close-on-exec (the PMIx
// server's sockets, listening ports, other children's pipes) must not leak into the program it
// runs. A leaked PMIx socket kept a dead DVM's connections open: a tool never heard that its DVM
// had gone (palloc waited for ever).
#pragma once

namespace prte::util {

// Marks every descriptor from 3 up close-on-exec. Async-signal-safe (no allocation).
void mark_inherited_fds_cloexec() noexcept;

}  // namespace prte::util
