#include "mca/odls/default/odls_default_module.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cassert>
#include <algorithm>
#include <iterator>
#include <set>
#include <system_error>
#include <utility>

#include <event2/event.h>
#include <fmt/format.h>

#include "mca/odls/base/odls_base.h"
#include "mca/odls/default/odls_default_env.h"
#include "mca/odls/default/odls_default_spawn.h"
#include "util/strings.h"

namespace prte::odls::default_component {
namespace {

using runtime::ProcState;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

std::string error_text(int error) { return std::system_category().message(error); }

void assert_on_loop([[maybe_unused]] const Services& services)
{
#ifdef PRTE_DEBUG_CHECKS
    assert(services.loop->on_owner_thread());
#endif
}

}  // namespace

// One end of a pipe we read, with its event; closing it frees both.
struct DefaultModule::Stream {
    DefaultModule::Child* child = nullptr;
    pmix_iof_channel_t channel = PMIX_FWD_STDOUT_CHANNEL;
    int fd = -1;
    event* ev = nullptr;

    bool open() const { return fd >= 0; }
    void close()
    {
        if (ev) event_free(ev);
        if (fd >= 0) ::close(fd);
        ev = nullptr;
        fd = -1;
    }
    ~Stream() { close(); }
};

// The write end of a child's stdin pipe, and its write event, armed only while data waits.
struct DefaultModule::Stdin {
    StdinPipe pipe;
    event* ev = nullptr;

    void close()
    {
        if (ev) event_free(ev);
        ev = nullptr;
        pipe.close();
    }
    ~Stdin() { close(); }
};

struct DefaultModule::Child {
    enum class Exec { pending, started, failed };

    DefaultModule* module = nullptr;
    uint64_t id = 0;      // key in children_
    runtime::JobPtr job;  // keeps the job alive as long as its process is watched
    runtime::Rank rank = 0;
    pid_t pid = -1;
    std::string program;      // as the user gave it, for messages
    std::string working_dir;  // likewise
    std::string binding;

    Stream status;  // the exec status pipe (see odls_default_spawn.h); not forwarded
    Stream out;
    Stream err;
    Stdin in;  // open only for the job's stdin target
    bool merged_stderr = false;

    Exec exec = Exec::pending;
    bool reaped = false;
    bool status_known = true;  // false if someone else reaped it first
    int wait_status = 0;
    bool iof_reported = false;
    bool waitpid_reported = false;
};

// SIGKILL for the processes a kill() sent SIGTERM to, after the grace; the module's, and gone
// early once every one of them has been reaped.
struct DefaultModule::KillTimer {
    std::vector<uint64_t> children;  // ids in children_
    runtime::LoopTimer timer;
};

DefaultModule::DefaultModule(std::function<Services()> services, Options options)
    : make_services_(std::move(services)), options_(options)
{
}

DefaultModule::~DefaultModule() { finalize(); }

Status DefaultModule::init()
{
    if (initialized_) return {};
    services_ = make_services_();
    if (!services_.loop || !services_.state) {
        return {Errc::internal, "odls/default: there is no event loop or state machine to run on"};
    }
    sigchld_ = evsignal_new(services_.loop->base(), SIGCHLD, &DefaultModule::on_sigchld, this);
    if (!sigchld_ || event_add(sigchld_, nullptr) != 0) {
        if (sigchld_) event_free(sigchld_);
        sigchld_ = nullptr;
        return {Errc::internal, "odls/default: cannot watch SIGCHLD on the event loop"};
    }
    preloads_ = std::make_unique<base::PreloadPlacer>(services_.session_dir, services_.node_name);
    initialized_ = true;
    verbose()(10, "odls/default: watching SIGCHLD; SIGKILL {} ms after SIGTERM", options_.kill_grace.count());
    return {};
}

Status DefaultModule::launch(const runtime::JobPtr& job, const std::vector<runtime::Rank>& ranks)
{
    if (Status st = init(); !st) return st;
    assert_on_loop(services_);
    if (!job) return {Errc::bad_param, "odls/default: launch without a job"};
    std::vector<runtime::Rank> valid;
    for (runtime::Rank rank : ranks) {
        if (job->proc(rank)) {
            valid.push_back(rank);
        } else {
            verbose()(1, "job {}: rank {} is not a process of the job; not launched", job->nspace, rank);
        }
    }
    if (valid.empty() && !ranks.empty()) {
        return {Errc::bad_param, fmt::format("job {}: none of the {} ranks to launch is a process of the job",
                                             job->nspace, ranks.size())};
    }
    // The job's processes on this node, also when one of them is started again alone (a restart).
    int local_size = 0;
    for (const auto& p : job->procs) {
        if (p && p->node && p->node->name == services_.node_name) ++local_size;
    }
    if (local_size < static_cast<int>(valid.size())) local_size = static_cast<int>(valid.size());
    for (runtime::Rank rank : place_preloads(job, valid)) launch_one(job, rank, local_size);
    return {};
}

std::vector<runtime::Rank> DefaultModule::place_preloads(const runtime::JobPtr& job, const std::vector<runtime::Rank>& ranks)
{
    std::map<int, Status> apps;  // each app of these ranks, placed once
    std::vector<runtime::Rank> ready;
    for (runtime::Rank rank : ranks) {
        runtime::Proc& proc = *job->proc(rank);
        if (proc.app_index < 0 || static_cast<size_t>(proc.app_index) >= job->apps.size()) {
            ready.push_back(rank);  // launch_one says what is wrong with it
            continue;
        }
        auto [it, first] = apps.try_emplace(proc.app_index);
        if (first) it->second = preloads_->place(*job, job->apps[proc.app_index]);
        if (it->second) {
            ready.push_back(rank);
        } else {
            fail_before_fork(job, proc, it->second.message());
        }
    }
    return ready;
}

void DefaultModule::release_job(const runtime::JobPtr& job)
{
    if (preloads_ && job) preloads_->release(job->nspace);
}

void DefaultModule::launch_one(const runtime::JobPtr& job, runtime::Rank rank, int local_size)
{
    runtime::Proc& proc = *job->proc(rank);
    if (proc.app_index < 0 || static_cast<size_t>(proc.app_index) >= job->apps.size()) {
        fail_before_fork(job, proc, fmt::format("it belongs to app context {}, which the job does not have",
                                                proc.app_index));
        return;
    }
    const runtime::AppContext& app = job->apps[proc.app_index];
    // prun --preload-binary: the copy written to the job's session directory here.
    const std::string preloaded = preloads_->program_of(job->nspace, proc.app_index);
    const std::string program = !preloaded.empty()         ? preloaded
                                : !app.executable.empty() ? app.executable
                                : app.argv.empty()        ? ""
                                                          : app.argv[0];
    if (program.empty()) {
        fail_before_fork(job, proc, "no executable was given");
        return;
    }

    // prun --mpi: PMIx (and Open MPI's variables), PMI, both (the default) or neither.
    const runtime::MpiInterface mpi = job->mpi;
    const bool gets_pmix = mpi == runtime::MpiInterface::automatic || mpi == runtime::MpiInterface::pmix;
    const bool asks_pmi = mpi == runtime::MpiInterface::pmi1 || mpi == runtime::MpiInterface::pmi2;
    pmi::Module* pmi_server = mpi == runtime::MpiInterface::automatic || asks_pmi ? services_.pmi : nullptr;
    if (asks_pmi && !pmi_server) {
        fail_before_fork(job, proc, fmt::format("the job asks for --mpi {}, and this DVM serves no PMI (the pmi "
                                                "framework has no component here: see prte_info)",
                                                runtime::to_string(mpi)));
        return;
    }

    ChildEnvironmentInput input;
    if (services_.setup_fork && gets_pmix) {
        if (Status st = services_.setup_fork(job, rank, input.pmix); !st) {
            fail_before_fork(job, proc, "the PMIx server cannot prepare its environment: " + st.message());
            return;
        }
    }
    input.daemon_environ = ::environ;
    input.job = job.get();
    input.proc = &proc;
    input.app = &app;
    input.local_size = local_size;
    input.node_name = node_of(proc);
    input.daemon_rank = services_.daemon_rank;
    input.ompi_compat = options_.ompi_compat && gets_pmix;
    input.ompi_shm_dir = services_.ompi_shm_dir;
    input.oversubscribed = services_.oversubscribed && services_.oversubscribed(*job, proc);
    Environment env = build_child_environment(input);

    std::optional<Binding> binding;
    if (Status st = binding_for(proc, binding); !st) {
        fail_before_fork(job, proc, st.message());
        return;
    }

    SpawnRequest request;
    request.candidates = executable_candidates(program, env);
    request.argv = app.argv.empty() ? std::vector<std::string>{program} : app.argv;
    if (!preloaded.empty()) request.argv[0] = preloaded;  // as PRRTE: argv[0] names the copy run
    request.env = env.entries();
    request.working_dir = app.working_dir;
    if (binding && CPU_COUNT(&binding->cpus) > 0) request.cpus = binding->cpus;
    request.merge_stderr = job->output.merge_stderr;
    request.stdin_pipe = job->stdin_target.includes(rank);
    if (job->reports.bindings) {
        request.binding_report =
            binding ? fmt::format("[{}] Rank {} bound to {}\n", input.node_name, rank, binding->description)
                    : proc.binding.empty()
                    ? fmt::format("[{}] Rank {} is not bound (or bound to all available processors)\n", input.node_name, rank)
                    // placement chose not to, and says why (a node sharing its machine's CPUs)
                    : fmt::format("[{}] Rank {} is not bound: {}\n", input.node_name, rank, proc.binding);
    }
    pmi::Endpoint pmi_endpoint;
    if (pmi_server) {
        if (Status st = pmi_server->prepare(job, rank, pmi_endpoint); !st) {
            fail_before_fork(job, proc, st.message());
            return;
        }
        for (const auto& entry : pmi_endpoint.env) env.put(entry);
        request.env = env.entries();
        request.inherited_fd = pmi_endpoint.child_fd;
    }
    SpawnedChild spawned;
    Status spawned_status = spawn(request, spawned);
    if (pmi_endpoint.child_fd >= 0) ::close(pmi_endpoint.child_fd);  // the child has its own now
    if (!spawned_status) {
        if (pmi_server) pmi_server->process_ended(job, rank, false);
        fail_before_fork(job, proc, spawned_status.message());
        return;
    }

    auto child = std::make_unique<Child>();
    child->module = this;
    child->id = next_child_id_++;
    child->job = job;
    child->rank = rank;
    child->pid = spawned.pid;
    child->program = program;
    child->working_dir = app.working_dir;
    child->binding = binding ? binding->description : "";
    child->merged_stderr = request.merge_stderr;
    child->status.fd = spawned.status_fd;
    child->out.fd = spawned.stdout_fd;
    child->out.channel = PMIX_FWD_STDOUT_CHANNEL;
    child->err.fd = spawned.stderr_fd;
    child->err.channel = PMIX_FWD_STDERR_CHANNEL;
    child->in.pipe.adopt(spawned.stdin_fd);
    proc.pid = spawned.pid;
    watch(*child);
    verbose()(5, "job {} rank {}: forked {} as pid {}", job->nspace, rank, program, spawned.pid);
    verbose()(10, "job {} rank {}: argv [{}], working directory {}, binding {}, {} environment variables",
              job->nspace, rank, util::join(request.argv, " "),
              app.working_dir.empty() ? "(the daemon's)" : app.working_dir,
              binding ? binding->description : "none", request.env.size());
    children_.emplace(child->id, std::move(child));
    ++live_;
}

void DefaultModule::fail_before_fork(const runtime::JobPtr& job, runtime::Proc& proc, const std::string& why)
{
    std::string message = fmt::format("cannot start rank {} on node {}: {}", proc.rank, node_of(proc), why);
    verbose()(5, "job {}: {}", job->nspace, message);
    proc.pid = 0;  // nothing to close or reap: the state machine counts it as gone at once
    proc.exit_code = 127;
    if (job->abort_message.empty() && !job->aborting) job->abort_message = message;
    services_.state->activate_proc_state(job, proc.rank, ProcState::failed_to_start);
}

void DefaultModule::watch(Child& child)
{
    event_base* base = services_.loop->base();
    child.status.child = child.out.child = child.err.child = &child;
    child.status.ev = event_new(base, child.status.fd, EV_READ | EV_PERSIST, &DefaultModule::on_status, &child);
    event_add(child.status.ev, nullptr);
    for (Stream* s : {&child.out, &child.err}) {
        if (!s->open()) continue;
        s->ev = event_new(base, s->fd, EV_READ | EV_PERSIST, &DefaultModule::on_output, s);
        if (!reading_paused(*child.job)) event_add(s->ev, nullptr);
    }
    if (child.in.pipe.open()) {
        child.in.ev = event_new(base, child.in.pipe.fd(), EV_WRITE | EV_PERSIST, &DefaultModule::on_stdin_writable,
                                &child);
        if (!child.in.ev) child.in.close();  // it reads EOF rather than data we could not deliver
    }
}

void DefaultModule::on_status(int, short, void* arg)
{
    auto* child = static_cast<Child*>(arg);
    child->module->report(*child);
}

void DefaultModule::on_output(int, short, void* arg)
{
    auto* stream = static_cast<Stream*>(arg);
    stream->child->module->read_output(*stream);
}

void DefaultModule::on_sigchld(int, short, void* arg) { static_cast<DefaultModule*>(arg)->reap(); }

void DefaultModule::on_stdin_writable(int, short, void* arg)
{
    auto* child = static_cast<Child*>(arg);
    child->module->feed_stdin(*child);
}

void DefaultModule::resolve_exec(Child& child)
{
    if (child.exec != Child::Exec::pending) return;
    ChildFailure failure;
    ExecOutcome outcome = read_exec_outcome(child.status.fd, failure);
    if (outcome == ExecOutcome::pending) return;
    child.status.close();
    const runtime::JobPtr& job = child.job;
    runtime::Proc* proc = job->proc(child.rank);  // null only if the job was unmapped meanwhile
    if (outcome == ExecOutcome::started) {
        child.exec = Child::Exec::started;
        verbose()(10, "job {} rank {}: pid {} is running {}", job->nspace, child.rank, child.pid, child.program);
        services_.state->activate_proc_state(job, child.rank, ProcState::running);
        return;
    }
    child.exec = Child::Exec::failed;
    std::string detail;
    switch (failure.step) {
    case FailedStep::exec: detail = fmt::format("{}: {}", child.program, error_text(failure.error)); break;
    case FailedStep::working_dir:
        detail = fmt::format("cannot change to working directory {}: {}", child.working_dir, error_text(failure.error));
        break;
    case FailedStep::binding:
        detail = fmt::format("cannot bind to {}: {}", child.binding, error_text(failure.error));
        break;
    case FailedStep::setup:
        detail = fmt::format("cannot set up its standard input and output: {}", error_text(failure.error));
        break;
    }
    std::string message = fmt::format("cannot start rank {} on node {}: {}", child.rank,
                                      proc ? node_of(*proc) : services_.node_name, detail);
    verbose()(5, "job {}: {}", job->nspace, message);
    if (proc) proc->exit_code = exit_status_for(failure);
    if (job->abort_message.empty() && !job->aborting) job->abort_message = message;
    services_.state->activate_proc_state(job, child.rank, ProcState::failed_to_start);
}

void DefaultModule::read_output(Stream& stream)
{
    Child& child = *stream.child;
    std::array<char, 16384> buffer;
    ssize_t n = ::read(stream.fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n > 0) {
        if (services_.deliver_output) services_.deliver_output(*child.job, child.rank, stream.channel, buffer.data(), n);
        if (services_.output_backlogged && services_.output_backlogged(*child.job)) pause_reading(child.job);
        return;
    }
    if (n < 0) {
        verbose()(1, "job {} rank {}: reading its output failed ({}); treating it as closed", child.job->nspace,
                  child.rank, error_text(errno));
    }
    close_stream(stream);
    report(child);  // may forget the child: nothing below this line
}

void DefaultModule::pause_reading(const runtime::JobPtr& job)
{
    if (reading_paused(*job) || !services_.when_output_drains) return;
    paused_jobs_.insert(job->nspace);
    verbose()(10, "job {}: output backlog, pausing the reading of its output", job->nspace);
    for (auto& [id, child] : children_) {
        if (child->job != job || child->reaped) continue;  // see reap()
        for (Stream* s : {&child->out, &child->err}) {
            if (s->ev) event_del(s->ev);
        }
    }
    services_.when_output_drains(*job, [this, nspace = job->nspace] { resume_reading(nspace); });
}

void DefaultModule::resume_reading(const std::string& nspace)
{
    if (!paused_jobs_.erase(nspace)) return;
    verbose()(10, "job {}: output drained, reading its output again", nspace);
    for (auto& [id, child] : children_) {
        if (child->job->nspace != nspace) continue;
        for (Stream* s : {&child->out, &child->err}) {
            if (s->ev) event_add(s->ev, nullptr);
        }
    }
}

void DefaultModule::close_stream(Stream& stream)
{
    Child& child = *stream.child;
    stream.close();
    if (!services_.deliver_output) return;
    services_.deliver_output(*child.job, child.rank, stream.channel, "", 0);
    // With --output merge-stderr there is no stderr pipe; its end comes with stdout's.
    if (child.merged_stderr && stream.channel == PMIX_FWD_STDOUT_CHANNEL) {
        services_.deliver_output(*child.job, child.rank, PMIX_FWD_STDERR_CHANNEL, "", 0);
    }
}

void DefaultModule::reap()
{
    std::vector<uint64_t> ended;
    for (auto& [id, child] : children_) {
        if (child->reaped) continue;
        const pid_t pid = child->pid;
        int status = 0;
        pid_t r;
        do {
            r = ::waitpid(pid, &status, WNOHANG);
        } while (r < 0 && errno == EINTR);
        if (r == pid) {
            child->wait_status = status;
        } else if (r < 0 && errno == ECHILD) {
            // Someone in this process called waitpid(-1) and took it: its status is lost.
            output::warning("job {} rank {} (pid {}) was reaped by another part of this process; its exit status "
                            "is unknown",
                            child->job->nspace, child->rank, pid);
            child->status_known = false;
        } else {
            continue;
        }
        child->reaped = true;
        --live_;
        ended.push_back(id);
        // A process that has ended writes no more: what is left in its pipes is bounded, so it is
        // read to the end even while the job's output is paused. Otherwise a job whose reader
        // stopped (a prun killed while behind) could never complete, nor the DVM shut down.
        if (reading_paused(*child->job)) {
            for (Stream* s : {&child->out, &child->err}) {
                if (s->ev) event_add(s->ev, nullptr);
            }
        }
    }
    for (uint64_t id : ended) {
        auto it = children_.find(id);
        if (it != children_.end()) report(*it->second);
    }
    if (!ended.empty()) drop_spent_kill_timers();
}

void DefaultModule::report(Child& child)
{
    resolve_exec(child);
    if (child.exec == Child::Exec::pending) return;  // RUNNING or FAILED_TO_START always comes first
    const runtime::JobPtr job = child.job;
    if (!child.iof_reported && !child.out.open() && !child.err.open()) {
        child.iof_reported = true;
        services_.state->activate_proc_state(job, child.rank, ProcState::iof_complete);
    }
    if (!child.waitpid_reported && child.reaped) {
        child.waitpid_reported = true;
        int status = child.wait_status;
        int exit_code = 1, term_signal = 0;  // unknown: reaped by someone else
        if (child.status_known && WIFSIGNALED(status)) {
            term_signal = WTERMSIG(status);
            exit_code = 128 + term_signal;
        } else if (child.status_known) {
            exit_code = WEXITSTATUS(status);
        }
        if (term_signal != 0) {
            verbose()(5, "job {} rank {}: pid {} killed by signal {} ({})", job->nspace, child.rank, child.pid,
                      term_signal, strsignal(term_signal));
        } else {
            verbose()(5, "job {} rank {}: pid {} exited with status {}", job->nspace, child.rank, child.pid,
                      exit_code);
        }
        if (runtime::Proc* proc = job->proc(child.rank)) {
            proc->exit_code = exit_code;
            proc->term_signal = term_signal;
        }
        if (services_.process_ended) services_.process_ended(*job, child.rank, term_signal != 0 || exit_code != 0);
        if (services_.pmi) services_.pmi->process_ended(job, child.rank, term_signal == 0 && exit_code == 0);
        services_.state->activate_proc_state(job, child.rank, ProcState::waitpid_fired);
    }
    if (child.iof_reported && child.waitpid_reported) {
        close_stdin(child);  // a tool waiting for its last chunk to be accepted is told now
        uint64_t id = child.id;
        children_.erase(id);  // frees the child: nothing below but what needs no child
        drop_spent_kill_timers();
    }
}

DefaultModule::Child* DefaultModule::find_child(const runtime::JobPtr& job, runtime::Rank rank)
{
    // Not by pid: the entry of a process that was reaped may stay while its output is open.
    for (auto& [id, child] : children_) {
        if (child->job == job && child->rank == rank) return child.get();
    }
    return nullptr;
}

void DefaultModule::write_stdin(const runtime::JobPtr& job, runtime::Rank rank, std::string_view data, bool eof,
                                StdinDone done)
{
    assert_on_loop(services_);
    if (!done) done = [](const Status&) {};
    Child* child = job ? find_child(job, rank) : nullptr;
    if (!child || !child->in.pipe.open()) {
        // Not a stdin target, not on this node, or its stdin is closed: as a terminal's input
        // is when nobody reads it, the data goes nowhere.
        verbose()(10, "job {} rank {}: {} bytes of stdin{} dropped: {}", job ? job->nspace : "?", rank, data.size(),
                  eof ? " and its end" : "", child ? "its stdin is closed" : "no such local process");
        done({});
        return;
    }
    if (Status st = child->in.pipe.push(data, eof); !st) {
        verbose()(1, "job {} rank {}: stdin refused: {}", job->nspace, rank, st.message());
        done({st.code(), fmt::format("rank {} of job {} on node {}: {}; it does not read its stdin as fast as it "
                                     "is sent",
                                     rank, job->nspace, services_.node_name, st.message())});
        return;
    }
    verbose()(10, "job {} rank {}: {} bytes of stdin queued{}", job->nspace, rank, data.size(),
              eof ? ", then its end" : "");
    feed_stdin(*child);
    child->in.pipe.when_accepted(std::move(done));
}

void DefaultModule::feed_stdin(Child& child)
{
    StdinPipe& pipe = child.in.pipe;
    switch (pipe.flush()) {
    case StdinPipe::Flush::blocked:
        event_add(child.in.ev, nullptr);
        break;
    case StdinPipe::Flush::drained:
        event_del(child.in.ev);
        break;
    case StdinPipe::Flush::closed:
        verbose()(5, "job {} rank {}: end of stdin, its pipe closed", child.job->nspace, child.rank);
        close_stdin(child);
        return;
    case StdinPipe::Flush::reader_gone:
        verbose()(5, "job {} rank {}: it no longer reads its stdin; the rest is dropped", child.job->nspace,
                  child.rank);
        close_stdin(child);
        return;
    case StdinPipe::Flush::failed:
        verbose()(1, "job {} rank {}: writing to its stdin failed ({}); the rest is dropped", child.job->nspace,
                  child.rank, error_text(pipe.error()));
        close_stdin(child);
        return;
    }
    for (auto& done : pipe.take_accepted()) done({});
}

void DefaultModule::close_stdin(Child& child)
{
    child.in.close();
    for (auto& done : child.in.pipe.take_accepted()) done({});
}

bool DefaultModule::is_signalable(const Child& child)
{
    return !child.reaped || child.out.open() || child.err.open();
}

void DefaultModule::signal_child(const Child& child, int signal) const
{
    // The group reaches what the process started too; the pid alone is the fallback for a child
    // that had not made its group yet.
    if (!child.reaped) {
        if (::kill(-child.pid, signal) != 0 && errno == ESRCH) ::kill(child.pid, signal);
        return;
    }
    // Reaped, but something it started still holds its output open (a script that left a
    // background process behind): without this the job could not be stopped. The group id cannot
    // have been reused while that group has a member; once it has none, this finds no one.
    if (child.out.open() || child.err.open()) ::kill(-child.pid, signal);
}

void DefaultModule::signal(const runtime::JobPtr& job, int signal)
{
    if (!initialized_) return;
    assert_on_loop(services_);
    for (const auto& [id, child] : children_) {
        if ((job && child->job != job) || !is_signalable(*child)) continue;
        verbose()(5, "job {} rank {}: sending signal {} to pid {}", child->job->nspace, child->rank, signal,
                  child->pid);
        signal_child(*child, signal);
    }
}

void DefaultModule::kill(const runtime::JobPtr& job)
{
    if (!initialized_) return;
    assert_on_loop(services_);
    auto timer = std::make_unique<KillTimer>();
    for (const auto& [id, child] : children_) {
        if ((job && child->job != job) || !is_signalable(*child)) continue;
        timer->children.push_back(id);
    }
    if (timer->children.empty()) return;
    if (services_.job_killing) {
        std::set<const runtime::Job*> jobs;
        for (uint64_t id : timer->children) {
            const Child& child = *children_.at(id);
            if (jobs.insert(child.job.get()).second) services_.job_killing(*child.job);
        }
    }
    const bool at_once = options_.kill_grace.count() <= 0;
    verbose()(5, "{}: terminating {} local process(es) with {}", job ? job->nspace : "all jobs",
              timer->children.size(), at_once ? "SIGKILL" : "SIGTERM");
    for (uint64_t id : timer->children) {
        const Child& child = *children_.at(id);
        if (at_once) {
            signal_child(child, SIGKILL);
        } else {
            signal_child(child, SIGTERM);
            signal_child(child, SIGCONT);  // a stopped process must wake up to die
        }
    }
    if (at_once) return;
    kill_timers_.push_back(std::move(timer));
    auto self = std::prev(kill_timers_.end());
    (*self)->timer = runtime::LoopTimer(*services_.loop, [this, self] { on_kill_timer(self); });
    (*self)->timer.arm(options_.kill_grace);
}

void DefaultModule::on_kill_timer(std::list<std::unique_ptr<KillTimer>>::iterator self)
{
    for (uint64_t id : (*self)->children) {
        auto it = children_.find(id);
        if (it == children_.end() || !is_signalable(*it->second)) continue;
        verbose()(5, "job {} rank {}: pid {} still alive {} ms after SIGTERM; sending SIGKILL",
                  it->second->job->nspace, it->second->rank, it->second->pid, options_.kill_grace.count());
        signal_child(*it->second, SIGKILL);
    }
    kill_timers_.erase(self);  // frees the timer: nothing below this line
}

void DefaultModule::drop_spent_kill_timers()
{
    kill_timers_.remove_if([this](const std::unique_ptr<KillTimer>& t) {
        return std::none_of(t->children.begin(), t->children.end(), [this](uint64_t id) {
            auto it = children_.find(id);
            return it != children_.end() && is_signalable(*it->second);
        });
    });
}

void DefaultModule::finalize() noexcept
{
    if (preloads_) preloads_->release_all();
    kill_timers_.clear();
    for (auto& [id, child] : children_) {
        signal_child(*child, SIGKILL);
        int status;
        if (!child->reaped) ::waitpid(child->pid, &status, WNOHANG);  // never blocks; the rest is init's
    }
    children_.clear();
    live_ = 0;
    if (sigchld_) event_free(sigchld_);
    sigchld_ = nullptr;
    initialized_ = false;
}

std::string DefaultModule::node_of(const runtime::Proc& proc) const
{
    return proc.node && !proc.node->name.empty() ? proc.node->name : services_.node_name;
}

}  // namespace prte::odls::default_component
