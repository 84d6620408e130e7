#include "mca/pmi/simple/pmi_simple_server.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include <fmt/format.h>

#include "mca/pmi/base/pmi_base.h"
#include "mca/pmi/simple/pmi_simple_mapping.h"
#include "mca/pmi/simple/pmi_simple_state.h"

namespace prte::pmi::simple {

using runtime::ProcState;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

std::string describe(const std::string& text) { return text.size() <= 80 ? text : text.substr(0, 80) + "..."; }

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
        slot->allowed_version = job->mpi == runtime::MpiInterface::pmi1   ? 1
                                : job->mpi == runtime::MpiInterface::pmi2 ? 2
                                                                          : 0;
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
        if (slot->clients.empty()) jobs_.erase(job->nspace);  // `client` closes our end
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

std::string universe(const SimpleServer::Client& client)
{
    return std::to_string(runtime::universe_size(std::as_const(rt().pool()), client.space->job->num_procs()));
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
    // Put before the job existed, by the process that spawned it (pmi_simple_spawn.cc).
    const std::string entry = kPreputPrefix + key + "=";
    for (const auto& app : space.job->apps) {
        for (const auto& e : app.env) {
            if (e.compare(0, entry.size(), entry) == 0) return &space.kvs.emplace(key, e.substr(entry.size())).first->second;
        }
    }
    if (key == kDeadProcesses) {
        static const std::string none;
        return &none;
    }
    return nullptr;
}

bool SimpleServer::names_own_job(Client& client, const std::string& command, const char* attribute,
                                 const std::string* named)
{
    const std::string& nspace = client.space->job->nspace;
    if (!named || named->empty() || *named == nspace) return true;  // absent or empty: the caller's own
    fail(client, command, fmt::format("{} '{}' is not this job's ({})", attribute, describe(*named), nspace));
    return false;
}

SimpleServer::Client* SimpleServer::find_client(const std::string& nspace, runtime::Rank rank)
{
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return nullptr;
    auto c = it->second->clients.find(rank);
    return c == it->second->clients.end() ? nullptr : c->second.get();
}

void SimpleServer::answer(Client& client, std::string_view name, const Attributes& attributes)
{
    if (client.fd < 0) return;
    std::string bytes = encode(client.decoder.wire(), name, attributes);
    // The conversation's other half, at the level of the commands (serve): what the process was
    // told, as it reads it (cut short: a kvs value can be a long business card).
    if (verbose().enabled(20)) {
        constexpr size_t kShown = 200;
        std::string shown = bytes.size() > kShown ? bytes.substr(0, kShown) + "..." : bytes;
        while (!shown.empty() && shown.back() == '\n') shown.pop_back();
        verbose()(20, "job {} rank {}: PMI-{} answer {}", client.space->job->nspace, client.rank,
                  client.version == 0 ? 1 : client.version, shown);
    }
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

}  // namespace prte::pmi::simple
