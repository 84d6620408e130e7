// pmi/simple: the PMI-2 commands, after init (the framing is PMI-2's own from then on; MPICH's
// pmi-2.0.txt lists them; Slurm's libpmi2 speaks them).
#include <cstdlib>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"

namespace prte::pmi::simple {

using runtime::ProcState;

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
        const std::string* value = *key == "universeSize"  ? &universe
                                   : *key == kProcessMapping ? lookup(*client.space, *key)
                                                             : nullptr;
        answer(client, "info-getjobattr-response", found(value));
    } else if (name == "kvs-put") {
        put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) answer(client, "kvs-put-response", {{"rc", "0"}});
    } else if (name == "kvs-get") {
        const std::string* key = command.find("key");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        if (!names_own_job(client, name, "jobid", command.find("jobid"))) return;
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

}  // namespace prte::pmi::simple
