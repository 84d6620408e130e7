// pmi/simple: the PMI-1 commands, after init (MPICH's simple PMI client; the Flux RFC 13 lists
// them). One handler per command, found by name in one table: a command is added by writing its
// handler and its table row. Also what both protocols share: the lookup in a table, the abort.
#include <array>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"
#include "util/strings.h"

namespace prte::pmi::simple {

using runtime::ProcState;

// The handlers: a friend of SimpleServer, since each answers, parks or fails the client through it.
struct SimpleServer::Pmi1 {
    using Handler = CommandHandler;

    static void get_maxes(SimpleServer& server, Client& client, const Command&)
    {
        const Limits& limits = server.limits_;
        server.answer(client, "maxes",
                      {{"kvsname_max", std::to_string(limits.kvsname_max)}, {"keylen_max", std::to_string(limits.key_max)},
                       {"vallen_max", std::to_string(limits.value_max)}, {"rc", "0"}});
    }

    static void get_appnum(SimpleServer& server, Client& client, const Command&)
    {
        runtime::Proc* p = client.space->job->proc(client.rank);
        server.answer(client, "appnum", {{"appnum", std::to_string(p ? p->app_index : 0)}, {"rc", "0"}});
    }

    static void get_my_kvsname(SimpleServer& server, Client& client, const Command&)
    {
        server.answer(client, "my_kvsname", {{"kvsname", client.space->job->nspace}, {"rc", "0"}});
    }

    static void get_universe_size(SimpleServer& server, Client& client, const Command&)
    {
        server.answer(client, "universe_size", {{"size", universe(client)}, {"rc", "0"}});
    }

    static void put(SimpleServer& server, Client& client, const Command& command)
    {
        if (!server.names_own_job(client, command.name, "kvsname", command.find("kvsname"))) return;
        server.put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) server.answer(client, "put_result", {{"rc", "0"}});
    }

    static void get(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* key = command.find("key");
        if (!key) {
            server.fail(client, command.name, "it names no key");
            return;
        }
        if (!server.names_own_job(client, command.name, "kvsname", command.find("kvsname"))) return;
        if (const std::string* value = server.lookup(*client.space, *key)) {
            server.answer(client, "get_result", {{"rc", "0"}, {"value", *value}});
            return;
        }
        server.answer(client, "get_result", {{"rc", "-1"}, {"msg", "key_" + *key + "_not_found"}});
        server.fail(client, command.name,
                    fmt::format("key '{}' was never put (by any rank, before the last barrier)", describe(*key)));
    }

    static void barrier_in(SimpleServer& server, Client& client, const Command&) { server.enter_fence(client); }

    static void finalize(SimpleServer& server, Client& client, const Command&)
    {
        client.phase = Client::Phase::finalized;
        server.answer(client, "finalize_ack", {});
    }

    static void abort(SimpleServer& server, Client& client, const Command& command)
    {
        server.abort_job(client, command.find("exitcode"), nullptr);
    }

    static void publish_name(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::publish);
    }
    static void unpublish_name(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::unpublish);
    }
    static void lookup_name(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::lookup);
    }

    static void spawn(SimpleServer& server, Client& client, const Command& command) { server.spawn(client, command); }

    static constexpr std::array<std::pair<std::string_view, Handler>, 13> kCommands{{
        {"get_maxes", get_maxes},
        {"get_appnum", get_appnum},
        {"get_my_kvsname", get_my_kvsname},
        {"get_universe_size", get_universe_size},
        {"put", put},
        {"get", get},
        {"barrier_in", barrier_in},
        {"finalize", finalize},
        {"abort", abort},
        {"publish_name", publish_name},
        {"unpublish_name", unpublish_name},
        {"lookup_name", lookup_name},
        {"spawn", spawn},
    }};
};

void SimpleServer::serve_v1(Client& client, const Command& command)
{
    dispatch(Pmi1::kCommands, "PMI-1", client, command);
}

void SimpleServer::dispatch(CommandTable table, const char* protocol, Client& client, const Command& command)
{
    for (const auto& [name, handler] : table) {
        if (name == command.name) {
            handler(*this, client, command);
            return;
        }
    }
    fail(client, command.name, fmt::format("it is not a {} command", protocol));
}

void SimpleServer::abort_job(Client& client, const std::string* exitcode, const std::string* message)
{
    const runtime::JobPtr& job = client.space->job;
    // The status the program asked for; one that is not a number is reported, and the job still
    // ends as aborted (with 1), never as a success read from garbage.
    int status = 1;
    std::string unreadable;
    if (exitcode) {
        std::optional<int64_t> parsed = util::parse_int(*exitcode);
        if (parsed && *parsed >= std::numeric_limits<int>::min() && *parsed <= std::numeric_limits<int>::max()) {
            status = static_cast<int>(*parsed);
        } else {
            unreadable = fmt::format(" (its exitcode '{}' is not a number)", describe(*exitcode));
        }
    }
    if (runtime::Proc* p = job->proc(client.rank)) p->exit_code = status;
    client.phase = Client::Phase::ended;
    end_job(job, client.rank, ProcState::called_abort,
            fmt::format("rank {} of job {} on node {} called PMI abort with status {}{}{}{}", client.rank, job->nspace,
                        rt().identity().node_name, status, unreadable, message && !message->empty() ? ": " : "",
                        message ? describe(*message) : std::string()));
}

}  // namespace prte::pmi::simple
