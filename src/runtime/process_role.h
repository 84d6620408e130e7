// Which program this process is. The runtime keys its start-up on it (a master makes the DVM's
// namespace, a daemon's session directory carries its rank), and components are selected by it
// (mca::QueryContext), so it lives on the runtime floor and the component system uses it from here.
#pragma once

namespace prte::runtime {

enum class ProcessRole { master, daemon, tool, info };

constexpr const char* to_string(ProcessRole role)
{
    switch (role) {
    case ProcessRole::master: return "master";
    case ProcessRole::daemon: return "daemon";
    case ProcessRole::tool: return "tool";
    case ProcessRole::info: return "info";
    }
    return "?";
}

}  // namespace prte::runtime
