#include "program/program.h"

#include <fmt/format.h>

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "mca/odls/base/odls_base.h"
#include "mca/pmi/base/pmi_base.h"
#include "mca/state/base/state_base.h"
#include "pmix/server.h"
#include "program/core_params.h"
#include "runtime/runtime.h"
#include "runtime/topology.h"
#include "util/output.h"

namespace prte::program {
namespace {

// Frameworks a program of this role cannot run without. Others are opened (their parameters exist,
// prte_info lists them) but only selected when they have components for this role.
std::vector<std::string> required_frameworks(util::ProcessRole role)
{
    switch (role) {
    case util::ProcessRole::master: return {"state", "errmgr", "ras", "rmaps", "plm", "odls", "grpcomm"};
    case util::ProcessRole::daemon: return {"state", "errmgr", "odls", "grpcomm"};
    case util::ProcessRole::tool:
    case util::ProcessRole::info: return {};
    }
    return {};
}

// Component files that were found but refused (not a shared object, not a prte component, built
// for another interface): each program says so once per file, with the reason, unless
// mca_base_component_show_load_errors is off. Only a component asked for by name is fatal
// (framework.cc); a stray file must not go unnoticed either.
void warn_refused_components()
{
    const mca::Param* show = mca::ParamRegistry::instance().find("mca_base_component_show_load_errors");
    if (show && !show->as_bool()) return;
    for (const auto& failure : mca::ComponentRepository::instance().failures()) output::warning("{}", failure.describe());
}

}  // namespace

Status init(util::ProcessRole role, char** envp, const MCASettings& command_line)
{
    if (Status st = setup_mca(envp, command_line); !st) return st;
    auto& rt = runtime::Runtime::instance();
    auto& registry = mca::ParamRegistry::instance();
    // Before anything uses the topology (odls, the PMIx server) and before any thread starts.
    if (Status st = runtime::load_shared_topology(topology_file(registry)); !st) {
        return {st.code(), fmt::format("hwloc_use_topo_file: {}", st.message())};
    }
    // Components are selected (and odls initialised) with the host already in place: odls reads
    // its services when it initialises.
    if (Status st = rt.set_host(pmix::host_services()); !st) return st;
    if (Status st = rt.init(role, runtime_settings(registry), state::base::framework().verbose()); !st) {
        return st;
    }
    rt.at_finalize([] {
        for (mca::Framework* f : all_frameworks()) f->close();
    });

    if (Status st = open_frameworks({role}, false); !st) return st;
    warn_refused_components();
    for (const std::string& dir : rt.removed_stale_sessions()) {
        state::base::framework().verbose()(1, "removed {}: the process that made it is no longer running", dir);
    }
    for (const auto& name : required_frameworks(role)) {
        mca::Framework* f = find_framework(name);
        if (Status st = f->select({role}); !st) return st;
    }
    // Optional: without a pmi component (a site dropped it) processes get PMIx only.
    if (role == util::ProcessRole::master || role == util::ProcessRole::daemon) {
        mca::Framework& pmi = pmi::base::framework();
        if (Status st = pmi.select({role}); !st) pmi.verbose()(5, "no PMI server: {}", st.message());
    }
    // The launcher watches SIGCHLD from start-up, not from its first launch.
    if (odls::Module* m = odls::base::module(); m && role != util::ProcessRole::info) {
        if (Status st = m->init(); !st) return st;
    }
    if (state::Module* m = state::base::module()) {
        if (Status st = m->install(rt.state()); !st) return st;
        state::base::framework().verbose()(5, "state machine at start-up:\n{}", rt.state().describe());
    }
    return {};
}

}  // namespace prte::program
