// What the rmaps unit tests share: nodes and apps built in memory, the placement of a mapped job,
// and loading the build tree's rmaps components for tests that go through the real framework.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "component_files.h"
#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "runtime/hw_topology.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "runtime/types_fingerprint.h"
#include "util/strings.h"

namespace prte::rmaps::test {

using Names = std::vector<std::string>;

inline runtime::Node make_node(const std::string& name, int slots, bool slots_given = true, int slots_max = 0)
{
    runtime::Node n;
    n.name = name;
    n.slots = slots;
    n.slots_given = slots_given;
    n.slots_max = slots_max;
    n.state = runtime::NodeState::up;
    return n;
}

inline runtime::AppContext make_app(int index, int num_procs, const std::string& executable = "./a.out")
{
    runtime::AppContext app;
    app.index = index;
    app.num_procs = num_procs;
    app.executable = executable;
    return app;
}

// The node of each process, in rank order.
inline Names placement(const runtime::Job& job)
{
    Names out;
    for (const auto& proc : job.procs) out.push_back(proc->node->name);
    return out;
}

// Every node's (slots_inuse, num_procs), to compare before and after.
inline std::vector<std::pair<int, int>> counters(const runtime::NodePool& pool)
{
    std::vector<std::pair<int, int>> out;
    for (const runtime::Node* n : pool.nodes()) out.emplace_back(n->slots_inuse, n->num_procs);
    return out;
}

// Gives `node` the hardware hwloc's synthetic description says ("pack:2 core:4 pu:2"), and the
// counts that come with it; a description hwloc refuses fails the test.
inline void set_hardware(runtime::Node& node, const std::string& synthetic)
{
    std::string error;
    node.hw = runtime::HwTopology::from_synthetic(synthetic, error);
    ASSERT_TRUE(node.hw) << error;
    node.topology = node.hw->counts();
}

// What map_job builds when no app names hosts: every node for every app.
inline MapContext context_with_all_nodes(const runtime::Job& job, runtime::NodePool& pool)
{
    MapContext context;
    for (size_t i = 0; i < job.apps.size(); ++i) context.app_nodes.push_back(pool.nodes());
    for (const runtime::Node* n : pool.nodes()) context.slots_given = context.slots_given || n->slots_given;
    return context;
}

// Opens the rmaps framework with only the components `selection` names ("round_robin", or
// "ppr,seq,round_robin") from the build tree; the caller has checked that their files are there
// (PRTE_REQUIRE_COMPONENT_FILES). A failure to open is a test failure.
inline void open_rmaps(mca::ParamRegistry& registry, const std::string& selection)
{
    static bool scanned = false;
    if (!scanned) mca::ComponentRepository::instance().scan(::prte::test::component_dirs(), runtime::kTypesFingerprint);
    scanned = true;
    // Only these components, so a test does not depend on which other mappers are built.
    registry.set("rmaps", selection, {mca::ParamSource::program, "test"});
    EXPECT_TRUE(base::framework().open(registry, mca::ComponentRepository::instance()));
    Status st = base::framework().select({mca::ProcessRole::master});
    EXPECT_TRUE(st) << st.message();
}

// Sets rmaps_base_verbose for the life of the object.
class VerboseLevel {
  public:
    explicit VerboseLevel(int level) { set(level); }
    ~VerboseLevel() { set(0); }

  private:
    static void set(int level)
    {
        mca::ParamRegistry registry;
        registry.set("rmaps_base_verbose", std::to_string(level), {mca::ParamSource::program, "test"});
        base::framework().register_params(registry);
    }
};

}  // namespace prte::rmaps::test
