#include "tools/prun/spawn_request.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "pmix/attributes.h"
#include "rml/preload_codec.h"
#include "util/strings.h"

namespace prte::prun {

namespace {

// The environment entries the parameter options (--mca, --prtemca, ...) give an app. The user's
// own settings (-x, --set-env, ...) follow as app directives (user_environment).
void app_environment(const Request& request, std::vector<std::string>& env)
{
    for (const auto& [name, value] : request.mca) env.push_back("PRTE_MCA_" + name + "=" + value);
    for (const auto& [name, value] : request.pmix_mca) env.push_back("PMIX_MCA_" + name + "=" + value);
    for (const auto& [name, value] : request.ompi_mca) env.push_back("OMPI_MCA_" + name + "=" + value);
}

// -x, --set-env, --unset-env, --prepend-env, --append-env and --fwd-environment, resolved against
// prun's environment, in the order given: PMIx's PMIX_*_ENVAR app directives, which the DVM
// applies in that order on each process's node, after the parameters above.
Status user_environment(const AppContext& app, const Request& request, std::vector<EnvSetting>& settings,
                        std::vector<std::string>& notes)
{
    std::vector<EnvOption> options;
    if (request.forward_environment) options.push_back({EnvOption::forward_all, {}, {}, ':'});
    options.insert(options.end(), app.environment.begin(), app.environment.end());
    return resolve_environment(options, current_environment(), settings, notes);
}

void load_env_setting(pmix_info_t* info, const EnvSetting& setting)
{
    if (setting.kind == EnvSetting::unset) {
        PMIx_Info_load(info, PMIX_UNSET_ENVAR, setting.name.c_str(), PMIX_STRING);
        return;
    }
    pmix_envar_t envar;
    envar.envar = const_cast<char*>(setting.name.c_str());
    envar.value = const_cast<char*>(setting.value.c_str());
    envar.separator = setting.separator;
    const char* key = setting.kind == EnvSetting::set       ? PMIX_SET_ENVAR
                      : setting.kind == EnvSetting::prepend ? PMIX_PREPEND_ENVAR
                                                            : PMIX_APPEND_ENVAR;
    PMIx_Info_load(info, key, &envar, PMIX_ENVAR);  // copies
}

// --preload-binary / --preload-files: the file, read already (tools/prun/preload.h).
void load_preload(pmix_info_t* info, const runtime::PreloadFile& file)
{
    std::vector<uint8_t> bytes = rml::encode_preload(file);
    pmix_byte_object_t bo;
    bo.bytes = reinterpret_cast<char*>(bytes.data());
    bo.size = bytes.size();
    PMIx_Info_load(info, pmix::kPreloadFile, &bo, PMIX_BYTE_OBJECT);  // copies
}

void load_info(pmix_info_t* info, const char* key, const std::string& value)
{
    PMIx_Info_load(info, key, value.c_str(), PMIX_STRING);
}

// PMIX_STDIN_TGT as PRRTE's prun sends it. "none" when we will not forward, so that the DVM gives
// every process /dev/null rather than a pipe nobody writes to.
std::string stdin_target_text(const StdinTarget& target, bool forwarding)
{
    if (!forwarding || target.kind == StdinTarget::none) return "none";
    if (target.kind == StdinTarget::all) return "all";
    return std::to_string(target.value);
}

}  // namespace

char** make_argv(const std::vector<std::string>& words)
{
    char** argv = static_cast<char**>(calloc(words.size() + 1, sizeof(char*)));
    for (size_t i = 0; i < words.size(); ++i) argv[i] = strdup(words[i].c_str());
    return argv;
}

std::string current_directory()
{
    std::vector<char> buffer(4096);
    while (!getcwd(buffer.data(), buffer.size())) {
        if (errno != ERANGE) return "/";
        buffer.resize(buffer.size() * 2);
    }
    return buffer.data();
}

Status fill_apps(const Request& request, Apps& apps, std::vector<std::string>& notes)
{
    std::string cwd = current_directory();
    for (size_t i = 0; i < request.apps.size(); ++i) {
        const AppContext& ctx = request.apps[i];
        pmix_app_t& app = apps[i];
        std::vector<std::string> env;
        app_environment(request, env);
        std::vector<EnvSetting> settings;
        if (Status st = user_environment(ctx, request, settings, notes); !st) return st;
        app.cmd = strdup(ctx.command.c_str());
        app.argv = make_argv(ctx.argv);
        if (!env.empty()) app.env = make_argv(env);
        app.cwd = strdup(ctx.wdir.empty() ? cwd.c_str() : ctx.wdir.c_str());
        app.maxprocs = ctx.np;
        // --host and --hostfile belong to the app in PMIx (and PRRTE), as does an MPMD app's own
        // --map-by.
        size_t ninfo = (ctx.hosts.empty() ? 0 : 1) + (ctx.hostfile.empty() ? 0 : 1) +
                       (ctx.add_hosts.empty() ? 0 : 1) + (ctx.add_hostfile.empty() ? 0 : 1) +
                       (ctx.map_by.empty() ? 0 : 1) + settings.size() + ctx.preloads.size();
        if (ninfo > 0) {
            PMIX_INFO_CREATE(app.info, ninfo);
            app.ninfo = ninfo;
            size_t k = 0;
            if (!ctx.hosts.empty()) load_info(&app.info[k++], PMIX_HOST, util::join(ctx.hosts, ","));
            if (!ctx.hostfile.empty()) load_info(&app.info[k++], PMIX_HOSTFILE, ctx.hostfile);
            if (!ctx.add_hosts.empty()) load_info(&app.info[k++], PMIX_ADD_HOST, util::join(ctx.add_hosts, ","));
            if (!ctx.add_hostfile.empty()) load_info(&app.info[k++], PMIX_ADD_HOSTFILE, ctx.add_hostfile);
            if (!ctx.map_by.empty()) load_info(&app.info[k++], PMIX_MAPBY, ctx.map_by);
            for (const EnvSetting& setting : settings) load_env_setting(&app.info[k++], setting);
            for (const runtime::PreloadFile& file : ctx.preloads) load_preload(&app.info[k++], file);
        }
    }
    return {};
}

void fill_job_info(const Request& request, OutputPath path, bool forwarding_stdin, tools::InfoList& job)
{
    if (!request.map_by.empty()) job.add_string(PMIX_MAPBY, request.map_by);
    if (!request.bind_to.empty()) job.add_string(PMIX_BINDTO, request.bind_to);
    if (!request.rank_by.empty()) job.add_string(PMIX_RANKBY, request.rank_by);
    if (request.timeout > 0) {
        job.add_int(PMIX_TIMEOUT, request.timeout);
        job.add_int(PMIX_JOB_TIMEOUT, request.timeout);
        if (request.report_state_on_timeout) job.add_bool(PMIX_TIMEOUT_REPORT_STATE, true);
        if (request.stack_traces_on_timeout) job.add_bool(PMIX_TIMEOUT_STACKTRACES, true);
    }
    if (request.spawn_timeout > 0) job.add_int(PMIX_SPAWN_TIMEOUT, request.spawn_timeout);
    if (request.queue) job.add_bool(pmix::kQueue, true);
    if (request.queue_timeout > 0) job.add_int(pmix::kQueueTimeout, request.queue_timeout);
    if (request.recoverable) job.add_bool(PMIX_JOB_RECOVERABLE, true);
    if (request.max_restarts > 0 || (request.continuous && request.max_restarts == 0)) {
        job.add_uint32(PMIX_MAX_RESTARTS, static_cast<uint32_t>(request.max_restarts));
    }
    if (request.continuous) job.add_bool(PMIX_JOB_CONTINUOUS, true);
    if (!request.error_nonzero_status) job.add_bool(pmix::kErrorNonzeroStatus, false);
    if (request.report_children_separately) job.add_bool(PMIX_REPORT_CHILD_SEP, true);
    if (!request.mpi.empty()) job.add_string(pmix::kMpiInterface, request.mpi);
    job.add_bool(PMIX_NOTIFY_COMPLETION, true);
    if (request.reports.map) job.add_bool(PMIX_DISPLAY_MAP, true);
    // The DVM's reports as XML elements inside prun's XML document.
    if (request.output.xml) job.add_bool(pmix::kDisplayXml, true);
    if (request.reports.allocation) job.add_bool(PMIX_DISPLAY_ALLOCATION, true);
    if (request.reports.bindings) job.add_bool(PMIX_REPORT_BINDINGS, true);
    if (request.reports.physical) job.add_bool(pmix::kReportPhysicalCpus, true);
    // Every node: "*" (an empty string is not a list of hosts).
    if (request.reports.topology) {
        job.add_string(PMIX_DISPLAY_TOPOLOGY, request.reports.topology_hosts.empty() ? "*" : request.reports.topology_hosts);
    }
    if (request.reports.cpus) {
        job.add_string(pmix::kDisplayProcessors, request.reports.cpus_hosts.empty() ? "*" : request.reports.cpus_hosts);
    }
    // On the pull path too: the DVM then names each chunk's node and pid (src/pmix/events.cc).
    if (request.output.tag_detailed) job.add_bool(PMIX_IOF_TAG_DETAILED_OUTPUT, true);
    job.add_string(PMIX_STDIN_TGT, stdin_target_text(request.stdin_target, forwarding_stdin));
    // A single app's hosts are the job's too, for a DVM that reads them at the job level.
    if (request.apps.size() == 1) {
        const AppContext& app = request.apps.front();
        if (!app.hosts.empty()) job.add_string(PMIX_HOST, util::join(app.hosts, ","));
        if (!app.hostfile.empty()) job.add_string(PMIX_HOSTFILE, app.hostfile);
    }
    // With a pull, the spawn must not subscribe us as well (PMIx would then deliver every chunk
    // twice, the spawn's copy to the library's own writer).
    bool forward = path == OutputPath::library;
    if (path == OutputPath::pull) job.add_bool(pmix::kSpawnerPullsOutput, true);
    // So that a prun killed outright does not leave its job running (pmix/attributes.h).
    job.add_int(pmix::kSpawnerPid, static_cast<int>(getpid()));
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    job.add_string(pmix::kSpawnerHost, host);
    job.add_bool(PMIX_FWD_STDOUT, forward);
    job.add_bool(PMIX_FWD_STDERR, forward);
    job.add_bool(PMIX_FWD_STDDIAG, forward);
    if (path == OutputPath::library) {
        if (request.output.tag && !request.output.tag_detailed) {
            job.add_bool(request.output.tag_fullname ? PMIX_IOF_TAG_FULLNAME_OUTPUT : PMIX_IOF_TAG_OUTPUT, true);
        }
        if (request.output.xml) job.add_bool(PMIX_IOF_XML_OUTPUT, true);
        if (request.output.timestamp) job.add_bool(PMIX_IOF_TIMESTAMP_OUTPUT, true);
        if (request.output.merge_stderr) job.add_bool(PMIX_IOF_MERGE_STDERR_STDOUT, true);
        if (request.output.raw) job.add_bool(PMIX_IOF_OUTPUT_RAW, true);
    }
}

}  // namespace prte::prun
