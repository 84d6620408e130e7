// The pmi/simple component's descriptor: its parameters and its query. The work is in
// pmi_simple_server.cc.
#include <memory>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/pmi/simple/pmi_simple_server.h"

namespace {

using prte::pmi::simple::Limits;
using prte::pmi::simple::SimpleServer;

constexpr int kPriority = 10;

// Owned by the registry, which outlives every component.
const prte::mca::Param* value_max_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        // MPICH asserts more than 256; its own launcher announces 1024.
        value_max_param = &registry.register_int(
            {"pmi", "simple", "value_max"}, static_cast<int64_t>(Limits{}.value_max),
            "Longest value a process may put, as PMI-1 get_maxes announces it (vallen_max); a longer one ends "
            "the job",
            {257, 65536});
    });
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    // Only daemons serve processes; tools and prte_info need no server.
    if (context.role != prte::mca::ProcessRole::master && context.role != prte::mca::ProcessRole::daemon) {
        result.reason = "only daemons serve PMI";
        return;
    }
    prte::mca::offer_module(result, kPriority, [&] {
        Limits limits;
        if (value_max_param) limits.value_max = static_cast<size_t>(value_max_param->as_int());
        limits.command_max = limits.value_max + 4096;  // a put's line: the value, its key and the rest
        return std::make_unique<SimpleServer>(limits);
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "pmi",
                   .name = prte::pmi::simple::kComponentName,
                   .interface_version = prte::pmi::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "the PMI-1 and PMI-2 simple wire protocols over PMI_FD, barriers as grpcomm allgathers",
                   .register_params = register_params,
                   .query = query)
