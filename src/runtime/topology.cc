#include "runtime/topology.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include <fmt/format.h>

namespace prte::runtime {
namespace {

// hwloc loads every plugin it finds when the first topology of a process is created. Debian's
// libhwloc-plugins brings four a DVM never uses - displays (gl: X11), OpenCL devices, the libxml2
// XML backend (hwloc's own XML code serves instead) and PCI (the DVM keeps no I/O objects: hwloc 2
// filters them out by default, so the plugin was loaded for nothing, 0.1 ms) - and loading the
// first three (X11, the OpenCL ICD loader, libxml2 and ICU) cost about 9 ms of CPU per process:
// more than discovering the node.
constexpr const char* kUnusedPlugins = "hwloc_gl,hwloc_opencl,hwloc_xml_libxml,hwloc_pci";
// hwloc's x86 backend runs cpuid on every processor only to annotate what Linux's sysfs already
// describes (cache inclusiveness: the same objects either way); in a VM each cpuid traps to the
// hypervisor, and discovery took 0.8 ms instead of 0.37 ms here, in every prte and prted.
constexpr const char* kUnusedComponents = "-x86";

// A user's own HWLOC_PLUGINS_BLACKLIST or HWLOC_COMPONENTS wins; ours are set only around the
// first discovery (hwloc reads them then), so launched processes never inherit them.
class DiscoveryEnvironment {
  public:
    DiscoveryEnvironment()
    {
        if (std::getenv("HWLOC_PLUGINS_BLACKLIST") || std::getenv("HWLOC_COMPONENTS")) return;
        set_ = true;
        setenv("HWLOC_PLUGINS_BLACKLIST", kUnusedPlugins, 1);
        setenv("HWLOC_COMPONENTS", kUnusedComponents, 1);
    }
    ~DiscoveryEnvironment()
    {
        if (!set_) return;
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
        unsetenv("HWLOC_COMPONENTS");
    }

  private:
    bool set_ = false;
};

// The process's one topology, and whether it was loaded (a failed discovery is not retried).
struct SharedTopology {
    hwloc_topology_t topology = nullptr;
    bool loaded = false;
};

SharedTopology& shared()
{
    static SharedTopology shared;
    return shared;
}

// hwloc reads the file only when it loads the topology, and then says no more than "failed":
// the file is opened first so that a missing or unreadable one is named with the reason.
Status check_readable(const std::string& file)
{
    std::FILE* f = std::fopen(file.c_str(), "r");
    if (!f) return {Errc::not_found, fmt::format("cannot read topology file '{}': {}", file, std::strerror(errno))};
    std::fclose(f);
    return {};
}

Status load(const std::string& file, hwloc_topology_t& out)
{
    if (!file.empty()) {
        if (Status st = check_readable(file); !st) return st;
    }
    DiscoveryEnvironment environment;
    hwloc_topology_t topology = nullptr;
    if (hwloc_topology_init(&topology) != 0) return {Errc::internal, "hwloc cannot start reading this node"};
    // As PRRTE does with its topology file: the file stands for the machine this process runs on,
    // so hwloc's binding calls still act on this machine instead of doing nothing.
    if (!file.empty() && (hwloc_topology_set_xml(topology, file.c_str()) != 0 ||
                          hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0)) {
        hwloc_topology_destroy(topology);
        return {Errc::bad_file, fmt::format("topology file '{}' is not one hwloc can read", file)};
    }
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        if (file.empty()) return {Errc::internal, "hwloc cannot discover this node"};
        return {Errc::bad_file, fmt::format("topology file '{}' is not an hwloc XML topology", file)};
    }
    if (!file.empty() && hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU) <= 0) {
        hwloc_topology_destroy(topology);
        return {Errc::bad_file, fmt::format("the topology in file '{}' has no processing units", file)};
    }
    out = topology;
    return {};
}

}  // namespace

Status load_shared_topology(const std::string& file)
{
    SharedTopology& s = shared();
    if (s.loaded) {
        if (file.empty()) return {};
        return {Errc::internal, fmt::format("the topology was discovered before topology file '{}' could be used "
                                            "(load_shared_topology must come first)", file)};
    }
    hwloc_topology_t topology = nullptr;
    Status st = load(file, topology);
    // A discovery that fails leaves the process without a topology (as before: counts are zero,
    // nothing is bound); a file that fails is the user's error, and the program stops.
    if (!st && !file.empty()) return st;
    s.topology = topology;
    s.loaded = true;
    return {};
}

hwloc_topology_t shared_topology()
{
    SharedTopology& s = shared();
    if (!s.loaded) {
        ignore_status(load_shared_topology(""),
                      "with no file it cannot fail: a failed discovery leaves a null topology, which callers handle");
    }
    return s.topology;
}

NodeTopology local_topology()
{
    NodeTopology t;
    hwloc_topology_t topology = shared_topology();
    if (!topology) return t;
    t.packages = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
    t.numa_domains = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    t.cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    t.hwthreads = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    return t;
}


}  // namespace prte::runtime
