#include "mca/pmi/simple/pmi_simple_server.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include <event2/event.h>
#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/pmi/base/pmi_base.h"
#include "mca/pmi/simple/pmi_simple_mapping.h"
#include "rml/buffer.h"
#include "runtime/runtime.h"

namespace prte::pmi::simple {
namespace {

using runtime::ProcState;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

// Told apart from a PMIx fence over the same job (grpcomm counts each signature's collectives).
constexpr const char* kFenceId = "pmi-fence";
// Keys the server answers itself.
constexpr const char* kProcessMapping = "PMI_process_mapping";
// Asked by MPICH when it looks for failed processes: none that the job goes on without.
constexpr const char* kDeadProcesses = "PMI_dead_processes";

std::string describe(const std::string& text)
{
    return text.size() <= 80 ? text : text.substr(0, 80) + "...";
}

}  // namespace

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

SimpleServer::SimpleServer(Limits limits) : limits_(limits) {}

SimpleServer::~SimpleServer() { finalize(); }

void SimpleServer::finalize() noexcept { jobs_.clear(); }

Status SimpleServer::prepare(const runtime::JobPtr& job, runtime::Rank rank, Endpoint& out)
{
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        return {Errc::out_of_resource, fmt::format("cannot create its PMI socket: {}", strerror(errno))};
    }
    int ours = fds[0], theirs = fds[1];
    // Kept above stdio: the launcher puts the child's pipes on 0..2 (a daemon started with them
    // closed could have had this socket there).
    if (theirs < 3) {
        int moved = ::fcntl(theirs, F_DUPFD_CLOEXEC, 3);
        ::close(theirs);
        theirs = moved;
    }
    ::fcntl(ours, F_SETFL, ::fcntl(ours, F_GETFL) | O_NONBLOCK);
    auto& slot = jobs_[job->nspace];
    if (!slot) {
        slot = std::make_unique<JobSpace>();
        slot->job = job;
        slot->allowed_version = job->mpi == runtime::MpiInterface::pmi1 ? 1 : job->mpi == runtime::MpiInterface::pmi2 ? 2 : 0;
        for (const auto& p : job->procs) {
            if (!p->node || p->node->daemon != rt().identity().rank) slot->all_local = false;
        }
    }
    auto client = std::make_unique<Client>(limits_.command_max);
    client->server = this;
    client->space = slot.get();
    client->rank = rank;
    client->fd = ours;
    client->ev = event_new(rt().loop().base(), ours, EV_READ | EV_PERSIST, &SimpleServer::on_readable, client.get());
    if (theirs < 0 || !client->ev || event_add(client->ev, nullptr) != 0) {
        if (theirs >= 0) ::close(theirs);
        return {Errc::out_of_resource, "cannot watch its PMI socket"};
    }
    slot->clients[rank] = std::move(client);
    out.child_fd = theirs;
    out.env = {"PMI_FD=" + std::to_string(theirs), "PMI_RANK=" + std::to_string(rank),
               "PMI_SIZE=" + std::to_string(job->num_procs())};
    verbose()(10, "job {} rank {}: PMI socket {} (the process's {})", job->nspace, rank, ours, theirs);
    return {};
}

void SimpleServer::process_ended(const runtime::JobPtr& job, runtime::Rank rank, bool exited_normally)
{
    auto it = jobs_.find(job->nspace);
    if (it == jobs_.end()) return;
    JobSpace& space = *it->second;
    auto c = space.clients.find(rank);
    if (c == space.clients.end()) return;
    Client& client = *c->second;
    if (client.phase == Client::Phase::initialized && exited_normally) {
        end_job(job, rank, ProcState::term_wo_sync,
                fmt::format("rank {} of job {} on node {} exited without finalizing PMI (its last PMI command was "
                            "'{}')",
                            rank, job->nspace, rt().identity().node_name, client.last_command));
    }
    if (client.at_fence && space.at_fence > 0) --space.at_fence;
    space.clients.erase(c);
    if (space.clients.empty()) jobs_.erase(it);  // a barrier still under way finds no job and is dropped
}

void SimpleServer::on_readable(int, short, void* arg)
{
    auto* client = static_cast<Client*>(arg);
    client->server->read_from(*client);
}

void SimpleServer::read_from(Client& client)
{
    std::array<char, 16384> buffer;
    ssize_t n = ::read(client.fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        // The process closed it or exited; whether it had finalized is judged when it is reaped.
        verbose()(10, "job {} rank {}: PMI socket closed", client.space->job->nspace, client.rank);
        client.close();
        return;
    }
    client.decoder.feed(buffer.data(), static_cast<size_t>(n));
    while (client.fd >= 0 && client.phase != Client::Phase::ended) {
        Command command;
        std::string error;
        Decoder::Result r = client.decoder.next(command, error);
        if (r == Decoder::Result::need_more) return;
        if (r == Decoder::Result::malformed) {
            fail(client, "", error);
            return;
        }
        serve(client, command);
    }
}

void SimpleServer::serve(Client& client, const Command& command)
{
    verbose()(20, "job {} rank {}: PMI-{} {}", client.space->job->nspace, client.rank,
              client.version == 0 ? 1 : client.version, command.name);
    client.last_command = command.name;
    if (command.name == "init") {
        start(client, command);
        return;
    }
    if (client.phase == Client::Phase::connected) {
        fail(client, command.name, "it came before init");
        return;
    }
    if (client.phase == Client::Phase::finalized) {
        fail(client, command.name, "it came after finalize");
        return;
    }
    if (client.at_fence) {
        fail(client, command.name, "it came while the process waited in a barrier");
        return;
    }
    if (client.version == 1) {
        serve_v1(client, command);
    } else {
        serve_v2(client, command);
    }
}

void SimpleServer::start(Client& client, const Command& command)
{
    if (client.phase != Client::Phase::connected) {
        fail(client, "init", "the process had initialised PMI already");
        return;
    }
    const std::string* v = command.find("pmi_version");
    const std::string* sub = command.find("pmi_subversion");
    if (!v || !sub) {
        fail(client, "init", "it names no pmi_version and pmi_subversion");
        return;
    }
    int version = *v == "1" ? 1 : *v == "2" ? 2 : 0;
    if (version == 0) {
        fail(client, "init", fmt::format("PMI version {}.{} is not served (1.1 and 2.0 are)", describe(*v), describe(*sub)));
        return;
    }
    int allowed = client.space->allowed_version;
    if (allowed != 0 && allowed != version) {
        fail(client, "init", fmt::format("the job was started with --mpi pmi{}, and the process speaks PMI-{}", allowed,
                                         version));
        return;
    }
    client.version = version;
    client.phase = Client::Phase::initialized;
    if (version == 1) {
        answer(client, "response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}});
        return;
    }
    // PMI-2 starts in the PMI-1 framing and continues in its own.
    answer(client, "response_to_init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}, {"rc", "0"}});
    client.decoder.set_wire(Wire::v2);
}

void SimpleServer::serve_v1(Client& client, const Command& command)
{
    const runtime::JobPtr& job = client.space->job;
    const std::string& name = command.name;
    if (name == "get_maxes") {
        answer(client, "maxes",
               {{"kvsname_max", std::to_string(limits_.kvsname_max)}, {"keylen_max", std::to_string(limits_.key_max)},
                {"vallen_max", std::to_string(limits_.value_max)}, {"rc", "0"}});
    } else if (name == "get_appnum") {
        runtime::Proc* p = job->proc(client.rank);
        answer(client, "appnum", {{"appnum", std::to_string(p ? p->app_index : 0)}, {"rc", "0"}});
    } else if (name == "get_my_kvsname") {
        answer(client, "my_kvsname", {{"kvsname", job->nspace}, {"rc", "0"}});
    } else if (name == "get_universe_size") {
        answer(client, "universe_size", {{"size", std::to_string(job->num_procs())}, {"rc", "0"}});
    } else if (name == "put") {
        const std::string* kvsname = command.find("kvsname");
        if (kvsname && *kvsname != job->nspace) {
            fail(client, name, fmt::format("kvsname '{}' is not this job's ({})", describe(*kvsname), job->nspace));
            return;
        }
        put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) answer(client, "put_result", {{"rc", "0"}});
    } else if (name == "get") {
        const std::string* kvsname = command.find("kvsname");
        const std::string* key = command.find("key");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        if (kvsname && *kvsname != job->nspace) {
            fail(client, name, fmt::format("kvsname '{}' is not this job's ({})", describe(*kvsname), job->nspace));
            return;
        }
        if (const std::string* value = lookup(*client.space, *key)) {
            answer(client, "get_result", {{"rc", "0"}, {"value", *value}});
            return;
        }
        answer(client, "get_result", {{"rc", "-1"}, {"msg", "key_" + *key + "_not_found"}});
        fail(client, name, fmt::format("key '{}' was never put (by any rank, before the last barrier)", describe(*key)));
    } else if (name == "barrier_in") {
        enter_fence(client);
    } else if (name == "finalize") {
        client.phase = Client::Phase::finalized;
        answer(client, "finalize_ack", {});
    } else if (name == "abort") {
        const std::string* code = command.find("exitcode");
        int status = code ? std::atoi(code->c_str()) : 1;
        if (runtime::Proc* p = job->proc(client.rank)) p->exit_code = status;
        client.phase = Client::Phase::ended;
        end_job(job, client.rank, ProcState::called_abort,
                fmt::format("rank {} of job {} on node {} called PMI abort with status {}", client.rank, job->nspace,
                            rt().identity().node_name, status));
    } else if (name == "publish_name" || name == "unpublish_name" || name == "lookup_name") {
        // Not served: the MPI call fails in the program, which decides what to do.
        std::string reply = name.substr(0, name.find('_')) + "_result";
        answer(client, reply, {{"rc", "-1"}, {"msg", "name_service_not_supported_by_prte"}});
    } else if (name == "spawn") {
        answer(client, "spawn_result", {{"rc", "-1"}, {"errmsg", "spawn_is_not_supported_by_prte_for_PMI_programs"}});
    } else {
        fail(client, name, "it is not a PMI-1 command");
    }
}

void SimpleServer::serve_v2(Client& client, const Command& command)
{
    const runtime::JobPtr& job = client.space->job;
    const std::string& name = command.name;
    auto found = [](const std::string* value) -> Attributes {
        if (!value) return {{"rc", "0"}, {"found", "FALSE"}};
        return {{"rc", "0"}, {"found", "TRUE"}, {"value", *value}};
    };
    if (name == "fullinit") {
        const std::string* pmirank = command.find("pmirank");
        if (pmirank && *pmirank != std::to_string(client.rank)) {
            fail(client, name, fmt::format("pmirank {} is not this process's rank", describe(*pmirank)));
            return;
        }
        runtime::Proc* p = job->proc(client.rank);
        answer(client, "fullinit-response",
               {{"rc", "0"}, {"pmi-version", "2"}, {"pmi-subversion", "0"}, {"rank", std::to_string(client.rank)},
                {"size", std::to_string(job->num_procs())}, {"appnum", std::to_string(p ? p->app_index : 0)},
                {"debugged", "FALSE"}, {"pmiverbose", "FALSE"}});
    } else if (name == "job-getid") {
        answer(client, "job-getid-response", {{"rc", "0"}, {"jobid", job->nspace}});
    } else if (name == "info-getjobattr") {
        const std::string* key = command.find("key");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        // A job attribute is optional by nature: one the DVM does not know is not found, no error.
        std::string universe = std::to_string(job->num_procs());
        const std::string* value = *key == "universeSize" ? &universe : *key == kProcessMapping ? lookup(*client.space, *key) : nullptr;
        answer(client, "info-getjobattr-response", found(value));
    } else if (name == "kvs-put") {
        put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) answer(client, "kvs-put-response", {{"rc", "0"}});
    } else if (name == "kvs-get") {
        const std::string* key = command.find("key");
        const std::string* jobid = command.find("jobid");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        if (jobid && !jobid->empty() && *jobid != job->nspace) {
            fail(client, name, fmt::format("jobid '{}' is not this job's ({})", describe(*jobid), job->nspace));
            return;
        }
        const std::string* value = lookup(*client.space, *key);
        answer(client, "kvs-get-response", found(value));
        if (!value) fail(client, name, fmt::format("key '{}' was never put (by any rank, before the last fence)", describe(*key)));
    } else if (name == "kvs-fence") {
        enter_fence(client);
    } else if (name == "info-putnodeattr") {
        const std::string* key = command.find("key");
        const std::string* value = command.find("value");
        if (!key || !value) {
            fail(client, name, "it needs a key and a value");
            return;
        }
        if (key->size() > limits_.key_max || value->size() > limits_.value_max) {
            fail(client, name, fmt::format("key or value too long (at most {} and {} bytes)", limits_.key_max,
                                           limits_.value_max));
            return;
        }
        JobSpace& space = *client.space;
        space.node_attributes[*key] = *value;
        answer(client, "info-putnodeattr-response", {{"rc", "0"}});
        // Local peers that asked to wait for it.
        auto& waits = space.node_attribute_waits;
        for (auto it = waits.begin(); it != waits.end();) {
            auto c = it->second == *key ? space.clients.find(it->first) : space.clients.end();
            if (c != space.clients.end() && c->second->fd >= 0) {
                answer(*c->second, "info-getnodeattr-response", found(value));
            }
            it = it->second == *key ? waits.erase(it) : it + 1;
        }
    } else if (name == "info-getnodeattr") {
        const std::string* key = command.find("key");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        JobSpace& space = *client.space;
        auto it = space.node_attributes.find(*key);
        const std::string* wait = command.find("wait");
        if (it == space.node_attributes.end() && wait && *wait == "TRUE") {
            space.node_attribute_waits.emplace_back(client.rank, *key);
            return;
        }
        answer(client, "info-getnodeattr-response", found(it == space.node_attributes.end() ? nullptr : &it->second));
    } else if (name == "finalize") {
        client.phase = Client::Phase::finalized;
        answer(client, "finalize-response", {{"rc", "0"}});
    } else if (name == "abort") {
        const std::string* code = command.find("exitcode");
        const std::string* message = command.find("message");
        if (!message) message = command.find("msg");  // Slurm's libpmi2 names it so
        int status = code ? std::atoi(code->c_str()) : 1;
        if (runtime::Proc* p = job->proc(client.rank)) p->exit_code = status;
        client.phase = Client::Phase::ended;
        end_job(job, client.rank, ProcState::called_abort,
                fmt::format("rank {} of job {} on node {} called PMI abort with status {}{}{}", client.rank, job->nspace,
                            rt().identity().node_name, status, message && !message->empty() ? ": " : "",
                            message ? describe(*message) : std::string()));
    } else if (name == "name-publish" || name == "name-unpublish" || name == "name-lookup" || name == "spawn") {
        answer(client, name + "-response", {{"rc", "-1"}, {"errmsg", "not supported by prte for PMI programs"}});
    } else {
        fail(client, name, "it is not a PMI-2 command");
    }
}

void SimpleServer::put(Client& client, const Command& command, const std::string* key, const std::string* value)
{
    if (!key || !value) {
        fail(client, command.name, "it needs a key and a value");
        return;
    }
    if (key->empty() || key->size() > limits_.key_max) {
        fail(client, command.name,
             fmt::format("key '{}' of {} bytes (1 to {} allowed)", describe(*key), key->size(), limits_.key_max));
        return;
    }
    if (value->size() > limits_.value_max) {
        fail(client, command.name, fmt::format("the value of key '{}' has {} bytes (at most {})", describe(*key),
                                               value->size(), limits_.value_max));
        return;
    }
    if (*key == kProcessMapping) {
        fail(client, command.name, fmt::format("key '{}' is the DVM's", *key));
        return;
    }
    JobSpace& space = *client.space;
    space.kvs[*key] = *value;  // this node sees it at once; the others after the next barrier
    space.unsent.emplace_back(*key, *value);
}

const std::string* SimpleServer::lookup(JobSpace& space, const std::string& key)
{
    if (key == kProcessMapping) {
        if (space.mapping.empty()) {
            std::vector<std::string> nodes;
            for (const auto& p : space.job->procs) nodes.push_back(p->node ? p->node->name : std::string("?"));
            space.mapping = process_mapping(nodes);
        }
        return &space.mapping;
    }
    auto it = space.kvs.find(key);
    if (it != space.kvs.end()) return &it->second;
    if (key == kDeadProcesses) {
        static const std::string none;
        return &none;
    }
    return nullptr;
}

void SimpleServer::answer(Client& client, std::string_view name, const Attributes& attributes)
{
    if (client.fd < 0) return;
    std::string bytes = encode(client.decoder.wire(), name, attributes);
    // Answers are small and the process reads each before it sends again: the socket's buffer
    // holds it. One that does not fit means a process that does not read its answers.
    ssize_t n;
    do {
        n = ::send(client.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(bytes.size())) {
        verbose()(1, "job {} rank {}: cannot send its PMI answer ({}); dropping its connection",
                  client.space->job->nspace, client.rank, n < 0 ? strerror(errno) : "short write");
        client.close();
    }
}

void SimpleServer::fail(Client& client, std::string_view command, const std::string& why)
{
    const runtime::JobPtr& job = client.space->job;
    std::string what = command.empty()
                           ? fmt::format("malformed PMI command{}: {}",
                                         client.last_command.empty() ? "" : " after '" + client.last_command + "'", why)
                           : fmt::format("PMI command '{}' refused: {}", describe(std::string(command)), why);
    std::string message = fmt::format("rank {} of job {} on node {}: {}", client.rank, job->nspace,
                                      rt().identity().node_name, what);
    client.phase = Client::Phase::ended;
    client.stop_reading();
    end_job(job, client.rank, ProcState::called_abort, message);
}

void SimpleServer::end_job(const runtime::JobPtr& job, runtime::Rank rank, ProcState state, const std::string& message)
{
    verbose()(1, "{}", message);
    if (!job->proc(rank)) return;
    if (!job->aborting && job->abort_message.empty()) job->abort_message = message;
    rt().state().activate_proc_state(job, rank, state);
}

void SimpleServer::enter_fence(Client& client)
{
    JobSpace& space = *client.space;
    client.at_fence = true;
    ++space.at_fence;
    if (space.at_fence < space.clients.size()) return;
    start_fence(space);
}

void SimpleServer::start_fence(JobSpace& space)
{
    const std::string nspace = space.job->nspace;
    rml::Writer w;
    w.u32(static_cast<uint32_t>(space.unsent.size()));
    for (const auto& [k, v] : space.unsent) w.str(k).str(v);
    space.unsent.clear();
    space.fence_running = true;
    verbose()(10, "job {}: PMI barrier, {} local process(es){}", nspace, space.clients.size(),
              space.all_local ? "" : ", with the other daemons");
    if (space.all_local) {
        complete_fence(nspace, {}, {});  // everything is in the kvs already
        return;
    }
    grpcomm::Module* module = grpcomm::base::module();
    if (!module) {
        complete_fence(nspace, {Errc::not_supported, "a barrier across nodes needs a grpcomm module, and none is selected"}, {});
        return;
    }
    grpcomm::Signature signature;
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace.c_str(), PMIX_RANK_WILDCARD);
    signature.procs = {all};
    signature.id = kFenceId;
    Status st = module->allgather(signature, w.take(),
                                  [this, nspace](const Status& s, const rml::Payload& combined, uint64_t,
                                                 const pmix_proc_t*, const std::vector<pmix_proc_t>&) {
                                      complete_fence(nspace, s, combined);
                                  });
    if (!st) complete_fence(nspace, st, {});
}

void SimpleServer::complete_fence(const std::string& nspace, const Status& status, const rml::Payload& combined)
{
    auto it = jobs_.find(nspace);
    if (it == jobs_.end() || !it->second->fence_running) return;  // its processes are gone
    JobSpace& space = *it->second;
    space.fence_running = false;
    if (!status) {
        verbose()(1, "job {}: PMI barrier failed: {}", nspace, status.message());
        for (auto& [rank, client] : space.clients) {
            if (client->at_fence) {
                fail(*client, client->version == 2 ? "kvs-fence" : "barrier_in", "the barrier failed: " + status.message());
                break;  // one message for the job
            }
        }
        return;
    }
    rml::Reader r(combined, "PMI barrier data");
    while (r.ok() && !r.at_end()) {
        uint32_t n = r.count("PMI puts", 2);
        for (uint32_t i = 0; i < n && r.ok(); ++i) {
            std::string key = r.str();
            std::string value = r.str();
            if (r.ok()) space.kvs[key] = std::move(value);
        }
    }
    if (!r.ok()) verbose()(1, "job {}: PMI barrier data dropped: {}", nspace, r.error());
    space.at_fence = 0;
    for (auto& [rank, client] : space.clients) {
        if (!client->at_fence) continue;
        client->at_fence = false;
        if (client->version == 2) {
            answer(*client, "kvs-fence-response", {{"rc", "0"}});
        } else {
            answer(*client, "barrier_out", {{"rc", "0"}});
        }
    }
}

}  // namespace prte::pmi::simple
