// pmi/simple's state, shared by the server's files: one Client per local process, one JobSpace per
// job with processes on this node (pmi_simple_server.h says what each holds and why).
#pragma once

#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <event2/event.h>

#include "mca/pmi/simple/pmi_simple_server.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::pmi::simple {

// Keys the server answers itself.
inline constexpr const char* kProcessMapping = "PMI_process_mapping";
// A spawned job's pre-put keys (PARENT_ROOT_PORT_NAME: where MPICH's children connect to their
// parents) travel to its daemons as app environment entries "<prefix><key>=<value>".
inline constexpr const char* kPreputPrefix = "PRTE_PMI_PREPUT_";
// Asked by MPICH when it looks for failed processes: none that the job goes on without.
inline constexpr const char* kDeadProcesses = "PMI_dead_processes";

const output::VerboseStream& verbose();
inline runtime::Runtime& rt() { return runtime::Runtime::instance(); }
// A value from a process, short enough for a message.
std::string describe(const std::string& text);

struct SimpleServer::Client {
    enum class Phase { connected, initialized, finalized, ended };

    SimpleServer* server = nullptr;
    JobSpace* space = nullptr;
    runtime::Rank rank = 0;
    int fd = -1;
    event* ev = nullptr;
    Decoder decoder;
    Phase phase = Phase::connected;
    int version = 0;        // 1 or 2 once initialised
    bool at_fence = false;  // waits for the barrier's end
    std::string last_command;
    // MPI_Comm_spawn_multiple sends one spawn command per app; the job starts with the last.
    std::vector<runtime::AppContext> spawn_apps;

    explicit Client(size_t max_command) : decoder(max_command) {}
    ~Client() { close(); }
    // Nothing more is read, but the socket stays open until the process ends: one that writes
    // on is not killed by SIGPIPE before the DVM ends its job with the reason.
    void stop_reading()
    {
        if (ev) event_free(ev);
        ev = nullptr;
    }
    void close()
    {
        if (ev) event_free(ev);
        if (fd >= 0) ::close(fd);
        ev = nullptr;
        fd = -1;
    }
};

// What MPI_UNIVERSE_SIZE is for the client's job: the DVM's slots, as PMIX_UNIV_SIZE says
// (runtime::universe_size), read when asked, so that it follows grows and shrinks.
std::string universe(const SimpleServer::Client& client);

struct SimpleServer::JobSpace {
    runtime::JobPtr job;
    int allowed_version = 0;  // 0: PMI-1 or PMI-2 (prun --mpi says which otherwise)
    bool all_local = true;    // every rank on this node: a barrier needs no other daemon
    std::map<runtime::Rank, std::unique_ptr<Client>> clients;
    std::unordered_map<std::string, std::string> kvs;         // what any rank may get
    std::vector<std::pair<std::string, std::string>> unsent;  // put here since the last barrier
    std::unordered_map<std::string, std::string> node_attributes;  // PMI-2 info-putnodeattr
    std::vector<std::pair<runtime::Rank, std::string>> node_attribute_waits;  // info-getnodeattr wait=TRUE
    std::string mapping;  // PMI_process_mapping, computed when first asked
    size_t at_fence = 0;
    bool fence_running = false;
};

}  // namespace prte::pmi::simple
