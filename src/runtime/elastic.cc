#include "runtime/elastic.h"

#include <pmix.h>

#include <algorithm>
#include <cstdint>
#include <limits>


namespace prte::runtime {

const char* to_string(AllocationPhase phase)
{
    switch (phase) {
    case AllocationPhase::pending: return "pending";
    case AllocationPhase::ready: return "ready";
    case AllocationPhase::failed: return "failed";
    case AllocationPhase::released: return "released";
    }
    return "?";
}

GrowCampaign* ElasticState::grow_of(Rank target)
{
    for (auto& [id, c] : grows_) {
        if (std::find(c.targets.begin(), c.targets.end(), target) != c.targets.end()) return &c;
    }
    return nullptr;
}

ShrinkCampaign* ElasticState::shrink_of(Rank target)
{
    for (auto& [id, c] : shrinks_) {
        if (std::find(c.targets.begin(), c.targets.end(), target) != c.targets.end()) return &c;
    }
    return nullptr;
}

std::set<uint64_t> ElasticState::campaign_ids() const
{
    std::set<uint64_t> ids;
    for (const auto& [id, c] : grows_) ids.insert(id);
    for (const auto& [id, c] : shrinks_) ids.insert(id);
    return ids;
}

const char* to_string(AllocDirective directive)
{
    switch (directive) {
    case AllocDirective::new_allocation: return "new";
    case AllocDirective::extend: return "extend";
    case AllocDirective::release: return "release";
    case AllocDirective::reacquire: return "reacquire";
    case AllocDirective::cancel: return "cancel";
    }
    return "?";
}

// pmix_info_t owns heap data (strings, arrays), so copies go through PMIx's own xfer.
AllocationRequest::AllocationRequest(const AllocationRequest& other)
    : directive(other.directive),
      requester(other.requester),
      alloc_id(other.alloc_id),
      req_id(other.req_id),
      node_list(other.node_list),
      hostfile(other.hostfile),
      num_nodes(other.num_nodes),
      requester_daemon(other.requester_daemon),
      serial(other.serial)
{
    info.resize(other.info.size());
    for (size_t i = 0; i < info.size(); ++i) {
        PMIX_INFO_CONSTRUCT(&info[i]);
        PMIx_Info_xfer(&info[i], &other.info[i]);
    }
}

AllocationRequest& AllocationRequest::operator=(const AllocationRequest& other)
{
    if (this != &other) {
        AllocationRequest copy(other);
        std::swap(directive, copy.directive);
        std::swap(requester, copy.requester);
        std::swap(alloc_id, copy.alloc_id);
        std::swap(req_id, copy.req_id);
        std::swap(node_list, copy.node_list);
        std::swap(hostfile, copy.hostfile);
        std::swap(num_nodes, copy.num_nodes);
        std::swap(info, copy.info);
        std::swap(requester_daemon, copy.requester_daemon);
        std::swap(serial, copy.serial);
    }
    return *this;
}

AllocationRequest::~AllocationRequest()
{
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
}

}  // namespace prte::runtime
