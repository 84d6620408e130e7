#include "program/start.h"

#include <memory>
#include <utility>

#include <fmt/format.h>

#include "elastic/campaign_engine.h"
#include "mca/base/param.h"
#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "pmix/server.h"
#include "program/core_params.h"
#include "program/program.h"
#include "rml/auth.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::program {
namespace {

// The PMIx server, in the session directory; its stop registered.
Status start_pmix(bool tool_support)
{
    auto& rt = runtime::Runtime::instance();
    pmix::ServerOptions options;
    options.tool_support = tool_support;
    options.tmpdir = rt.identity().session_dir;
    if (Status st = pmix::start(options); !st) return {st.code(), fmt::format("cannot start the PMIx server: {}", st.message())};
    rt.at_finalize([] { pmix::stop(); });
    return {};
}

void stop_messenger_at_finalize()
{
    runtime::Runtime::instance().at_finalize([] {
        rml::Messenger::instance().flush();
        rml::Messenger::instance().stop();
    });
}

// Once every parameter the master uses is registered (the PMIx server's are the last): a setting
// that names none is a typo or belongs to a component that is not loaded, which
// docs/parameters.md promises a warning for; a bad value of a parameter registered after the
// runtime's own check, or a combination the master cannot run, stops the DVM like the others.
Status check_master_settings()
{
    const auto& registry = mca::ParamRegistry::instance();
    for (const auto& warning : registry.unmatched_warnings()) output::warning("{}", warning);
    if (!registry.errors().empty()) return {Errc::bad_param, registry.errors().front()};
    const auto& settings = runtime::Runtime::instance().settings();
    if (settings.autoscale && !settings.elastic_mode) {
        return {Errc::bad_param, "prte_autoscale needs an elastic DVM: add --prtemca prte_elastic_mode 1 (the "
                                 "autoscaler grows and shrinks it)"};
    }
    return {};
}

Status start_collectives(const char* what)
{
    grpcomm::Module* g = grpcomm::base::module();
    if (!g) return {};
    if (Status st = g->init(); !st) return {st.code(), fmt::format("cannot start {} (grpcomm): {}", what, st.message())};
    return {};
}

}  // namespace

Status start_master(char** envp, const MCASettings& command_line)
{
    auto& rt = runtime::Runtime::instance();
    // init loads the topology (discovered, or hwloc_use_topo_file) before any thread starts.
    if (Status st = init(util::ProcessRole::master, envp, command_line); !st) return st;
    if (Status st = start_pmix(true); !st) return st;
    if (Status st = check_master_settings(); !st) return st;
    // Daemons of other nodes reach the master over the messenger (rml), authenticated by the DVM's
    // secret; it listens even for a DVM of this node alone, which may grow later.
    rml::Options messaging = messenger_options(mca::ParamRegistry::instance(), 0, rml::auth::make_secret());
    if (Status st = plm::base::start_master_messaging(std::move(messaging)); !st) {
        return {st.code(), fmt::format("cannot start the DVM's messaging: {}", st.message())};
    }
    stop_messenger_at_finalize();
    pmix::enable_remote_services();
    if (Status st = start_collectives("the DVM's collectives"); !st) return st;
    rt.set_campaigns(std::make_unique<elastic::CampaignEngine>(rt));
    // The master's own copy of a broadcast command (a shrink order) has nothing left to do here:
    // the elastic DVM acts on a shrink as it sends it.
    rml::Messenger::instance().register_handler(rml::tag::daemon, [](runtime::Rank, rml::Payload&&) {});
    rt.set_teardown([](std::function<void()> done) { plm::base::teardown_daemons(std::move(done)); });
    return {};
}

Status start_daemon(char** envp, const MCASettings& command_line, const DaemonStart& start)
{
    auto& rt = runtime::Runtime::instance();
    if (Status st = init(util::ProcessRole::daemon, envp, command_line); !st) return st;
    if (start.before_servers) start.before_servers();
    if (Status st = start_pmix(false); !st) return st;
    auto& messenger = rml::Messenger::instance();
    rml::Options messaging = messenger_options(mca::ParamRegistry::instance(), rt.identity().rank, start.secret);
    if (Status st = messenger.start(rt.loop().base(), std::move(messaging)); !st) return st;
    stop_messenger_at_finalize();
    messenger.set_contact(0, start.master_uri);
    pmix::enable_remote_services();
    return start_collectives("the collectives");
}

}  // namespace prte::program
