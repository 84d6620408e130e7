// Requests a daemon relayed to the master for one of its processes (PMIx_Spawn,
// PMIx_Allocation_request, PMIX_QUERY_ALLOC_STATUS) whose PMIx callback waits for the master's
// reply. Each is kept, with how to answer it, under an id that its message and the reply carry,
// and is answered exactly once: by the reply, or by an error of this daemon's own when the reply
// can no longer be waited for (issue 30, item 6: before, such a callback waited for ever):
//   - a daemon on the way to the master and back, or the master itself, is lost: the request or
//     its reply may have been lost with it (a reply that does come is then ignored);
//   - the requester ends: nobody waits for the reply any more, but PMIx holds the call until
//     it is answered;
//   - the PMIx server stops (the daemon shuts down).
// There is no time limit: a spawn or a grow legitimately takes as long as its launch does.
//
// One object (the PMIx server's, server.cc) serves every kind of relay, so one id space and one
// sweep cover them all. Progress thread only.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/node.h"
#include "util/status.h"

namespace prte::pmix {

// How a relayed request is answered: the master's reply, or an error of this daemon's own (then
// only `message` says more).
struct RelayAnswer {
    pmix_status_t status = PMIX_SUCCESS;
    std::string value;    // what the request asked for: the spawned namespace, the allocation id, the status text
    std::string message;  // why it was refused or failed
};

class PendingRelays {
  public:
    using Answer = std::function<void(const RelayAnswer& answer)>;
    using Send = std::function<Status(uint64_t id)>;

    // Sends a request with `send`, given the id the master's reply will carry, and keeps `answer`
    // for that reply. `route`: the daemons the request and its reply pass (the master included);
    // `requester`: the process whose request it is. A request `send` could not send is not kept:
    // the status says why and `answer` is not called (the caller answers).
    Status relay(const pmix_proc_t& requester, std::vector<runtime::Rank> route, const Send& send, Answer answer);

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
        pmix_proc_t requester{};
        std::vector<runtime::Rank> route;
        Answer answer;
    };
    size_t fail_where(const std::function<bool(const Record&)>& matches, pmix_status_t status, const std::string& why);

    std::map<uint64_t, Record> records_;
    uint64_t next_id_ = 1;
};

}  // namespace prte::pmix
