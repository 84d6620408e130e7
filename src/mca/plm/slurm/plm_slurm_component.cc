// plm/slurm's descriptor and parameters; the work is in plm_slurm_module.cc.
#include <stdlib.h>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/plm/slurm/plm_slurm.h"
#include "util/strings.h"

namespace {

// Above plm/ssh (10): inside a Slurm job daemons are Slurm's to start.
constexpr int kPriority = 20;

const prte::mca::Param* srun_param = nullptr;
const prte::mca::Param* args_param = nullptr;
const prte::mca::Param* timeout_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        srun_param = &registry.register_string({"plm", "slurm", "srun"}, "srun", "The srun command that starts daemons");
        args_param = &registry.register_string({"plm", "slurm", "args"}, "",
                                               "Further srun options for the daemons' steps (words split at spaces)");
        timeout_param = &registry.register_int({"plm", "slurm", "callhome_timeout"}, 60,
                                               "Seconds a daemon started by srun has to call home before it is "
                                               "reported as failed",
                                               {1, 86400});
    });
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "only the DVM master launches daemons";
        return;
    }
    const char* job = getenv("SLURM_JOB_ID");
    if (!job || !*job) {
        result.reason = "not inside a Slurm job (no SLURM_JOB_ID)";
        return;
    }
    prte::mca::offer_module(result, kPriority, [&] {
        prte::plm::slurm::Options options;
        if (srun_param && !srun_param->as_string().empty()) options.srun = srun_param->as_string();
        if (args_param) options.extra_args = prte::util::split(args_param->as_string(), ' ', true);
        if (timeout_param) options.callhome_timeout = static_cast<int>(timeout_param->as_int());
        return std::make_unique<prte::plm::slurm::SlurmLaunchModule>(options);
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "plm",
                   .name = "slurm",
                   .interface_version = prte::plm::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "starts daemons with srun inside a Slurm job (plm/ssh for nodes in no Slurm job)",
                   .register_params = register_params,
                   .query = query)
