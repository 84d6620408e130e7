// A job (one prun submission, or the daemon job itself), its app contexts and its processes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/node.h"
#include "runtime/states.h"

namespace prte::runtime {

// One executable and its copies: `prun -n 4 ./a : -n 2 ./b` has two app contexts.
struct AppContext {
    int index = 0;
    std::string executable;
    std::vector<std::string> argv;
    std::vector<std::string> env;  // "NAME=value", added to the launch environment
    std::string working_dir;
    int num_procs = 0;  // 0 means "one per available slot", as PRRTE does without -n

    // --host / --hostfile restrict this app to those nodes (names as given; slot counts in
    // them do not change the pool); --add-host / --add-hostfile grow the DVM first.
    std::vector<std::string> hosts;
    std::string hostfile;
    std::vector<std::string> add_hosts;
    std::string add_hostfile;
};

struct Proc {
    Rank rank = kInvalidRank;
    int app_index = 0;
    Node* node = nullptr;
    int local_rank = 0;  // among this job's procs on the node
    int node_rank = 0;   // among all jobs' procs on the node
    ProcState state = ProcState::init;
    pid_t pid = 0;
    int exit_code = 0;
};

enum class MapBy { unset, slot, node, core, package, numa, hwthread, ppr, seq };
enum class RankBy { unset, slot, node, fill, span };
enum class BindTo { unset, none, hwthread, core, numa, package };

const char* to_string(MapBy policy);
const char* to_string(BindTo policy);

struct MappingPolicy {
    MapBy by = MapBy::unset;
    RankBy rank_by = RankBy::unset;
    BindTo bind_to = BindTo::unset;
    // Explicit user choice; unset means the mapper's default (PRRTE: allowed only when the
    // slot counts were not given by the user or the resource manager).
    std::optional<bool> oversubscribe;
    int ppr_count = 0;        // ppr:N:<object>
    MapBy ppr_object = MapBy::unset;
    int span = 0;
};

struct Job {
    std::string nspace;
    JobState state = JobState::init;
    std::vector<AppContext> apps;
    std::vector<std::unique_ptr<Proc>> procs;
    MappingPolicy mapping;

    int num_launched = 0;
    int num_reported = 0;
    int num_terminated = 0;
    int exit_code = 0;

    size_t num_procs() const { return procs.size(); }
};

}  // namespace prte::runtime
