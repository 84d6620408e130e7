// pmi/simple: PMI-1 spawn (MPICH's MPI_Comm_spawn and _multiple). One "mcmd=spawn" per app, the
// last with spawnssofar == totspawns; the job is then spawned as PMIx_Spawn from the caller would
// be (runtime::HostServices::spawn: a child of its job, relayed to the master from a daemon), and
// the caller, which waits for it, is answered "spawn_result" once the job runs (rc 0) or could not
// start. The children get PMI_SPAWNED=1 and the caller's pre-put keys (MPICH puts the port its
// children connect back to), which every daemon of the new job serves as the job's own.
#include <pmix_common.h>

#include <optional>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"
#include "util/strings.h"

namespace prte::pmi::simple {
namespace {

// A value that may not hold a space (the PMI-1 framing).
std::string without_spaces(std::string text)
{
    for (char& c : text) {
        if (c == ' ' || c == '\n') c = '_';
    }
    return text;
}

}  // namespace

void SimpleServer::spawn(Client& client, const Command& command)
{
    auto number = [&](const char* key, int fallback) -> std::optional<int> {
        const std::string* v = command.find(key);
        if (!v) return fallback;
        std::optional<int64_t> n = util::parse_int(*v);
        if (!n || *n < 0 || *n > 1000000) return std::nullopt;
        return static_cast<int>(*n);
    };
    const std::string* executable = command.find("execname");
    std::optional<int> nprocs = number("nprocs", 0), argcnt = number("argcnt", 0), preputs = number("preput_num", 0),
                       infos = number("info_num", 0), total = number("totspawns", 1), sofar = number("spawnssofar", 1);
    if (!executable || executable->empty() || !nprocs || *nprocs == 0 || !argcnt || !preputs || !infos || !total ||
        !sofar) {
        fail(client, "spawn", "it needs execname, nprocs > 0 and numbers for argcnt, preput_num, info_num, "
                              "totspawns and spawnssofar");
        return;
    }
    runtime::AppContext app;
    app.executable = *executable;
    app.argv = {*executable};
    app.num_procs = *nprocs;
    for (int i = 1; i <= *argcnt; ++i) {
        const std::string* arg = command.find(fmt::format("arg{}", i));
        app.argv.push_back(arg ? *arg : std::string());
    }
    app.env.push_back("PMI_SPAWNED=1");
    for (int i = 0; i < *preputs; ++i) {
        const std::string* key = command.find(fmt::format("preput_key_{}", i));
        const std::string* value = command.find(fmt::format("preput_val_{}", i));
        if (key && value) app.env.push_back(kPreputPrefix + *key + "=" + *value);
    }
    for (int i = 0; i < *infos; ++i) {
        const std::string* key = command.find(fmt::format("info_key_{}", i));
        const std::string* value = command.find(fmt::format("info_val_{}", i));
        if (!key || !value) continue;
        if (*key == "wdir") app.working_dir = *value;
        if (*key == "host") app.hosts = util::split(*value, ',');
    }
    client.spawn_apps.push_back(std::move(app));
    if (*sofar < *total) return;  // more apps follow

    std::vector<runtime::AppContext> apps = std::move(client.spawn_apps);
    client.spawn_apps.clear();
    const std::string nspace = client.space->job->nspace;
    const runtime::Rank rank = client.rank;
    pmix_proc_t requester;
    PMIX_LOAD_PROCID(&requester, nspace.c_str(), rank);
    verbose()(5, "job {} rank {}: PMI spawn of {} app(s), first {} x{}", nspace, rank, apps.size(),
              apps.front().executable, apps.front().num_procs);
    rt().host().spawn(requester, apps, [this, nspace, rank](const Status& st, const std::string& child) {
        Client* c = find_client(nspace, rank);
        if (!c) return;  // it is gone; its job ends its children
        if (st) {
            verbose()(5, "job {} rank {}: PMI spawn started job {}", nspace, rank, child);
            answer(*c, "spawn_result", {{"rc", "0"}});
        } else {
            verbose()(1, "job {} rank {}: PMI spawn failed: {}", nspace, rank, st.message());
            answer(*c, "spawn_result", {{"rc", "-1"}, {"errmsg", without_spaces(st.message())}});
        }
    });
}

}  // namespace prte::pmi::simple
