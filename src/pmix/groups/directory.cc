// The groups this node's server knows, for PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES and
// _GROUP_MEMBERSHIP (query.cc): every group with a member on this node, from its construct until
// its destruct, or until none of its members' jobs is left here.
//
// A group enters when its construct completes here: through the DVM's collective (construct.cc),
// or, for a group of this node's processes that asks for no context id, when PMIx completes it by
// itself and only tells the upcall (PMIX_GROUP_LOCAL_ONLY). A daemon knows only the groups with a
// member on its node: the master, which answers the tools, does not hear of the others (there is
// no message for it; docs/user-guide.md, "Debuggers and tools"). Progress thread.
#include <pmix.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "pmix/groups/groups.h"
#include "pmix/host_state.h"
#include "pmix/internal.h"

namespace prte::pmix::detail {
namespace {

std::map<std::string, std::vector<pmix_proc_t>>& directory() { return host().group_directory; }

}  // namespace

void group_listed(const std::string& id, const std::vector<pmix_proc_t>& members)
{
    if (id.empty()) return;
    verbose()(5, "group {}: listed with {} member(s)", id, members.size());
    directory()[id] = members;
}

void group_unlisted(const std::string& id)
{
    if (directory().erase(id)) verbose()(5, "group {}: no longer listed (destructed)", id);
}

void forget_listed_groups(const std::string& nspace)
{
    for (auto it = directory().begin(); it != directory().end();) {
        std::erase_if(it->second, [&](const pmix_proc_t& m) { return nspace == m.nspace; });
        it = it->second.empty() ? directory().erase(it) : std::next(it);
    }
}

std::vector<std::string> listed_group_names()
{
    std::vector<std::string> names;
    for (const auto& [id, members] : directory()) names.push_back(id);
    return names;
}

std::optional<std::vector<pmix_proc_t>> listed_group_members(const std::string& id)
{
    auto it = directory().find(id);
    if (it == directory().end()) return std::nullopt;
    return it->second;
}

}  // namespace prte::pmix::detail
