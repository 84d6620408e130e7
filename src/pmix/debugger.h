// PMIx's debugger interface in the host (docs/user-guide.md, "Debuggers and tools").
#pragma once

#include <string>

namespace prte::pmix::detail {

// PMIX_QUERY_DEBUG_SUPPORT's answer: the debugger attributes the DVM honours, comma-separated.
// A debugger picks its stop mode from it (OpenPMIx's examples/debugger.c asks for
// PMIX_DEBUG_STOP_ON_EXEC only when it is listed), so nothing is listed before it works.
std::string supported_debug_attributes();

}  // namespace prte::pmix::detail
