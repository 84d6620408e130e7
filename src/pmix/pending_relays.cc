#include "pmix/pending_relays.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace prte::pmix {

std::vector<runtime::Rank> route_to(const rml::RadixTree& tree, runtime::Rank target)
{
    // The chains of effective parents, bounded by the rank space in case the tree is mid-repair.
    auto ancestors = [&tree](runtime::Rank r) {
        std::vector<runtime::Rank> chain;
        for (runtime::Rank up = tree.parent_of(r); up != runtime::kInvalidRank && chain.size() <= tree.size();
             up = tree.parent_of(up)) {
            chain.push_back(up);
        }
        return chain;
    };
    const std::vector<runtime::Rank> mine = ancestors(tree.self());
    // The target is one of our ancestors: up to it.
    if (auto at = std::find(mine.begin(), mine.end(), target); at != mine.end()) {
        return std::vector<runtime::Rank>(mine.begin(), at + 1);
    }
    std::vector<runtime::Rank> down = {target};  // from the target up, until the path meets ours
    for (runtime::Rank up : ancestors(target)) {
        if (up == tree.self()) return down;  // the target is below us
        auto common = std::find(mine.begin(), mine.end(), up);
        if (common != mine.end()) {
            std::vector<runtime::Rank> route(mine.begin(), common + 1);
            route.insert(route.end(), down.begin(), down.end());
            return route;
        }
        down.push_back(up);
    }
    // Not in the tree (departed, out of range): up our way, as next_hop sends it, and the target.
    std::vector<runtime::Rank> route = mine;
    route.push_back(target);
    return route;
}

Status PendingRelays::relay(const std::optional<pmix_proc_t>& requester, std::vector<runtime::Rank> route,
                            const Send& send, Answer answer)
{
    uint64_t id = next_id_++;
    // Kept only once sent: the reply cannot come before, as it is handled on this same thread.
    Status sent = send(id);
    if (sent) records_[id] = Record{requester, std::move(route), std::move(answer)};
    return sent;
}

bool PendingRelays::answer(uint64_t id, const RelayAnswer& reply)
{
    auto it = records_.find(id);
    if (it == records_.end()) return false;
    Answer answer = std::move(it->second.answer);
    records_.erase(it);
    if (answer) answer(reply);
    return true;
}

size_t PendingRelays::fail_where(const std::function<bool(const Record&)>& matches, pmix_status_t status,
                                 const std::string& why)
{
    std::vector<Answer> failed;
    for (auto it = records_.begin(); it != records_.end();) {
        if (matches(it->second)) {
            failed.push_back(std::move(it->second.answer));
            it = records_.erase(it);
        } else {
            ++it;
        }
    }
    const RelayAnswer error{status, {}, why};
    for (Answer& answer : failed) {
        if (answer) answer(error);
    }
    return failed.size();
}

size_t PendingRelays::fail_routed_through(const std::vector<runtime::Rank>& lost, pmix_status_t status,
                                          const std::string& why)
{
    return fail_where(
        [&](const Record& r) {
            return std::any_of(r.route.begin(), r.route.end(),
                               [&](runtime::Rank hop) { return std::find(lost.begin(), lost.end(), hop) != lost.end(); });
        },
        status, why);
}

size_t PendingRelays::fail_requester(const pmix_proc_t& requester, pmix_status_t status, const std::string& why)
{
    return fail_where(
        [&](const Record& r) {
            return r.requester && r.requester->rank == requester.rank &&
                   strncmp(r.requester->nspace, requester.nspace, PMIX_MAX_NSLEN) == 0;
        },
        status, why);
}

size_t PendingRelays::fail_all(pmix_status_t status, const std::string& why)
{
    return fail_where([](const Record&) { return true; }, status, why);
}

}  // namespace prte::pmix
