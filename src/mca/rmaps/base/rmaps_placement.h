// Placement inside the nodes, after a mapper has chosen each process's node: which object of its
// node each process is given (its "place"), the order of the ranks (--rank-by), and the CPUs each
// is bound to (--bind-to, PE=, pe-list, a rankfile's slots). All of it is computed here, in the
// master, on each node's own topology (runtime::Node::hw), so that a simulated node is placed
// exactly as a real one and every rule has one home. Not installed: mappers see only the results
// (Proc::cpuset, Proc::binding) and the capacity helpers in rmaps_base.h.
//
// PRRTE's rules, as docs/user-guide.md ("Placement") states them for users:
//  - a process's place is an object of the mapping level (ppr fills each object with N processes;
//    the others go round the node's objects, least loaded first), or one CPU for slot, node and
//    seq mappings;
//  - ranks follow the mapping unless --rank-by says otherwise: by node (round the nodes), by an
//    object (round the objects of each node; with :SPAN, of all nodes), fill (object by object);
//  - binding: --bind-to's level, else the mapping's object (core for slot/node/seq with at most
//    two processes, numa above), a CPU per process by default, or PE= CPUs; never on a node the
//    job oversubscribes or that shares its machine with another node unless asked; an object with more processes bound to it than it has CPUs
//    is refused unless :overload-allowed.
#pragma once

#include <hwloc.h>

#include <unordered_map>
#include <vector>

#include "runtime/hw_topology.h"
#include "runtime/job.h"
#include "util/status.h"

namespace prte::rmaps::base {

// What placement knows of one process between its steps.
struct Place {
    hwloc_obj_t object = nullptr;     // the place: an object of the mapping level, or a CPU
    std::vector<hwloc_obj_t> cpus;    // PE= or pe-list: the CPUs chosen for it
};
using Places = std::unordered_map<const runtime::Proc*, Place>;

// The level a mapping policy places processes at (machine for slot, node, seq, rankfile, pe-list,
// ppr:N:node).
runtime::HwLevel mapping_level(const runtime::MappingPolicy& mapping);

// Processes of running jobs bound to the CPUs of `set`, from a node's pu_load: their sum over
// the set's hwthreads (how loaded an object is), and the most on any one of them (how many share
// a CPU there).
unsigned load_sum(const std::vector<uint16_t>& pu_load, hwloc_const_bitmap_t set);
unsigned load_max(const std::vector<uint16_t>& pu_load, hwloc_const_bitmap_t set);

// The job's processes among `procs` grouped by node: nodes in order of first appearance, each with
// its processes in the order given.
using ProcsByNode = std::vector<std::pair<runtime::Node*, std::vector<runtime::Proc*>>>;
ProcsByNode group_by_node(const std::vector<runtime::Proc*>& procs);

// The level a job is bound to without --bind-to (PRRTE's default rules above); a CPU level for
// PE= and pe-list.
runtime::HwLevel default_binding_level(const runtime::Job& job);

// Step 1: each process's place on its node. Fails when a node lacks the mapping's level.
Status assign_places(runtime::Job& job, Places& places);
// Step 2: reorders job.procs by --rank-by (within each app) and renumbers the ranks.
Status rank_procs(runtime::Job& job, const Places& places);
// Step 3: each process's CPUs (Proc::cpuset, Proc::binding), and the nodes' pu_load. Without
// --bind-to, a node that shares its machine with another node of `pool` (Node::machine: the local
// test-bed's) is not bound: each node's placement would pick the same first CPUs of the one
// machine. Its processes' Proc::binding then says why (and Proc::cpuset stays empty).
Status bind_procs(runtime::Job& job, const Places& places, const runtime::NodePool& pool);

}  // namespace prte::rmaps::base
