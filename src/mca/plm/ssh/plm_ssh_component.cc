// plm/ssh's descriptor and parameters; the work is in plm_ssh_module.cc.
#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/plm/ssh/plm_ssh.h"
#include "util/strings.h"

namespace {

const prte::mca::Param* agent_param = nullptr;
const prte::mca::Param* concurrent_param = nullptr;
const prte::mca::Param* timeout_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        agent_param = &registry.register_string(
            {"plm", "ssh", "agent"}, "ssh",
            "The remote-shell agent that starts daemons, used as ssh is: '<agent> <node> <command>' (words "
            "split at spaces; the test-bed's local-agent for nodes on this machine)");
        concurrent_param = &registry.register_int({"plm", "ssh", "num_concurrent"}, 128,
                                                  "How many daemons may be starting at once (launched, not yet "
                                                  "called home)");
        timeout_param = &registry.register_int({"plm", "ssh", "callhome_timeout"}, 60,
                                               "Seconds a daemon has to call home before it is reported as "
                                               "failed");
    });
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "only the DVM master launches daemons";
        return;
    }
    prte::mca::offer_module(result, 10, [&] {
        prte::plm::ssh::Options options;
        if (agent_param) options.agent = prte::util::split(agent_param->as_string(), ' ', true);
        if (options.agent.empty()) options.agent = {"ssh"};
        if (concurrent_param && concurrent_param->as_int() > 0) options.num_concurrent = static_cast<int>(concurrent_param->as_int());
        if (timeout_param && timeout_param->as_int() > 0) options.callhome_timeout = static_cast<int>(timeout_param->as_int());
        return std::make_unique<prte::plm::ssh::SshModule>(options);
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "plm",
                   .name = "ssh",
                   .interface_version = prte::plm::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "starts daemons through ssh or any agent used as ssh is (plm_ssh_agent)",
                   .register_params = register_params,
                   .query = query)
