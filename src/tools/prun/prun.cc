// prun: runs a job in a running DVM. Finds the DVM (dvm_registry), connects to it as a PMIx tool,
// spawns the job, relays its output (and prun's stdin to rank 0), and exits with the job's status.
//
// Exit status: the job's (the first non-zero exit code, or non-zero when a process was killed or
// the job failed to start: 127 executable not found, 126 not executable); 130/143 when ^C or
// SIGTERM ended the job; 141 when prun's stdout reader went away ("prun ... | head"), after
// ending the job; 1 when the DVM cannot be found or reached, or went away; 2 for a usage error.
//
// Output is complete when prun exits: the DVM sends a job's last output before its
// PMIX_EVENT_JOB_END (both travel on the same connection, in order), and after the event prun
// deregisters its output request and waits for the answer, a round trip that can only come back
// after everything the DVM sent before it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_tool.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "prte_config.h"
#include "pmix/attributes.h"
#include "pmix/info_array.h"
#include "runtime/dvm_registry.h"
#include "tools/prun/output_writer.h"
#include "tools/prun/prun_options.h"
#include "tools/prun/signals.h"
#include "tools/prun/tool_connection.h"
#include "util/output.h"
#include "util/strings.h"

namespace {

using prte::Status;
using prte::prun::AppContext;
using prte::prun::OutputWriter;
using prte::prun::Request;
using prte::prun::Stream;
using prte::tools::InfoList;
using Clock = std::chrono::steady_clock;
namespace signals = prte::prun::signals;

prte::output::VerboseStream trace("prun");

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'prun --help' for usage)", message);
    return 2;
}

// ---- Waking the main loop: PMIx's thread writes a byte to a pipe (signals.cc does too) ----

int wake_fds[2] = {-1, -1};

void wake()
{
    if (wake_fds[1] < 0) return;
    char c = 1;
    ssize_t ignored = write(wake_fds[1], &c, 1);
    (void)ignored;
}

// ---- What PMIx's thread tells the main thread ----

struct JobEnd {
    pmix_status_t status = PMIX_SUCCESS;
    std::optional<int64_t> exit_code;
    std::string message;
};

struct Shared {
    std::mutex mutex;
    bool spawn_replied = false;
    pmix_status_t spawn_status = PMIX_SUCCESS;
    std::string nspace;
    std::map<std::string, JobEnd> ended;  // by namespace: an end may arrive before the spawn reply
    bool connection_lost = false;
    bool kill_replied = false;
    pmix_status_t kill_status = PMIX_SUCCESS;
    bool barrier_done = false;
    bool push_pending = false;
    pmix_status_t push_status = PMIX_SUCCESS;
    std::set<std::string> output_complete;  // namespaces whose last output has arrived
};

Shared shared;
OutputWriter* writer = nullptr;

void on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        if (status == PMIX_EVENT_JOB_END) {
            JobEnd end;
            end.status = prte::tools::info_status(info, ninfo, PMIX_JOB_TERM_STATUS).value_or(PMIX_SUCCESS);
            end.exit_code = prte::tools::info_integer(info, ninfo, PMIX_EXIT_CODE);
            end.message = prte::tools::info_string(info, ninfo, PMIX_EVENT_TEXT_MESSAGE);
            std::string ns = prte::tools::affected_nspace(info, ninfo);
            shared.ended[ns] = end;
        } else {
            shared.connection_lost = true;
        }
    }
    (void)source;
    wake();
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_spawned(pmix_status_t status, char nspace[], void*)
{
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.spawn_replied = true;
        shared.spawn_status = status;
        if (nspace) shared.nspace = nspace;
    }
    wake();
}

// ---- Output flow control (pmix/attributes.h): acknowledge every kAckEvery bytes received ----

constexpr uint64_t kAckEvery = 1u << 20;
uint64_t received_bytes = 0;  // PMIx's thread only
uint64_t acked_bytes = 0;

void on_ack_answered(pmix_status_t, pmix_info_t*, size_t, void* cbdata, pmix_release_cbfunc_t release_fn,
                     void* release_cbdata)
{
    pmix_query_t* query = static_cast<pmix_query_t*>(cbdata);
    PMIX_QUERY_FREE(query, 1);
    if (release_fn) release_fn(release_cbdata);
}

void acknowledge(const char* nspace, size_t bytes)
{
    received_bytes += bytes;
    if (received_bytes - acked_bytes < kAckEvery) return;
    acked_bytes = received_bytes;
    pmix_query_t* query;
    PMIX_QUERY_CREATE(query, 1);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, query->keys, prte::pmix::kOutputAck);
    (void)rc;
    PMIX_INFO_CREATE(query->qualifiers, 2);
    query->nqual = 2;
    PMIx_Info_load(&query->qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    PMIx_Info_load(&query->qualifiers[1], prte::pmix::kOutputAckedBytes, &acked_bytes, PMIX_UINT64);
    if (PMIx_Query_info_nb(query, 1, on_ack_answered, query) != PMIX_SUCCESS) PMIX_QUERY_FREE(query, 1);
}

void on_output(size_t, pmix_iof_channel_t channel, pmix_proc_t* source, pmix_byte_object_t* payload,
               pmix_info_t* info, size_t ninfo)
{
    if (source && source->rank == PMIX_RANK_WILDCARD &&
        prte::pmix::has_flag(info, ninfo, PMIX_IOF_COMPLETE)) {
        {
            std::lock_guard<std::mutex> lock(shared.mutex);
            shared.output_complete.insert(source->nspace);
        }
        wake();
        return;
    }
    if (!writer || !payload || !payload->bytes || payload->size == 0) return;
    if (source) acknowledge(source->nspace, payload->size);
    if (prte::pmix::has_flag(info, ninfo, prte::pmix::kDvmReport)) {
        writer->deliver_unformatted(std::string_view(payload->bytes, payload->size));
        return;
    }
    Stream stream = (channel & PMIX_FWD_STDOUT_CHANNEL) ? Stream::out : Stream::err;
    writer->deliver(source ? source->rank : 0, stream, std::string_view(payload->bytes, payload->size));
    if (writer->stdout_broken()) wake();
}

void on_kill_replied(pmix_status_t status, pmix_info_t*, size_t, void*, pmix_release_cbfunc_t release_fn,
                     void* release_cbdata)
{
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.kill_replied = true;
        shared.kill_status = status;
    }
    if (release_fn) release_fn(release_cbdata);
    wake();
}

void on_barrier(pmix_status_t, void*)
{
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.barrier_done = true;
    }
    wake();
}

void on_query_barrier(pmix_status_t, pmix_info_t*, size_t, void*, pmix_release_cbfunc_t release_fn,
                      void* release_cbdata)
{
    if (release_fn) release_fn(release_cbdata);
    on_barrier(PMIX_SUCCESS, nullptr);
}

void on_pushed(pmix_status_t status, void*)
{
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.push_pending = false;
        shared.push_status = status;
    }
    wake();
}

// ---- Building the spawn request ----

// Owns the pmix_app_t array handed to PMIx_Spawn.
class Apps {
  public:
    explicit Apps(size_t n) : n_(n) { PMIX_APP_CREATE(apps_, n_); }
    ~Apps() { PMIX_APP_FREE(apps_, n_); }
    Apps(const Apps&) = delete;
    Apps& operator=(const Apps&) = delete;
    pmix_app_t* data() { return apps_; }
    size_t size() const { return n_; }
    pmix_app_t& operator[](size_t i) { return apps_[i]; }

  private:
    pmix_app_t* apps_ = nullptr;
    size_t n_;
};

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

// The environment entries -x and --prtemca give an app.
Status app_environment(const AppContext& app, const Request& request, std::vector<std::string>& env)
{
    for (const std::string& x : app.exports) {
        if (x.find('=') != std::string::npos) {
            env.push_back(x);
            continue;
        }
        const char* value = std::getenv(x.c_str());
        if (!value) {
            return {prte::Errc::bad_param,
                    fmt::format("-x {}: {} is not set in this environment (use -x {}=<value>)", x, x, x)};
        }
        env.push_back(x + "=" + value);
    }
    for (const auto& [name, value] : request.mca) env.push_back("PRTE_MCA_" + name + "=" + value);
    for (const auto& [name, value] : request.pmix_mca) env.push_back("PMIX_MCA_" + name + "=" + value);
    return {};
}

void load_info(pmix_info_t* info, const char* key, const std::string& value)
{
    PMIx_Info_load(info, key, value.c_str(), PMIX_STRING);
}

Status fill_apps(const Request& request, Apps& apps)
{
    std::string cwd = current_directory();
    for (size_t i = 0; i < request.apps.size(); ++i) {
        const AppContext& ctx = request.apps[i];
        pmix_app_t& app = apps[i];
        std::vector<std::string> env;
        if (Status st = app_environment(ctx, request, env); !st) return st;
        app.cmd = strdup(ctx.command.c_str());
        app.argv = make_argv(ctx.argv);
        if (!env.empty()) app.env = make_argv(env);
        app.cwd = strdup(ctx.wdir.empty() ? cwd.c_str() : ctx.wdir.c_str());
        app.maxprocs = ctx.np;
        // --host and --hostfile belong to the app in PMIx (and PRRTE).
        size_t ninfo = (ctx.hosts.empty() ? 0 : 1) + (ctx.hostfile.empty() ? 0 : 1) +
                       (ctx.add_hosts.empty() ? 0 : 1) + (ctx.add_hostfile.empty() ? 0 : 1);
        if (ninfo > 0) {
            PMIX_INFO_CREATE(app.info, ninfo);
            app.ninfo = ninfo;
            size_t k = 0;
            if (!ctx.hosts.empty()) load_info(&app.info[k++], PMIX_HOST, prte::util::join(ctx.hosts, ","));
            if (!ctx.hostfile.empty()) load_info(&app.info[k++], PMIX_HOSTFILE, ctx.hostfile);
            if (!ctx.add_hosts.empty()) load_info(&app.info[k++], PMIX_ADD_HOST, prte::util::join(ctx.add_hosts, ","));
            if (!ctx.add_hostfile.empty()) load_info(&app.info[k++], PMIX_ADD_HOSTFILE, ctx.add_hostfile);
        }
    }
    return {};
}

// How the job's output reaches us. Our own handler (PMIx_IOF_pull) formats --output as PRRTE does
// and tells us when stdout is gone; it needs the DVM to support IOF pull requests. Otherwise the
// PMIx library writes the output itself, formatted by the attributes we pass with the spawn.
enum class OutputPath { pull, library };

// Whether prun can forward its stdin at all: it is open, and not a terminal we do not own
// (reading it in the background would stop us with SIGTTIN).
bool stdin_is_forwardable()
{
    if (fcntl(STDIN_FILENO, F_GETFD) < 0) return false;
    return !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

// PMIX_STDIN_TGT as PRRTE's prun sends it. "none" when we will not forward, so that the DVM gives
// every process /dev/null rather than a pipe nobody writes to.
std::string stdin_target_text(const prte::prun::StdinTarget& target, bool forwarding)
{
    if (!forwarding || target.kind == prte::prun::StdinTarget::none) return "none";
    if (target.kind == prte::prun::StdinTarget::all) return "all";
    return std::to_string(target.value);
}

void fill_job_info(const Request& request, OutputPath path, bool forwarding_stdin, InfoList& job)
{
    if (!request.map_by.empty()) job.add_string(PMIX_MAPBY, request.map_by);
    if (!request.bind_to.empty()) job.add_string(PMIX_BINDTO, request.bind_to);
    if (request.timeout > 0) {
        job.add_int(PMIX_TIMEOUT, request.timeout);
        job.add_int(PMIX_JOB_TIMEOUT, request.timeout);
    }
    if (request.recoverable) job.add_bool(PMIX_JOB_RECOVERABLE, true);
    job.add_bool(PMIX_NOTIFY_COMPLETION, true);
    if (request.reports.map) job.add_bool(PMIX_DISPLAY_MAP, true);
    if (request.reports.allocation) job.add_bool(PMIX_DISPLAY_ALLOCATION, true);
    if (request.reports.bindings) job.add_bool(PMIX_REPORT_BINDINGS, true);
    job.add_string(PMIX_STDIN_TGT, stdin_target_text(request.stdin_target, forwarding_stdin));
    // A single app's hosts are the job's too, for a DVM that reads them at the job level.
    if (request.apps.size() == 1) {
        const AppContext& app = request.apps.front();
        if (!app.hosts.empty()) job.add_string(PMIX_HOST, prte::util::join(app.hosts, ","));
        if (!app.hostfile.empty()) job.add_string(PMIX_HOSTFILE, app.hostfile);
    }
    // With a pull, the spawn must not subscribe us as well (PMIx would then deliver every chunk
    // twice, the spawn's copy to the library's own writer).
    bool forward = path == OutputPath::library;
    if (path == OutputPath::pull) job.add_bool(prte::pmix::kSpawnerPullsOutput, true);
    // So that a prun killed outright does not leave its job running (pmix/attributes.h).
    job.add_int(prte::pmix::kSpawnerPid, static_cast<int>(getpid()));
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    job.add_string(prte::pmix::kSpawnerHost, host);
    job.add_bool(PMIX_FWD_STDOUT, forward);
    job.add_bool(PMIX_FWD_STDERR, forward);
    job.add_bool(PMIX_FWD_STDDIAG, forward);
    if (path == OutputPath::library) {
        if (request.output.tag) job.add_bool(request.output.tag_fullname ? PMIX_IOF_TAG_FULLNAME_OUTPUT : PMIX_IOF_TAG_OUTPUT, true);
        if (request.output.timestamp) job.add_bool(PMIX_IOF_TIMESTAMP_OUTPUT, true);
        if (request.output.merge_stderr) job.add_bool(PMIX_IOF_MERGE_STDERR_STDOUT, true);
        if (request.output.raw) job.add_bool(PMIX_IOF_OUTPUT_RAW, true);
    }
}

// ---- Reporting the end ----

bool is_launch_failure(pmix_status_t status)
{
    switch (status) {
    case PMIX_ERR_JOB_APP_NOT_EXECUTABLE:
    case PMIX_ERR_JOB_NO_EXE_SPECIFIED:
    case PMIX_ERR_JOB_FAILED_TO_MAP:
    case PMIX_ERR_JOB_FAILED_TO_LAUNCH:
    case PMIX_ERR_JOB_EXE_NOT_FOUND:
    case PMIX_ERR_JOB_WDIR_NOT_FOUND:
    case PMIX_ERR_JOB_INSUFFICIENT_RESOURCES:
    case PMIX_ERR_JOB_ALLOC_FAILED:
    case PMIX_ERR_NOT_FOUND:
    case PMIX_ERR_OUT_OF_RESOURCE:
        return true;
    default:
        return false;
    }
}

std::string launch_failure_reason(pmix_status_t status)
{
    switch (status) {
    case PMIX_ERR_JOB_EXE_NOT_FOUND:
    case PMIX_ERR_NOT_FOUND: return "no such program";
    case PMIX_ERR_JOB_APP_NOT_EXECUTABLE: return "not an executable program";
    case PMIX_ERR_JOB_NO_EXE_SPECIFIED: return "no program given";
    case PMIX_ERR_JOB_WDIR_NOT_FOUND: return "the working directory does not exist";
    case PMIX_ERR_JOB_INSUFFICIENT_RESOURCES:
    case PMIX_ERR_OUT_OF_RESOURCE:
        return "not enough slots in the DVM (use fewer processes, or --map-by :OVERSUBSCRIBE)";
    case PMIX_ERR_JOB_FAILED_TO_MAP: return "the processes could not be mapped onto the DVM's nodes";
    default: return prte::tools::status_text(status);
    }
}

int clamp_exit(int64_t code) { return code > 0 && code <= 255 ? static_cast<int>(code) : (code > 255 ? 255 : 1); }

int launch_failure_exit(pmix_status_t status)
{
    if (status == PMIX_ERR_JOB_EXE_NOT_FOUND || status == PMIX_ERR_NOT_FOUND) return 127;
    if (status == PMIX_ERR_JOB_APP_NOT_EXECUTABLE) return 126;
    return 1;
}

int exit_status_of(const JobEnd& end)
{
    if (end.exit_code && *end.exit_code != 0) return clamp_exit(*end.exit_code);
    if (end.status == PMIX_SUCCESS) return 0;
    if (end.status > 0) return clamp_exit(end.status);  // a DVM may report the exit code as the status
    if (is_launch_failure(end.status)) return launch_failure_exit(end.status);
    return 1;
}

std::string one_line(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::string out;
    for (char c : text) {
        if (c == '\n') {
            out += "; ";
        } else {
            out += c;
        }
    }
    return out;
}

std::string commands_of(const Request& request)
{
    std::vector<std::string> names;
    for (const AppContext& app : request.apps) names.push_back(app.command);
    return prte::util::join(names, ", ");
}

// ---- The run ----

class Run {
  public:
    explicit Run(const Request& request) : request_(request), writer_(request.output) {}

    // Optional, before execute(): see ToolConnection::start_unconnected.
    Status start_pmix_early();
    int execute(const prte::runtime::dvm_registry::Entry& dvm);

  private:
    Status connect_and_register();
    OutputPath choose_output_path();
    Status spawn();
    void start_output_and_input();
    void loop();
    int finish();
    void kill_job(const char* why);
    void forward_stdin();
    void wait_for_barrier(std::chrono::milliseconds limit);
    void wait_for_output_complete(std::chrono::milliseconds limit);
    void wait_for_push_answer(std::chrono::milliseconds limit);
    std::string job_id() const { return prte::prun::job_label_of(nspace_); }
    std::string dvm_text() const
    {
        return dvm_.pid > 0 ? fmt::format("the DVM (pid {})", dvm_.pid) : std::string("the DVM");
    }

    const Request& request_;
    prte::runtime::dvm_registry::Entry dvm_;
    OutputWriter writer_;
    prte::tools::ToolConnection connection_;
    OutputPath output_path_ = OutputPath::pull;
    std::string nspace_;
    std::optional<size_t> pull_ref_;
    bool kill_sent_ = false;
    bool stdout_gone_ = false;
    bool timed_out_by_us_ = false;
    int interrupt_seen_ = 0;
    bool forwarding_stdin_ = false;
    bool stdin_done_ = false;
    std::vector<char> stdin_buffer_;
    pmix_byte_object_t stdin_chunk_{};
    pmix_proc_t stdin_target_{};
    bool stdout_is_pipe_ = false;
};

Status Run::start_pmix_early()
{
    signals::Blocked blocked;  // PMIx's threads start here
    return connection_.start_unconnected(trace.enabled(1));
}

Status Run::connect_and_register()
{
    {
        signals::Blocked blocked;  // PMIx's threads start here
        if (Status st = connection_.connect(dvm_, trace.enabled(1)); !st) return st;
    }
    pmix_status_t codes[] = {PMIX_EVENT_JOB_END, PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    InfoList info;
    info.add_string(PMIX_EVENT_HDLR_NAME, "prun");
    pmix_status_t rc =
        PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), info.data(), info.size(), on_event, nullptr,
                                    nullptr);
    if (rc < 0) {
        return {prte::Errc::internal, fmt::format("cannot register for job events with {}: {}", dvm_text(),
                                                  prte::tools::status_text(rc))};
    }
    return {};
}

// Asks the DVM whether it serves IOF pull requests, with a request that matches no output.
OutputPath Run::choose_output_path()
{
    // A DVM found in our registry is a prte: it serves pull requests, so spare the round trips.
    if (!dvm_.file.empty()) return OutputPath::pull;
    pmix_proc_t probe;
    std::string ns = dvm_.nspace.empty() ? std::string(connection_.self().nspace) : dvm_.nspace;
    PMIX_LOAD_PROCID(&probe, ns.c_str(), PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_IOF_pull(&probe, 1, nullptr, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, nullptr, nullptr);
    if (rc < 0) {
        trace(1, "the DVM does not serve IOF pull requests ({}): PMIx will write the job's output",
              prte::tools::status_text(rc));
        return OutputPath::library;
    }
    PMIx_IOF_deregister(static_cast<size_t>(rc), nullptr, 0, on_barrier, nullptr);
    wait_for_barrier(std::chrono::milliseconds(2000));
    return OutputPath::pull;
}

Status Run::spawn()
{
    Apps apps(request_.apps.size());
    if (Status st = fill_apps(request_, apps); !st) return st;
    InfoList job;
    fill_job_info(request_, output_path_, forwarding_stdin_, job);
    pmix_status_t rc = PMIx_Spawn_nb(job.data(), job.size(), apps.data(), apps.size(), on_spawned, nullptr);
    if (rc != PMIX_SUCCESS) {
        return {prte::Errc::internal,
                fmt::format("{} refused the job: {}", dvm_text(), prte::tools::status_text(rc))};
    }
    // Wait for the reply (PMIx copies the request, so `apps` may go now); the loop below keeps
    // serving signals meanwhile.
    while (true) {
        {
            std::lock_guard<std::mutex> lock(shared.mutex);
            if (shared.spawn_replied || shared.connection_lost) break;
        }
        // Interrupted before the DVM named the job (it may be waiting on daemons, or held): there
        // is nothing to kill by name yet. We leave; the DVM watches our pid (src/pmix/spawner_watch.cc)
        // and ends the job we asked for, so waiting here would only make ^C look ignored.
        if (signals::count() > 0) return {prte::Errc::cancelled, "interrupted before the job started: the DVM ends it"};
        struct pollfd p = {wake_fds[0], POLLIN, 0};
        poll(&p, 1, -1);
        char drain[64];
        while (read(wake_fds[0], drain, sizeof(drain)) > 0) {
        }
    }
    std::unique_lock<std::mutex> lock(shared.mutex);
    if (!shared.spawn_replied) {
        return {prte::Errc::unreachable,
                fmt::format("lost the connection to {} before the job started: it has died or was terminated",
                            dvm_text())};
    }
    nspace_ = shared.nspace;
    pmix_status_t status = shared.spawn_status;
    if (status == PMIX_SUCCESS) return {};

    // A DVM may explain the failure in a job-end event: give it a moment to arrive.
    lock.unlock();
    auto deadline = Clock::now() + std::chrono::milliseconds(250);
    std::string message;
    while (!nspace_.empty() && Clock::now() < deadline) {
        {
            std::lock_guard<std::mutex> guard(shared.mutex);
            if (auto it = shared.ended.find(nspace_); it != shared.ended.end()) {
                message = it->second.message;
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (message.empty()) message = fmt::format("cannot start {}: {}", commands_of(request_), launch_failure_reason(status));
    return {prte::Errc::refused, one_line(message)};
}

void Run::start_output_and_input()
{
    writer_.set_job_label(request_.output.tag_fullname ? nspace_ : job_id());
    trace(1, "job {} (namespace {}) started", job_id(), nspace_);
    if (output_path_ == OutputPath::pull) {
        pmix_proc_t all;
        PMIX_LOAD_PROCID(&all, nspace_.c_str(), PMIX_RANK_WILDCARD);
        pmix_status_t rc = PMIx_IOF_pull(&all, 1, nullptr, 0, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                                         on_output, nullptr, nullptr);
        if (rc < 0) {
            prte::output::warning("cannot receive the output of job {}: {}", job_id(), prte::tools::status_text(rc));
        } else {
            pull_ref_ = static_cast<size_t>(rc);
        }
    }

    if (!forwarding_stdin_) return;
    pmix_rank_t rank = request_.stdin_target.kind == prte::prun::StdinTarget::all
                           ? PMIX_RANK_WILDCARD
                           : static_cast<pmix_rank_t>(request_.stdin_target.value);
    PMIX_LOAD_PROCID(&stdin_target_, nspace_.c_str(), rank);
    stdin_buffer_.resize(64 * 1024);
}

// Reads one chunk of stdin and pushes it; an empty push marks the end of input.
void Run::forward_stdin()
{
    ssize_t n = read(STDIN_FILENO, stdin_buffer_.data(), stdin_buffer_.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n < 0) n = 0;  // unreadable: treat as the end of input
    stdin_chunk_.bytes = n > 0 ? stdin_buffer_.data() : nullptr;
    stdin_chunk_.size = static_cast<size_t>(n);
    if (n == 0) stdin_done_ = true;
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.push_pending = true;
    }
    pmix_status_t rc = PMIx_IOF_push(&stdin_target_, 1, &stdin_chunk_, nullptr, 0, on_pushed, nullptr);
    if (rc != PMIX_SUCCESS) {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.push_pending = false;
        shared.push_status = rc;
    }
}

void Run::kill_job(const char* why)
{
    if (kill_sent_ || nspace_.empty()) return;
    kill_sent_ = true;
    trace(1, "terminating job {}: {}", job_id(), why);
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, nspace_.c_str(), PMIX_RANK_WILDCARD);
    InfoList directives;
    directives.add_bool(PMIX_JOB_CTRL_KILL, true);
    pmix_status_t rc = PMIx_Job_control_nb(&target, 1, directives.data(), directives.size(), on_kill_replied, nullptr);
    if (rc != PMIX_SUCCESS) {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.kill_replied = true;
        shared.kill_status = rc;
    }
}

namespace {

// Waits, woken by the PMIx callbacks (wake()), until `done` holds under the shared lock or the
// connection is lost; false if `limit` passed first.
template <typename Done>
bool wait_until(std::chrono::milliseconds limit, Done done)
{
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
        {
            std::lock_guard<std::mutex> lock(shared.mutex);
            if (done() || shared.connection_lost) return true;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        struct pollfd p = {wake_fds[0], POLLIN, 0};
        poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 1)));
        char drain[64];
        while (read(wake_fds[0], drain, sizeof(drain)) > 0) {
        }
    }
    return false;
}

}  // namespace

void Run::wait_for_barrier(std::chrono::milliseconds limit)
{
    wait_until(limit, [] { return shared.barrier_done; });
    std::lock_guard<std::mutex> lock(shared.mutex);
    shared.barrier_done = false;
}

void Run::wait_for_output_complete(std::chrono::milliseconds limit)
{
    if (!wait_until(limit, [this] { return shared.output_complete.count(nspace_) > 0; })) {
        trace(1, "the DVM did not mark the end of job {}'s output", job_id());
    }
}

// PMIx answers a push (a chunk of stdin, or its end) on our connection once the DVM has taken it.
// Leaving before that answer made the DVM's PMIx print "PMIX ERROR: UNREACHABLE ... line 3098" on
// the DVM's stderr (a one-shot prterun with stdin at its end at once, about 1 run in 60).
void Run::wait_for_push_answer(std::chrono::milliseconds limit)
{
    if (!wait_until(limit, [] { return !shared.push_pending; })) trace(1, "the DVM did not answer our last stdin push");
}

void Run::loop()
{
    // Our own guard behind the DVM's --timeout, in case the DVM does not enforce it.
    std::optional<Clock::time_point> timeout_guard;
    if (request_.timeout > 0) timeout_guard = Clock::now() + std::chrono::seconds(request_.timeout + 10);

    while (true) {
        bool push_pending;
        {
            std::lock_guard<std::mutex> lock(shared.mutex);
            if (shared.ended.count(nspace_) || shared.ended.count("") || shared.connection_lost) return;
            push_pending = shared.push_pending;
            if (!push_pending && shared.push_status != PMIX_SUCCESS && forwarding_stdin_) {
                trace(1, "stdin is not forwarded: {}", prte::tools::status_text(shared.push_status));
                forwarding_stdin_ = false;
            }
            if (shared.kill_replied && shared.kill_status != PMIX_SUCCESS && !timed_out_by_us_ && signals::count() > 0) {
                prte::output::error("cannot terminate job {}: {}", job_id(), prte::tools::status_text(shared.kill_status));
                std::exit(128 + signals::last());
            }
        }
        if (signals::count() > interrupt_seen_) {
            interrupt_seen_ = signals::count();
            if (signals::last() == SIGINT) {
                prte::output::warning("terminating job {} (interrupt again to exit at once)", job_id());
            }
            kill_job("interrupted");
        }
        if (!stdout_gone_ && writer_.stdout_broken()) {
            stdout_gone_ = true;
            kill_job("nobody reads its output any more");
        }
        if (timeout_guard && Clock::now() >= *timeout_guard && !timed_out_by_us_) {
            timed_out_by_us_ = true;
            kill_job("--timeout expired");
        }

        std::vector<struct pollfd> fds;
        fds.push_back({wake_fds[0], POLLIN, 0});
        if (forwarding_stdin_ && !stdin_done_ && !push_pending) fds.push_back({STDIN_FILENO, POLLIN, 0});
        if (stdout_is_pipe_ && !stdout_gone_) fds.push_back({STDOUT_FILENO, 0, 0});  // POLLERR: reader gone
        int wait_ms = -1;
        if (timeout_guard && !timed_out_by_us_) {
            wait_ms = static_cast<int>(std::max<int64_t>(
                std::chrono::duration_cast<std::chrono::milliseconds>(*timeout_guard - Clock::now()).count() + 1, 0));
        }
        int n = poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) return;
        for (const auto& p : fds) {
            if (p.fd == wake_fds[0] && (p.revents & POLLIN)) {
                char drain[64];
                while (read(wake_fds[0], drain, sizeof(drain)) > 0) {
                }
            } else if (p.fd == STDIN_FILENO && p.revents) {
                forward_stdin();
            } else if (p.fd == STDOUT_FILENO && (p.revents & (POLLERR | POLLHUP))) {
                stdout_gone_ = true;
                kill_job("nobody reads its output any more");
            }
        }
    }
}

int Run::finish()
{
    JobEnd end;
    bool ended;
    {
        std::lock_guard<std::mutex> lock(shared.mutex);
        // An end event that names no namespace can only be ours.
        auto it = shared.ended.find(nspace_);
        if (it == shared.ended.end()) it = shared.ended.find("");
        ended = it != shared.ended.end();
        if (ended) end = it->second;
    }
    if (!ended) {
        writer_.flush();
        prte::output::error("lost the connection to {} while job {} was running: the DVM has died or was terminated",
                            dvm_text(), job_id());
        return 1;
    }

    // The DVM marks the end of the job's output; PMIx may deliver the end event before the last
    // chunks, so wait for the marker (a DVM that sends none costs us the limit, once).
    if (output_path_ == OutputPath::pull && pull_ref_) wait_for_output_complete(std::chrono::seconds(5));
    if (forwarding_stdin_) wait_for_push_answer(std::chrono::seconds(2));
    // Everything the DVM sent before our request arrives before its answer.
    if (output_path_ == OutputPath::pull && pull_ref_) {
        if (PMIx_IOF_deregister(*pull_ref_, nullptr, 0, on_barrier, nullptr) == PMIX_SUCCESS) {
            wait_for_barrier(std::chrono::milliseconds(2000));
        }
    } else if (output_path_ == OutputPath::library) {
        pmix_query_t* query;
        PMIX_QUERY_CREATE(query, 1);
        query->keys = make_argv({PMIX_QUERY_NAMESPACES});
        if (PMIx_Query_info_nb(query, 1, on_query_barrier, nullptr) == PMIX_SUCCESS) {
            wait_for_barrier(std::chrono::milliseconds(2000));
        }
        PMIX_QUERY_FREE(query, 1);
    }
    writer_.flush();

    if (stdout_gone_) return 128 + SIGPIPE;
    if (signals::count() > 0) return 128 + signals::last();

    int status = exit_status_of(end);
    bool timed_out = end.status == PMIX_ERR_TIMEOUT || timed_out_by_us_;
    if (timed_out) {
        prte::output::error("job {} timed out after {} seconds", job_id(), request_.timeout);
        if (!end.message.empty() && end.message.find("timed out") == std::string::npos) {
            prte::output::error("{}", one_line(end.message));
        }
        return status == 0 ? 1 : status;
    }
    if (status != 0) {
        if (!end.message.empty()) {
            prte::output::error("{}", one_line(end.message));
        } else if (is_launch_failure(end.status)) {
            prte::output::error("cannot start {}: {}", commands_of(request_), launch_failure_reason(end.status));
        } else if (end.status < 0 && end.status != PMIX_ERR_JOB_NON_ZERO_TERM) {
            prte::output::error("job {} failed: {}", job_id(), prte::tools::status_text(end.status));
        }
    }
    return status;
}

int Run::execute(const prte::runtime::dvm_registry::Entry& dvm)
{
    dvm_ = dvm;
    writer = &writer_;
    struct stat st {};
    stdout_is_pipe_ = fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));

    if (Status s = connect_and_register(); !s) {
        prte::output::error("{}", s.message());
        return 1;
    }
    output_path_ = choose_output_path();
    // Decided before the spawn: the DVM gives the stdin target a pipe only if we will feed it.
    forwarding_stdin_ = request_.stdin_target.kind != prte::prun::StdinTarget::none && stdin_is_forwardable();
    if (Status s = spawn(); !s) {
        prte::output::error("{}", s.message());
        if (s.code() == prte::Errc::cancelled) return 128 + signals::last();
        if (s.code() == prte::Errc::refused) {
            std::lock_guard<std::mutex> lock(shared.mutex);
            return is_launch_failure(shared.spawn_status) ? launch_failure_exit(shared.spawn_status) : 1;
        }
        return 1;
    }
    start_output_and_input();
    loop();
    int status = finish();
    writer = nullptr;
    return status;
}

// Set by prterun: the descriptor on which it says its DVM is ready (one byte), and the one on
// which we say we have left the DVM (one byte, once PMIx is finalized: prterun then stops the DVM
// while we exit).
constexpr const char* kPrterunReadyFd = "PRTE_PRTERUN_READY_FD";
constexpr const char* kPrterunDoneFd = "PRTE_PRTERUN_DONE_FD";

// PMIx_tool_finalize talks to the DVM; a DVM that no longer answers must not keep us from exiting.
void exit_soon_in_any_case(int status)
{
    std::thread([status] {
        std::this_thread::sleep_for(std::chrono::seconds(5));
        _exit(status);
    }).detach();
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("prun");
    prte::prun::signals::install();

    Request request;
    if (Status st = prte::prun::parse(std::vector<std::string>(argv + 1, argv + argc), request); !st) {
        return usage_error(st.message());
    }
    if (request.help) {
        std::fputs(prte::prun::usage().c_str(), stdout);
        return 0;
    }
    for (const std::string& note : request.notes) std::fprintf(stderr, "prun: note: %s\n", note.c_str());
    if (request.version) {
        std::printf("prun %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (request.verbose) trace.set_level(1);
    prte::prun::make_hostfiles_absolute(request, current_directory());

    if (pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        prte::output::error("cannot create a pipe: {}", std::strerror(errno));
        return 1;
    }
    prte::prun::signals::wake_through(wake_fds[1]);
    auto run = std::make_unique<Run>(request);

    // Started by prterun alongside its DVM, so that our own start-up overlaps the DVM's: PMIx's
    // set-up too, then wait for its word that the DVM is ready (EOF: it did not start, and
    // prterun says so).
    int done_fd = -1;
    if (const char* fd_text = std::getenv(kPrterunDoneFd)) {
        done_fd = std::atoi(fd_text);
        unsetenv(kPrterunDoneFd);
        fcntl(done_fd, F_SETFD, FD_CLOEXEC);
    }
    if (const char* fd_text = std::getenv(kPrterunReadyFd)) {
        int fd = std::atoi(fd_text);
        unsetenv(kPrterunReadyFd);
        if (Status st = run->start_pmix_early(); !st) {
            prte::output::error("{}", st.message());
            return 1;
        }
        char ready = 0;
        ssize_t n;
        while ((n = read(fd, &ready, 1)) < 0 && errno == EINTR) {
        }
        close(fd);
        if (n != 1) return 1;
    }

    prte::runtime::dvm_registry::Entry dvm;
    if (Status st = prte::runtime::dvm_registry::locate({request.dvm_uri, request.dvm}, dvm); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    trace(1, "using the DVM {}", prte::runtime::dvm_registry::describe(dvm));

    int status = run->execute(dvm);
    exit_soon_in_any_case(status);
    run.reset();  // disconnects from the DVM
    if (done_fd >= 0) {
        char word = 1;
        (void)!write(done_fd, &word, 1);
        close(done_fd);
    }
    return status;
}
