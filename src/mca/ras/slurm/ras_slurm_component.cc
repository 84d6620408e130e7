// The ras/slurm component's descriptor and parameters; the work is in ras_slurm_module.cc.
#include <memory>
#include <new>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/ras.h"
#include "mca/ras/slurm/ras_slurm_module.h"
#include "util/strings.h"

namespace {

// Above ras/ssh (20) and ras/hosts (10): inside a Slurm job the job's nodes are the DVM's, and a
// grow by a number of nodes is Slurm's to grant.
constexpr int kPriority = 25;

const prte::mca::Param* timeout_param = nullptr;
const prte::mca::Param* salloc_param = nullptr;
const prte::mca::Param* salloc_args_param = nullptr;
const prte::mca::Param* scontrol_param = nullptr;
const prte::mca::Param* watch_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        timeout_param = &registry.register_int(
            {"ras", "slurm", "grow_timeout"}, 10,
            "Seconds Slurm has to grant the nodes of a grow (salloc --immediate); a grow it cannot grant by then "
            "fails with Slurm's reason",
            {1, 3600});
        salloc_param = &registry.register_string({"ras", "slurm", "salloc"}, "salloc",
                                                 "The salloc command that asks Slurm for a grown node");
        salloc_args_param = &registry.register_string(
            {"ras", "slurm", "salloc_args"}, "--exclusive",
            "Further salloc options for each grown node (words split at spaces); --exclusive asks for whole nodes, "
            "as SelectTypeParameters=CR_Core needs");
        scontrol_param = &registry.register_string({"ras", "slurm", "scontrol"}, "scontrol",
                                                   "The scontrol command that shrinks the DVM's own job");
        watch_param = &registry.register_int(
            {"ras", "slurm", "watch_interval"}, 5,
            "Seconds between looks at Slurm's node states (sinfo) in elastic mode: a node Slurm drains or finds "
            "down leaves the DVM; with prte_autoscale, also at its idle nodes, which it could lend; 0: never look",
            {0, 86400});
    });
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master && context.role != prte::mca::ProcessRole::info) {
        result.reason = "only the DVM master allocates";
        return;
    }
    prte::mca::offer_module(result, kPriority, [&] {
        prte::ras::slurm::Options options;
        if (timeout_param) options.companion.immediate_seconds = static_cast<int>(timeout_param->as_int());
        if (salloc_param && !salloc_param->as_string().empty()) options.companion.salloc = salloc_param->as_string();
        if (salloc_args_param) options.companion.extra_args = prte::util::split(salloc_args_param->as_string(), ' ', true);
        if (scontrol_param && !scontrol_param->as_string().empty()) options.scontrol = scontrol_param->as_string();
        if (watch_param) options.watch_interval = static_cast<int>(watch_param->as_int());
        return std::make_unique<prte::ras::slurm::SlurmModule>(std::move(options));
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "ras",
                   .name = prte::ras::slurm::kComponentName,
                   .interface_version = prte::ras::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "the nodes of the Slurm job prte runs in, and more from Slurm as the DVM grows",
                   .register_params = register_params,
                   .query = query)
