// A node's hardware as hwloc describes it, held by the master for every node so that placement
// (rmaps: which object and which CPUs each process gets) is decided in one place, on the node's own
// topology, whether the node is real (its daemon sends its topology when it calls home), simulated
// (ras/simulator reads an XML file) or the master's own.
//
// Immutable once built and shared: nodes with the same hardware share one object (the master keeps
// one per distinct XML text), so a thousand identical nodes cost one topology.
#pragma once

#include <hwloc.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/node.h"

namespace prte::runtime {

// The levels processes are mapped to and bound to, from the smallest. `machine` is the whole node.
enum class HwLevel { hwthread, core, l1cache, l2cache, l3cache, numa, package, machine };
const char* to_string(HwLevel level);

class HwTopology {
  public:
    ~HwTopology();
    HwTopology(const HwTopology&) = delete;
    HwTopology& operator=(const HwTopology&) = delete;

    // nullptr and `error` set (one line, naming the source) when hwloc cannot read it.
    static std::shared_ptr<const HwTopology> from_xml(const std::string& xml, const std::string& source,
                                                      std::string& error);
    // hwloc's synthetic description, e.g. "pack:2 l3:2 core:4 pu:2" (tests, benchmarks).
    static std::shared_ptr<const HwTopology> from_synthetic(const std::string& description, std::string& error);
    // This process's topology (runtime/topology.h: discovered once, or read from hwloc_use_topo_file).
    static std::shared_ptr<const HwTopology> local();

    hwloc_topology_t get() const { return topology_; }
    // The XML text a daemon sends the master.
    std::string xml() const;
    // Package, NUMA, core and hwthread counts (what nodes reported before topologies travelled).
    NodeTopology counts() const;

    // The objects of `level`, in hwloc's logical order; empty when the node has none (a machine
    // without an L3, say). `machine` is the one root object.
    const std::vector<hwloc_obj_t>& objects(HwLevel level) const;
    // The CPUs a process may count as one processing element: cores, or hwthreads with HWTCPUS.
    // A node that reports no cores counts its hwthreads.
    const std::vector<hwloc_obj_t>& cpus(bool hwthreads) const;

  private:
    explicit HwTopology(hwloc_topology_t topology, bool owned);
    void index();

    hwloc_topology_t topology_ = nullptr;
    bool owned_ = true;
    std::vector<hwloc_obj_t> by_level_[8];
};

using HwTopologyPtr = std::shared_ptr<const HwTopology>;

// Maps each distinct topology text to one shared object, so that many nodes with the same
// hardware share it. Not thread-safe: the master's progress thread owns it.
class HwTopologyCache {
  public:
    HwTopologyPtr get(const std::string& xml, const std::string& source, std::string& error);
    size_t size() const { return by_text_.size(); }

  private:
    std::unordered_map<std::string, HwTopologyPtr> by_text_;
};

// "0-3,8" for a cpuset (hwloc's list form, OS indices: what Cpus_allowed_list shows).
std::string cpu_list(hwloc_const_cpuset_t set);

}  // namespace prte::runtime
