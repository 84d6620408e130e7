// Which program this process is. The runtime keys its start-up on it (a master makes the DVM's
// namespace, a daemon's session directory carries its rank), and components are selected by it
// (mca::QueryContext, where component authors meet it as mca::ProcessRole). Here, on the lowest
// floor, because both use it and the component system (mca/base) rests on util alone
// (docs/architecture.md, "Floors").
#pragma once

namespace prte::util {

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

}  // namespace prte::util
