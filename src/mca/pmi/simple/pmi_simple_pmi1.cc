// pmi/simple: the PMI-1 commands, after init (MPICH's simple PMI client; the Flux RFC 13 lists them).
#include <cstdlib>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"

namespace prte::pmi::simple {

using runtime::ProcState;

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
        if (!names_own_job(client, name, "kvsname", command.find("kvsname"))) return;
        put(client, command, command.find("key"), command.find("value"));
        if (client.phase != Client::Phase::ended) answer(client, "put_result", {{"rc", "0"}});
    } else if (name == "get") {
        const std::string* key = command.find("key");
        if (!key) {
            fail(client, name, "it names no key");
            return;
        }
        if (!names_own_job(client, name, "kvsname", command.find("kvsname"))) return;
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
        spawn(client, command);
    } else {
        fail(client, name, "it is not a PMI-1 command");
    }
}

}  // namespace prte::pmi::simple
