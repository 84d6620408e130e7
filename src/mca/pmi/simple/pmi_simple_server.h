// pmi/simple: the PMI-1 and PMI-2 wire protocols served to this node's processes, one socket pair
// each (PMI_FD), on the progress thread.
//
// Per job on this node a JobSpace keeps what its processes may get: the job's attributes
// (PMI_process_mapping), everything put by any rank up to the last completed barrier, and, for
// PMI-2, node attributes. A barrier (PMI-1 barrier_in, PMI-2 kvs-fence) completes on this node
// when all its local processes of the job have entered it; what they put since the last one is
// then the node's contribution to a GRPCOMM allgather over the job (skipped when the whole job is
// on this node), whose combined result every rank may then get.
//
// Each process moves through connected -> initialized -> finalized. Anything else (a command out
// of that order, malformed, unknown, too long, a get of a key nobody put) ends its job the way an
// aborted job ends, with a message naming the rank and the command; so does abort itself (with
// the caller's status) and a process that exits normally after init without finalize. Only that
// process's connection is dropped: the daemon and its other jobs carry on.
//
// Files: this class's state (pmi_simple_state.h); connections, dispatch and the key-value space
// (pmi_simple_server.cc); barriers (pmi_simple_fence.cc); the commands of each protocol
// (pmi_simple_pmi1.cc, pmi_simple_pmi2.cc); PMI-1 spawn (pmi_simple_spawn.cc); framing
// (pmi_simple_wire.h); PMI_process_mapping (pmi_simple_mapping.h).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mca/pmi/pmi.h"
#include "mca/pmi/simple/pmi_simple_wire.h"
#include "rml/types.h"
#include "runtime/host_services.h"
#include "runtime/states.h"

namespace prte::pmi::simple {

inline constexpr const char* kComponentName = "simple";

// What get_maxes announces, and what a command may carry.
struct Limits {
    size_t kvsname_max = 256;  // PMI-1's customary values (MPICH's hydra announces the same)
    size_t key_max = 64;
    size_t value_max = 1024;
    size_t command_max = 8192;  // one line (PMI-1) or one length-prefixed command (PMI-2)
};

class SimpleServer final : public Module {
  public:
    explicit SimpleServer(Limits limits);
    ~SimpleServer() override;

    Status prepare(const runtime::JobPtr& job, runtime::Rank rank, Endpoint& out) override;
    void process_ended(const runtime::JobPtr& job, runtime::Rank rank, bool exited_normally) override;
    void finalize() noexcept override;

    struct Client;
    struct JobSpace;

  private:
    static void on_readable(int fd, short what, void* arg);
    void read_from(Client& client);
    void serve(Client& client, const Command& command);
    // One per protocol; each returns having answered, parked the client at a fence, or failed it.
    // Each looks the command up in its protocol's table of handlers (Pmi1, Pmi2: one handler per
    // command, in pmi_simple_pmi1.cc and pmi_simple_pmi2.cc).
    struct Pmi1;
    struct Pmi2;
    friend struct Pmi1;
    friend struct Pmi2;
    using CommandHandler = void (*)(SimpleServer& server, Client& client, const Command& command);
    using CommandTable = std::span<const std::pair<std::string_view, CommandHandler>>;
    void serve_v1(Client& client, const Command& command);
    void serve_v2(Client& client, const Command& command);
    // Runs the command's handler from `table`; fails the client, naming `protocol`, for a command
    // the table does not have.
    void dispatch(CommandTable table, const char* protocol, Client& client, const Command& command);
    // PMI abort (both protocols): the job ends as aborted by this rank, with its exitcode (1 when it
    // gives none, or one that is not a number, which the message says) and its message if any.
    void abort_job(Client& client, const std::string* exitcode, const std::string* message);
    void start(Client& client, const Command& command);
    // PMI-1 spawn (pmi_simple_spawn.cc): a job of the given apps, a child of the caller's.
    void spawn(Client& client, const Command& command);
    // Both protocols' name service (pmi_simple_names.cc): answered once the DVM's store has.
    void serve_name(Client& client, const Command& command, runtime::NameOp op);
    Client* find_client(const std::string& nspace, runtime::Rank rank);
    void put(Client& client, const Command& command, const std::string* key, const std::string* value);
    // True when `named` (a kvsname= or jobid=) is absent or this job's; fails the client otherwise.
    bool names_own_job(Client& client, const std::string& command, const char* attribute, const std::string* named);
    // The value of `key` for this job (the job's attributes first), or nullptr.
    const std::string* lookup(JobSpace& space, const std::string& key);
    void answer(Client& client, std::string_view name, const Attributes& attributes);
    // The client's command cannot be served: its job ends, the connection is dropped.
    void fail(Client& client, std::string_view command, const std::string& why);
    void end_job(const runtime::JobPtr& job, runtime::Rank rank, runtime::ProcState state, const std::string& message);

    void enter_fence(Client& client);
    void start_fence(JobSpace& space);
    void complete_fence(const std::string& nspace, const Status& status, const rml::Payload& combined);

    Limits limits_;
    std::map<std::string, std::unique_ptr<JobSpace>> jobs_;  // by namespace
};

}  // namespace prte::pmi::simple
