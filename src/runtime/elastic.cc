#include "runtime/elastic.h"

#include <pmix.h>

namespace prte::runtime {

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
      num_nodes(other.num_nodes)
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
    }
    return *this;
}

AllocationRequest::~AllocationRequest()
{
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
}

}  // namespace prte::runtime
