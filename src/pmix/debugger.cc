// PMIx's debugger interface in the host: what a debugger may ask of the DVM (debugger.h).
#include "pmix/debugger.h"

#include <vector>

#include "util/strings.h"

namespace prte::pmix::detail {

std::string supported_debug_attributes()
{
    // Grows with each stop mode and debugger-daemon attribute as it is honoured (issue 42).
    return util::join(std::vector<std::string>{}, ",");
}

}  // namespace prte::pmix::detail
