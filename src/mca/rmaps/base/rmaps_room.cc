// Room on an idle DVM (rmaps_base.h, fits_when_idle): the mapper's own rules, run on the nodes as
// if no job held anything, so that "does not fit now" and "could never fit" are told apart by the
// one code that places processes, never by arithmetic of the caller's.
#include <vector>

#include "mca/rmaps/base/rmaps_base.h"

namespace prte::rmaps::base {
namespace {

// What other jobs hold on a node: set aside for the dry run, put back after it.
struct NodeUse {
    runtime::Node* node;
    int slots_inuse;
    int num_procs;
    std::vector<uint16_t> pu_load;
};

}  // namespace

Status fits_when_idle(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter)
{
    if (!job.procs.empty()) return {Errc::internal, "fits_when_idle: the job is mapped already"};
    std::vector<NodeUse> held;
    for (runtime::Node* node : pool.nodes()) {
        held.push_back({node, node->slots_inuse, node->num_procs, std::move(node->pu_load)});
        node->slots_inuse = 0;
        node->num_procs = 0;
        node->pu_load.clear();
    }
    Status st = map_job(job, pool, filter);
    if (st) unmap_job(job);
    for (NodeUse& use : held) {
        use.node->slots_inuse = use.slots_inuse;
        use.node->num_procs = use.num_procs;
        use.node->pu_load = std::move(use.pu_load);
    }
    return st;
}

}  // namespace prte::rmaps::base
