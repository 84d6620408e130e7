// A node of the DVM and the pool that holds them. The pool owns its nodes for the life of the
// runtime: a node that a shrink removes stays in the pool, detached from its daemon, so that a
// later grow can bring it back (spec: collective-shrink-completion.txt, Step 2.3).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace prte::runtime {

class HwTopology;

using Rank = uint32_t;
inline constexpr Rank kInvalidRank = std::numeric_limits<Rank>::max();

// joining: a grow is starting its daemon, not yet wired; departing: its daemon is the target of a
// shrink in progress. Nothing is mapped onto either (spec: elastic-dvm-spec.txt, hazard 1).
enum class NodeState { unknown, up, down, not_included, added, joining, departing };
const char* to_string(NodeState state);

// Counts reported by the node's daemon from hwloc; zero until it reports.
struct NodeTopology {
    int packages = 0;
    int numa_domains = 0;
    int cores = 0;
    int hwthreads = 0;
};

struct Node {
    std::string name;
    std::vector<std::string> aliases;

    // Slots: how many processes may be placed without oversubscribing. `slots_given` is false
    // when no one said (a bare hostname), so the count may later come from the topology.
    int slots = 1;
    bool slots_given = false;
    int slots_max = 0;  // hard limit including oversubscription; 0 means none
    int slots_inuse = 0;
    int num_procs = 0;

    NodeState state = NodeState::unknown;
    NodeTopology topology;
    // The node's hardware (runtime/hw_topology.h): from its daemon's call home, ras/simulator's
    // file, or this process's own; null until known. Placement binds on it (rmaps/base).
    std::shared_ptr<const HwTopology> hw;
    // Made up by ras/simulator: no daemon runs there, so jobs are mapped onto it (to try a
    // placement, --map-by ...:DONOTLAUNCH) but never launched.
    bool simulated = false;
    // How many running processes are bound to each hwthread (hwloc logical index), over all jobs,
    // so that a job binds to the CPUs earlier jobs left free, as PRRTE does in a DVM.
    std::vector<uint16_t> pu_load;
    // The machine the node's daemon runs on (runtime::local_machine: host name and boot id), empty
    // when unknown. Nodes of the same machine (the local test-bed's) share its CPUs: placement
    // binds nothing there by default (rmaps/base, rmaps_binding.cc).
    std::string machine;

    // The daemon that serves this node, once one has been launched and reported.
    Rank daemon = kInvalidRank;
    bool daemon_launched = false;

    // Which RAS component brought the node in, and under which allocation: a shrink may span
    // several allocations, and each component releases only its own share.
    std::string ras_component;
    std::string alloc_id;
    // The resource manager's own job holding the node (a Slurm job id), for a launcher that must
    // start the daemon inside that job; empty for nodes no resource manager granted.
    std::string scheduler_job;

    int available_slots() const { return slots > slots_inuse ? slots - slots_inuse : 0; }
};

class NodePool {
  public:
    // Adds a node, or merges into the existing one of the same name: a later, explicit slot
    // count wins over an unstated one (the way a hostfile line refines an earlier --host).
    Node& add(const Node& node);
    Node* find(const std::string& name);
    const Node* find(const std::string& name) const;

    size_t size() const { return nodes_.size(); }
    Node& at(size_t index) { return *nodes_[index]; }
    const Node& at(size_t index) const { return *nodes_[index]; }

    std::vector<Node*> nodes();
    std::vector<const Node*> nodes() const;

  private:
    std::vector<std::unique_ptr<Node>> nodes_;
};

// The universe size a job of `job_size` processes is told (PMIX_UNIV_SIZE, PMI-1 get_universe_size,
// PMI-2 universeSize; MPI_UNIVERSE_SIZE): the slots of the DVM's nodes that are not down or left
// out, as PRRTE counts them, and never less than the job itself. It follows grows and shrinks.
uint32_t universe_size(const NodePool& pool, size_t job_size);

}  // namespace prte::runtime
