// The odls/default component's descriptor: its parameter and its query, which wires the module
// to the runtime and the PMIx host's services (runtime/host_services.h). The work is in odls_default_module.cc.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <new>
#include <system_error>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/odls/base/odls_base.h"
#include "mca/odls/default/odls_default_env.h"
#include "mca/odls/default/odls_default_module.h"
#include "mca/pmi/base/pmi_base.h"
#include "runtime/runtime.h"

namespace {

namespace odls = prte::odls;
using prte::odls::default_component::DefaultModule;
using prte::odls::default_component::Options;
using prte::odls::default_component::Services;

// The only launcher so far; a low priority leaves room for a specialised one.
constexpr int kPriority = 10;

// Owned by the registry, which outlives every component.
const prte::mca::Param* ompi_compat_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        ompi_compat_param = &registry.register_bool(
            {"odls", "default", "ompi_compat"}, true,
            "Give each process the variables Open MPI 4.x needs to run as one job under this launcher rather "
            "than as singletons (OMPI_MCA_orte_local_daemon_uri, OMPI_COMM_WORLD_*)");
    });
}

// A daemon whose node name is not this machine's hostname (prte_node_name: the local-node
// test-bed) may share the hostname with other nodes, so Open MPI's shared-memory segments go in
// its session directory instead of /dev/shm (Services::ompi_shm_dir).
std::string own_shared_memory_dir(const prte::runtime::Identity& me)
{
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) != 0 || me.node_name == host || me.session_dir.empty()) return {};
    std::string dir = me.session_dir + "/" + odls::default_component::kOmpiShmDirName;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return ec ? std::string() : dir;
}

// Read when the module initialises, by which time the runtime has its loop and state machine.
Services runtime_services()
{
    auto& rt = prte::runtime::Runtime::instance();
    Services services;
    services.loop = &rt.loop();
    services.state = &rt.state();
    services.node_name = rt.identity().node_name;
    services.daemon_rank = rt.identity().rank;
    services.ompi_shm_dir = own_shared_memory_dir(rt.identity());
    services.session_dir = rt.identity().session_dir;
    const prte::runtime::HostServices& host = rt.host();
    services.setup_fork = host.setup_fork;
    services.deliver_output = host.deliver_output;
    services.output_backlogged = host.output_backlogged;
    services.when_output_drains = host.when_output_drains;
    services.process_ended = host.process_ended;
    services.job_killing = host.job_killing;
    services.pmi = prte::pmi::base::module();
    services.oversubscribed = [&rt](const prte::runtime::Job& job, const prte::runtime::Proc& proc) {
        return proc.node && rt.jobs().oversubscribes(job, *proc.node);
    };
    return services;
}

void query(const prte::mca::QueryContext&, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        Options options;
        options.kill_grace = std::chrono::seconds(odls::base::sigkill_timeout_seconds());
        options.ompi_compat = ompi_compat_param ? ompi_compat_param->as_bool() : true;
        return std::make_unique<DefaultModule>(runtime_services, options);
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "odls",
                   .name = prte::odls::default_component::kComponentName,
                   .interface_version = prte::odls::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "fork/exec of local processes, output forwarded to PMIx, exits reaped on SIGCHLD",
                   .register_params = register_params,
                   .query = query)
