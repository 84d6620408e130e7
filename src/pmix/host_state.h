// The PMIx host's state: everything the host keeps while its PMIx server runs, in one object with
// one life. pmix::start() creates it before PMIx_server_init (PMIx's thread may call an upcall at
// once) and pmix::stop() destroys it after PMIx_server_finalize (PMIx's thread is gone then, so
// nothing reads it any more), which makes the host's teardown one ordered sequence (server.cc,
// stop()). Each file of the host reaches its own part through host(); the parts are declared here
// so that one place shows all the host keeps, and each is used by its file alone (named beside it).
//
// Threading: the progress thread owns it all, except the parts read from PMIx's thread too, which
// carry their own mutex (the group records and leaders, the bytes in PMIx's hands).
#pragma once

#include <pmix_common.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pmix/ack_window.h"
#include "pmix/pending_relays.h"
#include "pmix/server.h"
#include "rml/types.h"
#include "runtime/loop_timer.h"
#include "runtime/node.h"

struct event;

namespace prte::pmix::detail {

struct HostState {
    // server.cc: the server itself.
    struct Server {
        bool running = false;
        pmix_proc_t me{};
        std::string uri;
        // Their callbacks are the server's: stop() answers every one before PMIx_server_finalize.
        PendingRelays relays;
        // Stdin forwarded to each process of another node ("nspace:rank") and not yet accepted
        // there, in bytes (remote_services.cc): its records are among `relays`.
        std::map<std::string, size_t> stdin_in_flight;
    };

    // tools.cc: tools that connected, by "nspace.rank", and their order of connection (only the
    // latest are kept: PMIx does not say when a tool leaves).
    struct Tool {
        std::string program;  // basename of argv[0], when the tool said
        pid_t pid = 0;
    };
    struct Tools {
        std::map<std::string, Tool> known;
        std::deque<std::string> order;
        uint32_t next_rank = 1;             // the next tool's rank in the tools' namespace
        int64_t answered_after_hangup = 0;  // prte_test_answer_tools_after_hangup's count so far
    };

    // output_flow.cc: bytes handed to PMIx and not released yet (all jobs; PMIx's thread releases
    // them, hence the mutex), and each acknowledging spawner's window, per job.
    struct Flow {
        std::mutex in_pmix_lock;
        size_t in_pmix = 0;                               // guarded by in_pmix_lock
        std::vector<std::function<void()>> pmix_waiters;  // guarded by in_pmix_lock
        std::map<std::string, AckWindow> windows;
    };

    // output_hold.cc: a job's output held for the spawner that will pull it, by job (tree root).
    struct HeldChunk {
        std::string nspace;  // the job that wrote it (a descendant's output joins its root's hold)
        runtime::Rank rank;
        pmix_iof_channel_t channel;
        std::string bytes;
    };
    struct Hold {
        std::vector<HeldChunk> chunks;
        size_t bytes = 0;
        std::vector<std::function<void()>> on_release;
        // Releases the output if its spawner has not pulled it in time; armed once the job has
        // ended, and cancelled with the hold.
        runtime::LoopTimer limit;
    };
    struct Holds {
        std::map<std::string, Hold> by_job;
    };

    // output_relay.cc: a daemon's windows towards the master, per job; the master's count of what
    // each daemon forwarded, per job and daemon.
    struct Received {
        uint64_t received = 0;
        uint64_t acked = 0;
        bool ack_waiting = false;  // an acknowledgement waits for the job's backlog to drain
    };
    struct Relay {
        std::map<std::string, AckWindow> forwarded;
        std::map<std::pair<std::string, runtime::Rank>, Received> received;
    };

    // publish.cc: the master's store of published data and the lookups waiting for it.
    struct Published {
        enum class Op : uint8_t { publish = 1, lookup = 2, unpublish = 3 };
        // What a lookup answers: per key found, the publisher and the entry (one pmix_info_t, packed).
        struct Found {
            pmix_proc_t publisher{};
            rml::Payload entry;
        };
        using Answer = std::function<void(pmix_status_t, const std::vector<Found>&)>;
        struct Request {
            Op op = Op::publish;
            pmix_proc_t requester{};
            rml::Payload info;              // publish: the data; lookup/unpublish: directives
            std::vector<std::string> keys;  // lookup/unpublish
        };
        struct Entry {
            pmix_proc_t publisher{};
            rml::Payload entry;
        };
        struct Waiting {
            Request request;
            Answer answer;
        };
        std::map<std::string, Entry> entries;
        std::vector<Waiting> waiting;
    };

    // groups/records.cc: groups constructed with PMIX_GROUP_NOTIFY_TERMINATION or
    // PMIX_GROUP_OPTIONAL, by id; read from PMIx's thread too.
    struct GroupRecord {
        std::vector<pmix_proc_t> members;
        std::set<std::string> local_jobs;  // those with members here; the record goes with the last
        bool notify_termination = false;
        bool optional = false;
        std::set<std::string> lost_told;  // members lost with their node, told already ("nspace:rank")
    };
    struct GroupRecords {
        std::mutex lock;
        std::map<std::string, GroupRecord> by_id;  // guarded by lock
    };

    // groups/invitations.cc: invitations under way, by group id.
    struct Invitation {
        pmix_proc_t leader{};
        std::vector<pmix_proc_t> invitees;  // the leader left out
        std::vector<pmix_proc_t> answered;  // those whose accept or decline was seen
    };

    // groups/leaders.cc: declared leaders of constructs under way, by group; read from PMIx's
    // thread too.
    struct Leader {
        pmix_proc_t proc{};
        std::vector<pmix_proc_t> members;  // on the leader's own daemon only: whom to tell of its end
    };
    struct Leaders {
        std::mutex lock;
        std::map<std::string, Leader> by_group;  // guarded by lock
    };

    // spawner_watch.cc (master): spawners watched for their end, by pid. Their pidfds and events
    // are released at teardown.
    struct SpawnerWatch {
        int fd = -1;
        event* ev = nullptr;
        std::set<std::string> jobs;
    };
    struct SpawnerWatches {
        std::map<pid_t, SpawnerWatch> by_pid;
        SpawnerWatches() = default;
        SpawnerWatches(const SpawnerWatches&) = delete;
        SpawnerWatches& operator=(const SpawnerWatches&) = delete;
        ~SpawnerWatches();
    };

    // Declared in the order of their use from the server outwards, so destroyed the other way:
    // the spawner watches and held output (with their timers) first, the server's record last.
    Server server;
    Tools tools;
    // events.cc: on a daemon, where its processes' output goes (to the master).
    OutputForwarder output_forwarder;
    Flow flow;
    Relay relay;
    // allocation.cc: the master's reason of each requester's last refusal, until it asks.
    std::map<std::string, std::string> allocation_refusals;
    Published published;
    GroupRecords group_records;
    // groups/directory.cc: every group with a member here, by id (progress thread only).
    std::map<std::string, std::vector<pmix_proc_t>> group_directory;
    std::map<std::string, Invitation> invitations;
    Leaders leaders;
    // process_ended.cc: the jobs this daemon was told to kill, until they are deregistered.
    std::set<std::string> killed_jobs;
    Holds holds;
    SpawnerWatches spawner_watches;
};

// The host's state; only between pmix::start() and pmix::stop() (server.cc, its one owner).
HostState& host();

}  // namespace prte::pmix::detail
