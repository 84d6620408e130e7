// Requests a daemon relayed to another daemon whose answer something here waits for: to the master
// for one of its processes (PMIx_Spawn, PMIx_Allocation_request, PMIX_QUERY_ALLOC_STATUS,
// PMIx_Publish/Lookup/Unpublish), and to the daemon of another node (a direct modex request, stdin
// for a process there). Each is kept, with how to answer it, under an id that its message and the
// reply carry, and is answered exactly once: by the reply, or by an error of this daemon's own
// when the reply can no longer be waited for (issue 30, item 6: before, such a callback waited for
// ever):
//   - the daemon it was sent to, or a daemon on the way there and back, is lost: the request or
//     its reply may have been lost with it (a reply that does come is then ignored);
//   - the requester ends: nobody waits for the reply any more, but PMIx holds the call until
//     it is answered;
//   - the PMIx server stops (the daemon shuts down).
// There is no time limit: a spawn or a grow legitimately takes as long as its launch does, and a
// lookup with PMIX_WAIT as long as the publish it waits for takes to come.
//
// One object (the PMIx server's, server.cc) serves every kind of relay, so one id space and one
// sweep cover them all. Progress thread only.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rml/radix_tree.h"
#include "runtime/node.h"
#include "util/status.h"

namespace prte::pmix {

// How a relayed request is answered: the master's reply, or an error of this daemon's own (then
// only `message` says more).
struct RelayAnswer {
    pmix_status_t status = PMIX_SUCCESS;
    std::string value;    // what the request asked for: the spawned namespace, the allocation id, the status text
    std::string message;  // why it was refused or failed
    std::vector<uint8_t> data;  // an answer that is bytes: the entries a lookup found, a direct modex's data
};

// The daemons a message from tree.self() to `target` and its reply pass, `target` included: up the
// routing tree to the nearest common ancestor, then down to the target (rml::RadixTree::next_hop
// routes along this path). For a target the tree does not hold (departed, out of range): our
// ancestors and the target.
std::vector<runtime::Rank> route_to(const rml::RadixTree& tree, runtime::Rank target);

class PendingRelays {
  public:
    using Answer = std::function<void(const RelayAnswer& answer)>;
    using Send = std::function<Status(uint64_t id)>;

    // Sends a request with `send`, given the id the master's reply will carry, and keeps `answer`
    // for that reply. `route`: the daemons the request and its reply pass (the master included);
    // `requester`: the process whose request it is, when it is one process of this node (a direct
    // modex request or stdin has none). A request `send` could not send is not kept: the status
    // says why and `answer` is not called (the caller answers).
    Status relay(const std::optional<pmix_proc_t>& requester, std::vector<runtime::Rank> route, const Send& send,
                 Answer answer);

    // The master's reply to `id`: answered and forgotten. False when `id` is not waiting (a reply
    // that comes after the request was failed is ignored).
    bool answer(uint64_t id, const RelayAnswer& reply);

    // Error answers, each returning how many requests it answered. Every record is dropped before
    // its answer runs, so nothing is answered twice.
    // Those whose route passes any of `lost`.
    size_t fail_routed_through(const std::vector<runtime::Rank>& lost, pmix_status_t status, const std::string& why);
    // Those of `requester`.
    size_t fail_requester(const pmix_proc_t& requester, pmix_status_t status, const std::string& why);
    // All of them.
    size_t fail_all(pmix_status_t status, const std::string& why);

    size_t size() const { return records_.size(); }

  private:
    struct Record {
        std::optional<pmix_proc_t> requester;
        std::vector<runtime::Rank> route;
        Answer answer;
    };
    size_t fail_where(const std::function<bool(const Record&)>& matches, pmix_status_t status, const std::string& why);

    std::map<uint64_t, Record> records_;
    uint64_t next_id_ = 1;
};

}  // namespace prte::pmix
