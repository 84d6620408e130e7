#include "pmix/spawn_translate.h"

#include "pmix/attributes.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "pmix/info_array.h"
#include "rml/preload_codec.h"
#include "runtime/env_edit.h"
#include "runtime/placement_spec.h"
#include "util/hostlist.h"
#include "util/strings.h"

namespace prte::pmix {
namespace {

// The most restarts per process a job may ask for (PMIX_MAX_RESTARTS); prun's limit too.
constexpr int64_t kMostRestarts = 100000;

using runtime::BindTo;
using runtime::MapBy;
using runtime::RankBy;

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

Status bad_value(const char* key, const std::string& value, const std::string& why)
{
    return {Errc::bad_param, fmt::format("spawn directive {}='{}': {}", key, value, why)};
}

// Entries as written; a bracket's own commas ("n[1,3]") stay inside its entry, for the mapper
// to expand.
std::vector<std::string> host_list(const std::string& text)
{
    std::vector<std::string> hosts;
    for (const std::string& h : util::split_hostlist(text)) {
        if (!h.empty()) hosts.push_back(h);
    }
    return hosts;
}

Status need_string(const pmix_info_t& info, std::string& out)
{
    auto text = value_string(info.value);
    if (!text) return {Errc::bad_param, fmt::format("spawn directive {} must be a string", info.key)};
    out = *text;
    return {};
}

// The hosts of PMIX_DISPLAY_TOPOLOGY / _PROCESSORS, separated by ',' (the standard's) or ';' (PRRTE's
// prun, whose --display list is itself comma-separated); none, or "*", means every node.
std::vector<std::string> report_hosts(const std::string& text)
{
    std::vector<std::string> hosts;
    for (const std::string& part : util::split(text, ';')) {
        for (const std::string& name : util::split(part, ',', true)) {
            if (name != "*") hosts.push_back(name);
        }
    }
    return hosts;
}

Status need_flag(const pmix_info_t& info, bool& out)
{
    auto flag = value_flag(info.value);
    if (!flag) return {Errc::bad_param, fmt::format("spawn directive {} must be true or false", info.key)};
    out = *flag;
    return {};
}

Status envar_setting(const pmix_info_t& info, std::string& out)
{
    if (info.value.type != PMIX_ENVAR || !info.value.data.envar.envar) {
        return {Errc::bad_param, fmt::format("spawn directive {} must be an environment variable (pmix_envar_t)", info.key)};
    }
    const pmix_envar_t& e = info.value.data.envar;
    out = fmt::format("{}={}", e.envar, e.value ? e.value : "");
    return {};
}

// PMIX_PREPEND_ENVAR / PMIX_APPEND_ENVAR: a pmix_envar_t whose separator joins the value to what
// the variable holds on the process's node, where the daemon applies it (runtime/env_edit.h).
Status envar_edit(const pmix_info_t& info, std::string& out)
{
    if (info.value.type != PMIX_ENVAR || !info.value.data.envar.envar || !*info.value.data.envar.envar) {
        return {Errc::bad_param, fmt::format("spawn directive {} must be an environment variable (pmix_envar_t)", info.key)};
    }
    const pmix_envar_t& e = info.value.data.envar;
    runtime::EnvEdit edit;
    edit.kind = PMIX_CHECK_KEY(&info, PMIX_PREPEND_ENVAR) ? runtime::EnvEdit::prepend : runtime::EnvEdit::append;
    edit.name = e.envar;
    edit.separator = e.separator ? e.separator : ':';
    edit.value = e.value ? e.value : "";
    out = runtime::encode_env_edit(edit);
    return {};
}

// Where an app runs and what it gets, at job level (defaults for every app) or app level.
struct Placement {
    std::optional<std::vector<std::string>> hosts;
    std::optional<std::string> hostfile;
    std::optional<std::vector<std::string>> add_hosts;
    std::optional<std::string> add_hostfile;
    std::vector<std::string> env;
};

// Returns true when `info` is a placement directive (filled in), false when it is something else.
bool placement_directive(const pmix_info_t& info, Placement& placement, Status& st)
{
    std::string text;
    if (PMIX_CHECK_KEY(&info, PMIX_HOST)) {
        if ((st = need_string(info, text))) placement.hosts = host_list(text);
    } else if (PMIX_CHECK_KEY(&info, PMIX_HOSTFILE)) {
        if ((st = need_string(info, text))) placement.hostfile = text;
    } else if (PMIX_CHECK_KEY(&info, PMIX_ADD_HOST)) {
        if ((st = need_string(info, text))) placement.add_hosts = host_list(text);
    } else if (PMIX_CHECK_KEY(&info, PMIX_ADD_HOSTFILE)) {
        if ((st = need_string(info, text))) placement.add_hostfile = text;
    } else if (PMIX_CHECK_KEY(&info, PMIX_SET_ENVAR)) {
        if ((st = envar_setting(info, text))) placement.env.push_back(text);
    } else if (PMIX_CHECK_KEY(&info, PMIX_UNSET_ENVAR)) {
        // A name, or NAME* for every variable starting with NAME (PRRTE's --unset-env).
        if ((st = need_string(info, text))) {
            if (text.empty() || text.find('=') != std::string::npos) {
                st = {Errc::bad_param, fmt::format("spawn directive {} '{}': not a variable name", info.key, text)};
            } else {
                placement.env.push_back(runtime::encode_env_edit({runtime::EnvEdit::unset, text, ':', {}}));
            }
        }
    } else if (PMIX_CHECK_KEY(&info, PMIX_PREPEND_ENVAR) || PMIX_CHECK_KEY(&info, PMIX_APPEND_ENVAR)) {
        if ((st = envar_edit(info, text))) placement.env.push_back(text);
    } else {
        return false;
    }
    return true;
}

void apply_defaults(const Placement& job_level, runtime::AppContext& app, const Placement& own)
{
    if (own.hosts) app.hosts = *own.hosts;
    else if (job_level.hosts) app.hosts = *job_level.hosts;
    if (own.hostfile) app.hostfile = *own.hostfile;
    else if (job_level.hostfile) app.hostfile = *job_level.hostfile;
    if (own.add_hosts) app.add_hosts = *own.add_hosts;
    else if (job_level.add_hosts) app.add_hosts = *job_level.add_hosts;
    if (own.add_hostfile) app.add_hostfile = *own.add_hostfile;
    else if (job_level.add_hostfile) app.add_hostfile = *job_level.add_hostfile;
    // Job-wide settings first, so an app's own setting of the same variable wins.
    app.env.insert(app.env.begin(), job_level.env.begin(), job_level.env.end());
    app.env.insert(app.env.end(), own.env.begin(), own.env.end());
}

// kPreloadFile: a file the spawner read, for the daemons to write (runtime/preload.h).
Status preload_directive(const pmix_info_t& info, size_t index, runtime::AppContext& app)
{
    if (info.value.type != PMIX_BYTE_OBJECT || !info.value.data.bo.bytes) {
        return {Errc::bad_param, fmt::format("app {} directive {} must be a byte object", index, info.key)};
    }
    const pmix_byte_object_t& bo = info.value.data.bo;
    std::vector<uint8_t> bytes(bo.bytes, bo.bytes + bo.size);
    runtime::PreloadFile file;
    if (Status st = rml::decode_preload(bytes, file); !st) {
        return {Errc::bad_param, fmt::format("app {} directive {}: {}", index, info.key, st.message())};
    }
    for (const runtime::PreloadFile& other : app.preload) {
        if (other.binary == file.binary && other.name == file.name) {
            return {Errc::bad_param, fmt::format("app {} preloads two files named '{}'", index, file.name)};
        }
    }
    app.preload.push_back(std::move(file));
    return {};
}

// All the job's preloaded files together, as prun limits them (runtime::kMaxPreloadBytes).
Status check_preload_size(const std::vector<runtime::AppContext>& apps)
{
    uint64_t total = 0;
    for (const runtime::AppContext& app : apps) {
        for (const runtime::PreloadFile& file : app.preload) total += file.content.size();
    }
    if (total <= runtime::kMaxPreloadBytes) return {};
    return {Errc::bad_param, fmt::format("the spawn request preloads {} bytes of files, more than the {} a job may carry",
                                         total, runtime::kMaxPreloadBytes)};
}

Status translate_app(const pmix_app_t& in, size_t index, runtime::AppContext& app, Placement& own,
                     std::vector<std::string>& notes)
{
    if (!in.cmd || !*in.cmd) return {Errc::bad_param, fmt::format("app {} of the spawn request has no command", index)};
    if (in.maxprocs < 0) {
        return {Errc::bad_param, fmt::format("app {} ({}) asks for {} processes", index, in.cmd, in.maxprocs)};
    }
    app.index = static_cast<int>(index);
    app.executable = in.cmd;
    for (char** a = in.argv; a && *a; ++a) app.argv.emplace_back(*a);
    if (app.argv.empty()) app.argv.push_back(app.executable);
    for (char** e = in.env; e && *e; ++e) own.env.emplace_back(*e);
    if (in.cwd) app.working_dir = in.cwd;
    app.num_procs = in.maxprocs;

    for (size_t i = 0; in.info && i < in.ninfo; ++i) {
        const pmix_info_t& info = in.info[i];
        Status st;
        if (placement_directive(info, own, st)) {
            if (!st) return st;
        } else if (PMIX_CHECK_KEY(&info, PMIX_WDIR)) {
            if (Status s = need_string(info, app.working_dir); !s) return s;
        } else if (PMIX_CHECK_KEY(&info, PMIX_MAPBY)) {
            // Read against the job's policy once that is known (translate_spawn).
            if (Status s = need_string(info, app.map_by); !s) return s;
        } else if (PMIX_CHECK_KEY(&info, kPreloadFile)) {
            if (Status s = preload_directive(info, index, app); !s) return s;
        } else {
            notes.push_back(fmt::format("app {} directive {} ignored: not supported", index, info.key));
        }
    }
    return {};
}

// Accepted without effect: handled by the PMIx library, or what we do anyway.
bool quietly_accepted(const pmix_info_t& info)
{
    static const char* const keys[] = {PMIX_REQUESTOR_IS_TOOL, PMIX_REQUESTOR_IS_CLIENT, PMIX_FWD_STDOUT,
                                       PMIX_FWD_STDERR,        PMIX_FWD_STDDIAG,         PMIX_NOTIFY_COMPLETION,
                                       PMIX_NOTIFY_JOB_EVENTS, PMIX_ENVARS_HARVESTED};
    return std::any_of(std::begin(keys), std::end(keys), [&](const char* key) { return PMIX_CHECK_KEY(&info, key); });
}

Status translate_job_directive(const pmix_info_t& info, runtime::Job& job, Placement& job_level,
                               std::vector<std::string>& notes)
{
    std::string text;
    Status st;
    if (placement_directive(info, job_level, st)) return st;
    // The words are read by runtime/placement_spec.h, as prun reads them.
    if (PMIX_CHECK_KEY(&info, PMIX_MAPBY)) {
        if (!(st = need_string(info, text))) return st;
        if (!(st = runtime::parse_map_by(text, job.mapping, job.reports))) return bad_value(PMIX_MAPBY, text, st.message());
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_RANKBY)) {
        if (!(st = need_string(info, text))) return st;
        if (!(st = runtime::parse_rank_by(text, job.mapping))) return bad_value(PMIX_RANKBY, text, st.message());
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_BINDTO)) {
        if (!(st = need_string(info, text))) return st;
        if (!(st = runtime::parse_bind_to(text, job.mapping, job.reports))) return bad_value(PMIX_BINDTO, text, st.message());
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_PPR)) {
        if (!(st = need_string(info, text))) return st;
        // PMIX_PPR is "N:<object>", ppr's own words.
        if (!(st = runtime::parse_map_by("ppr:" + text, job.mapping, job.reports))) return bad_value(PMIX_PPR, text, st.message());
        return {};
    }
    // The standard's own spellings of :NOLOCAL and :PE=n, which PMIx tools other than prun send.
    if (PMIX_CHECK_KEY(&info, PMIX_NO_PROCS_ON_HEAD)) return need_flag(info, job.mapping.nolocal);
    if (PMIX_CHECK_KEY(&info, PMIX_CPUS_PER_PROC)) {
        auto cpus = value_integer(info.value);
        if (!cpus || *cpus <= 0 || *cpus > 4096) {
            return {Errc::bad_param, fmt::format("spawn directive {} must be a positive number of CPUs", info.key)};
        }
        job.mapping.pes_per_proc = static_cast<int>(*cpus);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_NO_OVERSUBSCRIBE)) {
        bool no = false;
        if (!(st = need_flag(info, no))) return st;
        job.mapping.oversubscribe = !no;
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_TIMEOUT) || PMIX_CHECK_KEY(&info, PMIX_JOB_TIMEOUT)) {
        auto seconds = value_integer(info.value);
        if (!seconds || *seconds < 0 || *seconds > INT32_MAX) {
            return {Errc::bad_param, fmt::format("spawn directive {} must be a number of seconds (0: none)", info.key)};
        }
        job.timeout_seconds = static_cast<int>(*seconds);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_SPAWN_TIMEOUT)) {
        auto seconds = value_integer(info.value);
        if (!seconds || *seconds < 0 || *seconds > INT32_MAX) {
            return {Errc::bad_param, fmt::format("spawn directive {} must be a number of seconds (0: none)", info.key)};
        }
        job.spawn_timeout_seconds = static_cast<int>(*seconds);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, PMIX_TIMEOUT_REPORT_STATE)) return need_flag(info, job.timeout_report_state);
    if (PMIX_CHECK_KEY(&info, PMIX_TIMEOUT_STACKTRACES)) return need_flag(info, job.timeout_stack_traces);
    if (PMIX_CHECK_KEY(&info, PMIX_JOB_RECOVERABLE)) return need_flag(info, job.recoverable);
    if (PMIX_CHECK_KEY(&info, PMIX_JOB_CONTINUOUS)) return need_flag(info, job.continuous);
    if (PMIX_CHECK_KEY(&info, PMIX_MAX_RESTARTS)) {
        auto n = value_integer(info.value);
        if (!n || *n < 0 || *n > kMostRestarts) {
            return {Errc::bad_param, fmt::format("spawn directive {} must be a number of restarts (0 to {})", info.key,
                                                 kMostRestarts)};
        }
        job.max_restarts = static_cast<int>(*n);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kErrorNonzeroStatus)) return need_flag(info, job.error_nonzero_status);
    if (PMIX_CHECK_KEY(&info, kMpiInterface)) {
        std::string text;
        if (Status st = need_string(info, text); !st) return st;
        std::optional<runtime::MpiInterface> mpi = runtime::parse_mpi_interface(text);
        if (!mpi) return {Errc::bad_param, fmt::format("spawn directive {} {}: expected pmix, pmi1, pmi2 or none", info.key, text)};
        job.mpi = *mpi;
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kSpawnChildSeparate)) return need_flag(info, job.outlives_parent);
    if (PMIX_CHECK_KEY(&info, PMIX_REPORT_CHILD_SEP)) return need_flag(info, job.report_children_separately);
    if (PMIX_CHECK_KEY(&info, PMIX_IOF_TAG_OUTPUT) || PMIX_CHECK_KEY(&info, PMIX_TAG_OUTPUT)) {
        return need_flag(info, job.output.tag);
    }
    if (PMIX_CHECK_KEY(&info, PMIX_IOF_TIMESTAMP_OUTPUT) || PMIX_CHECK_KEY(&info, PMIX_TIMESTAMP_OUTPUT)) {
        return need_flag(info, job.output.timestamp);
    }
    if (PMIX_CHECK_KEY(&info, PMIX_IOF_MERGE_STDERR_STDOUT) || PMIX_CHECK_KEY(&info, PMIX_MERGE_STDERR_STDOUT)) {
        return need_flag(info, job.output.merge_stderr);
    }
    if (PMIX_CHECK_KEY(&info, kSpawnerPullsOutput)) return need_flag(info, job.output.held_for_pull);
    if (PMIX_CHECK_KEY(&info, PMIX_IOF_TAG_DETAILED_OUTPUT)) return need_flag(info, job.output.tag_detailed);
    if (PMIX_CHECK_KEY(&info, PMIX_DISPLAY_MAP)) return need_flag(info, job.reports.map);
    if (PMIX_CHECK_KEY(&info, kDisplayXml)) return need_flag(info, job.reports.xml);
    if (PMIX_CHECK_KEY(&info, PMIX_DISPLAY_ALLOCATION)) return need_flag(info, job.reports.allocation);
    if (PMIX_CHECK_KEY(&info, PMIX_REPORT_BINDINGS)) return need_flag(info, job.reports.bindings);
    if (PMIX_CHECK_KEY(&info, kReportPhysicalCpus)) return need_flag(info, job.reports.physical);
#ifdef PMIX_REPORT_PHYSICAL_CPUS
    if (PMIX_CHECK_KEY(&info, PMIX_REPORT_PHYSICAL_CPUS)) return need_flag(info, job.reports.physical);
#endif
    if (PMIX_CHECK_KEY(&info, PMIX_DISPLAY_TOPOLOGY)) {
        if (!(st = need_string(info, text))) return st;
        job.reports.topology = true;
        job.reports.topology_hosts = report_hosts(text);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kDisplayProcessors)) {
        if (!(st = need_string(info, text))) return st;
        job.reports.cpus = true;
        job.reports.cpus_hosts = report_hosts(text);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kQueue)) return need_flag(info, job.queue);
    if (PMIX_CHECK_KEY(&info, kQueueTimeout)) {
        auto seconds = value_integer(info.value);
        if (!seconds || *seconds < 0 || *seconds > INT32_MAX) {
            return {Errc::bad_param, fmt::format("spawn directive {} must be a number of seconds (0: none)", info.key)};
        }
        job.queue_timeout_seconds = static_cast<int>(*seconds);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kSpawnerPid)) {
        std::optional<int64_t> pid = value_integer(info.value);
        if (!pid || *pid <= 0) return {Errc::bad_param, fmt::format("spawn directive {} must be a positive pid", info.key)};
        job.spawner_pid = static_cast<pid_t>(*pid);
        return {};
    }
    if (PMIX_CHECK_KEY(&info, kSpawnerHost)) {
        std::string text;
        Status st = need_string(info, text);
        if (st) job.spawner_host = text;
        return st;
    }
    // Read together by translate_stdin, as either may qualify the other.
    if (PMIX_CHECK_KEY(&info, PMIX_FWD_STDIN) || PMIX_CHECK_KEY(&info, PMIX_STDIN_TGT)) return {};
    if (!quietly_accepted(info)) notes.push_back(fmt::format("spawn directive {} ignored: not supported", info.key));
    return {};
}

// PMIX_STDIN_TGT names who reads the spawner's stdin: "all", "none" or a rank as PRRTE's prun
// sends it, or a rank or proc value (the wildcard rank: all). PMIX_FWD_STDIN alone means rank 0,
// PRRTE's default; PMIX_FWD_STDIN false means nobody. Without either, every stdin is /dev/null.
Status translate_stdin(const pmix_info_t job_info[], size_t ninfo, runtime::StdinTarget& target)
{
    using Kind = runtime::StdinTarget::Kind;
    const pmix_info_t* forward = find_info(job_info, ninfo, PMIX_FWD_STDIN);
    const pmix_info_t* named = find_info(job_info, ninfo, PMIX_STDIN_TGT);
    if (forward && !value_flag(forward->value).value_or(false)) {
        target = {};
        return {};
    }
    if (!named) {
        if (forward) target = {Kind::rank, 0};
        return {};
    }
    std::optional<int64_t> rank;
    if (named->value.type == PMIX_PROC && named->value.data.proc) {
        rank = named->value.data.proc->rank;
    } else if (named->value.type == PMIX_STRING && named->value.data.string) {
        std::string text = lower(util::trim(named->value.data.string));
        if (text == "all") rank = PMIX_RANK_WILDCARD;
        if (text == "none") rank = PMIX_RANK_INVALID;
    }
    if (!rank) rank = value_integer(named->value);
    if (rank == PMIX_RANK_WILDCARD) {
        target = {Kind::all, 0};
    } else if (rank == PMIX_RANK_INVALID) {
        target = {};
    } else if (rank && *rank >= 0 && *rank < PMIX_RANK_VALID) {
        target = {Kind::rank, static_cast<runtime::Rank>(*rank)};
    } else {
        std::string shown = value_string(named->value).value_or("(not a string)");
        return bad_value(PMIX_STDIN_TGT, shown, "expected a rank, all or none");
    }
    return {};
}

}  // namespace

Status translate_spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps,
                       runtime::Job& job, std::vector<std::string>& notes)
{
    if (!apps || napps == 0) return {Errc::bad_param, "the spawn request names no application"};

    std::vector<runtime::AppContext> translated(napps);
    std::vector<Placement> own(napps);
    for (size_t i = 0; i < napps; ++i) {
        if (Status st = translate_app(apps[i], i, translated[i], own[i], notes); !st) return st;
    }
    if (Status st = check_preload_size(translated); !st) return st;
    Placement job_level;
    for (size_t i = 0; job_info && i < ninfo; ++i) {
        if (Status st = translate_job_directive(job_info[i], job, job_level, notes); !st) return st;
    }
    // --continuous without a limit restarts without one.
    if (job.continuous && !std::any_of(job_info, job_info + (job_info ? ninfo : 0),
                                       [](const pmix_info_t& i) { return PMIX_CHECK_KEY(&i, PMIX_MAX_RESTARTS); })) {
        job.max_restarts = -1;
    }
    if (Status st = runtime::check_combination(job.mapping); !st) {
        return {Errc::bad_param, "spawn directives " PMIX_MAPBY "/" PMIX_RANKBY "/" PMIX_BINDTO ": " + st.message()};
    }
    if (Status st = translate_stdin(job_info, ninfo, job.stdin_target); !st) return st;
    for (size_t i = 0; i < napps; ++i) {
        if (translated[i].map_by.empty()) continue;
        runtime::MappingPolicy app_policy;
        if (Status st = runtime::app_mapping(job.mapping, translated[i].map_by, app_policy); !st) {
            return {Errc::bad_param, fmt::format("app {} directive {} {}: {}", i, PMIX_MAPBY, translated[i].map_by,
                                                 st.message())};
        }
    }
    for (size_t i = 0; i < napps; ++i) apply_defaults(job_level, translated[i], own[i]);
    job.apps = std::move(translated);
    return {};
}

std::string supported_spawn_directives()
{
    return util::join({PMIX_MAPBY, PMIX_RANKBY, PMIX_BINDTO, PMIX_PPR, PMIX_NO_PROCS_ON_HEAD, PMIX_CPUS_PER_PROC, PMIX_NO_OVERSUBSCRIBE, PMIX_TIMEOUT, PMIX_SPAWN_TIMEOUT,
                       PMIX_TIMEOUT_REPORT_STATE, PMIX_TIMEOUT_STACKTRACES, PMIX_JOB_RECOVERABLE, PMIX_JOB_CONTINUOUS, PMIX_MAX_RESTARTS, kErrorNonzeroStatus,
                       PMIX_JOB_TIMEOUT, PMIX_IOF_TAG_OUTPUT, PMIX_IOF_TAG_DETAILED_OUTPUT, PMIX_IOF_TIMESTAMP_OUTPUT, PMIX_IOF_MERGE_STDERR_STDOUT,
                       PMIX_FWD_STDOUT, PMIX_FWD_STDERR, PMIX_FWD_STDDIAG, PMIX_HOST, PMIX_HOSTFILE, PMIX_ADD_HOST,
                       PMIX_ADD_HOSTFILE, PMIX_SET_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR, PMIX_APPEND_ENVAR, PMIX_WDIR, PMIX_NOTIFY_COMPLETION, PMIX_FWD_STDIN,
                       PMIX_STDIN_TGT, PMIX_DISPLAY_MAP, PMIX_DISPLAY_ALLOCATION, PMIX_DISPLAY_TOPOLOGY, kDisplayProcessors, PMIX_REPORT_BINDINGS,
                       kReportPhysicalCpus, kSpawnChildSeparate, PMIX_REPORT_CHILD_SEP, kPreloadFile, kDisplayXml},
                      ",");
}

}  // namespace prte::pmix
