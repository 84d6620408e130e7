// pmi/simple: the PMI-2 commands, after init (the framing is PMI-2's own from then on; MPICH's
// pmi-2.0.txt lists them; Slurm's libpmi2 speaks them). One handler per command, found by name in
// one table: a command is added by writing its handler and its table row.
#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"
#include "util/strings.h"

namespace prte::pmi::simple {

using runtime::ProcState;

namespace {

// A get's answer: the value, or found=FALSE.
Attributes found(const std::string* value)
{
    if (!value) return {{"rc", "0"}, {"found", "FALSE"}};
    return {{"rc", "0"}, {"found", "TRUE"}, {"value", *value}};
}

}  // namespace

// The handlers: a friend of SimpleServer, since each answers, parks or fails the client through it.
struct SimpleServer::Pmi2 {
    using Handler = CommandHandler;

    static void fullinit(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* pmirank = command.find("pmirank");
        if (pmirank && *pmirank != std::to_string(client.rank)) {
            server.fail(client, command.name, fmt::format("pmirank {} is not this process's rank", describe(*pmirank)));
            return;
        }
        const runtime::JobPtr& job = client.space->job;
        runtime::Proc* p = job->proc(client.rank);
        server.answer(client, "fullinit-response",
                      {{"rc", "0"}, {"pmi-version", "2"}, {"pmi-subversion", "0"}, {"rank", std::to_string(client.rank)},
                       {"size", std::to_string(job->num_procs())}, {"appnum", std::to_string(p ? p->app_index : 0)},
                       {"debugged", "FALSE"}, {"pmiverbose", "FALSE"}});
    }

    static void job_getid(SimpleServer& server, Client& client, const Command&)
    {
        server.answer(client, "job-getid-response", {{"rc", "0"}, {"jobid", client.space->job->nspace}});
    }

    static void info_getjobattr(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* key = command.find("key");
        if (!key) {
            server.fail(client, command.name, "it names no key");
            return;
        }
        // A job attribute is optional by nature: one the DVM does not know is not found, no error.
        std::string size = universe(client);
        const std::string* value = *key == "universeSize"  ? &size
                                   : *key == kProcessMapping ? server.lookup(*client.space, *key)
                                                             : nullptr;
        server.answer(client, "info-getjobattr-response", found(value));
    }

    static void kvs_put(SimpleServer& server, Client& client, const Command& command)
    {
        server.put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) server.answer(client, "kvs-put-response", {{"rc", "0"}});
    }

    static void kvs_get(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* key = command.find("key");
        if (!key) {
            server.fail(client, command.name, "it names no key");
            return;
        }
        if (!server.names_own_job(client, command.name, "jobid", command.find("jobid"))) return;
        const std::string* value = server.lookup(*client.space, *key);
        server.answer(client, "kvs-get-response", found(value));
        if (!value) {
            server.fail(client, command.name,
                        fmt::format("key '{}' was never put (by any rank, before the last fence)", describe(*key)));
        }
    }

    static void kvs_fence(SimpleServer& server, Client& client, const Command&) { server.enter_fence(client); }

    static void info_putnodeattr(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* key = command.find("key");
        const std::string* value = command.find("value");
        if (!key || !value) {
            server.fail(client, command.name, "it needs a key and a value");
            return;
        }
        if (key->size() > server.limits_.key_max || value->size() > server.limits_.value_max) {
            server.fail(client, command.name,
                        fmt::format("key or value too long (at most {} and {} bytes)", server.limits_.key_max,
                                    server.limits_.value_max));
            return;
        }
        JobSpace& space = *client.space;
        space.node_attributes[*key] = *value;
        server.answer(client, "info-putnodeattr-response", {{"rc", "0"}});
        // Local peers that asked to wait for it.
        auto& waits = space.node_attribute_waits;
        for (auto it = waits.begin(); it != waits.end();) {
            auto c = it->second == *key ? space.clients.find(it->first) : space.clients.end();
            if (c != space.clients.end() && c->second->fd >= 0) {
                server.answer(*c->second, "info-getnodeattr-response", found(value));
            }
            it = it->second == *key ? waits.erase(it) : it + 1;
        }
    }

    static void info_getnodeattr(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* key = command.find("key");
        if (!key) {
            server.fail(client, command.name, "it names no key");
            return;
        }
        JobSpace& space = *client.space;
        auto it = space.node_attributes.find(*key);
        const std::string* wait = command.find("wait");
        if (it == space.node_attributes.end() && wait && *wait == "TRUE") {
            space.node_attribute_waits.emplace_back(client.rank, *key);
            return;
        }
        server.answer(client, "info-getnodeattr-response",
                      found(it == space.node_attributes.end() ? nullptr : &it->second));
    }

    static void finalize(SimpleServer& server, Client& client, const Command&)
    {
        client.phase = Client::Phase::finalized;
        server.answer(client, "finalize-response", {{"rc", "0"}});
    }

    static void abort(SimpleServer& server, Client& client, const Command& command)
    {
        const std::string* message = command.find("message");
        if (!message) message = command.find("msg");  // Slurm's libpmi2 names it so
        server.abort_job(client, command.find("exitcode"), message);
    }

    static void name_publish(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::publish);
    }
    static void name_unpublish(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::unpublish);
    }
    static void name_lookup(SimpleServer& server, Client& client, const Command& command)
    {
        server.serve_name(client, command, runtime::NameOp::lookup);
    }

    static void not_served(SimpleServer& server, Client& client, const Command& command)
    {
        server.answer(client, command.name + "-response",
                      {{"rc", "-1"}, {"errmsg", "not supported by prte for PMI programs"}});
    }

    static constexpr std::array<std::pair<std::string_view, Handler>, 14> kCommands{{
        {"fullinit", fullinit},
        {"job-getid", job_getid},
        {"info-getjobattr", info_getjobattr},
        {"kvs-put", kvs_put},
        {"kvs-get", kvs_get},
        {"kvs-fence", kvs_fence},
        {"info-putnodeattr", info_putnodeattr},
        {"info-getnodeattr", info_getnodeattr},
        {"finalize", finalize},
        {"abort", abort},
        {"name-publish", name_publish},
        {"name-unpublish", name_unpublish},
        {"name-lookup", name_lookup},
        {"spawn", not_served},
    }};
};

void SimpleServer::serve_v2(Client& client, const Command& command)
{
    dispatch(Pmi2::kCommands, "PMI-2", client, command);
}

}  // namespace prte::pmi::simple
