// plm/isolated: the launcher of a DVM that lives on the master's node alone. It starts no daemon:
// a node that would need one is refused with a message saying which launcher does that. The
// launch states still pass through LAUNCH_DAEMONS, so a multi-node launcher slots in unchanged.
#include <fmt/format.h>

#include "mca/base/component.h"
#include "mca/plm/plm.h"
#include "util/strings.h"

namespace {

class IsolatedModule : public prte::plm::Module {
  public:
    prte::Status init() override { return {}; }

    prte::Status launch_daemons(prte::runtime::Job&, const std::vector<prte::runtime::Node*>& nodes) override
    {
        std::vector<std::string> names;
        for (const auto* n : nodes) names.push_back(n->name);
        return {prte::Errc::not_supported,
                fmt::format("node(s) {} need a daemon, but the DVM runs on this node only (plm isolated); list only "
                            "this node in --host/--hostfile, or use a launcher that starts daemons (plm ssh)",
                            prte::util::join(names, ", "))};
    }

    prte::Status kill_daemons(const std::vector<prte::runtime::Rank>&) override
    {
        return {prte::Errc::not_supported, "plm isolated starts no daemons"};
    }
};

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "only the DVM master launches daemons";
        return;
    }
    result.priority = 1;  // the last resort: any real launcher outranks it
    result.module = std::make_unique<IsolatedModule>();
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "plm",
                   .name = "isolated",
                   .interface_version = prte::plm::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "a DVM on the master's node alone: starts no daemons",
                   .query = query)
