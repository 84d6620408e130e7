#include "tools/prun/job_control.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "tools/prun/exit_status.h"
#include "tools/prun/forward_signals.h"
#include "tools/prun/signals.h"
#include "tools/prun/spawn_request.h"
#include "tools/prun/tool_connection.h"

namespace prte::prun {

using Clock = std::chrono::steady_clock;

Run::Run(const Request& request, JobEvents& events, const output::VerboseStream& trace)
    : request_(request),
      events_(events),
      trace_(trace),
      writer_(request.output),
      output_(writer_, events, trace),
      stdin_(events, trace),
      dvm_(events, trace)
{
}

Status Run::start_pmix_early() { return dvm_.start_early(); }

Status Run::spawn()
{
    Apps apps(request_.apps.size());
    std::vector<std::string> notes;
    if (Status st = fill_apps(request_, apps, notes); !st) return st;
    if (!request_.quiet) {
        for (const std::string& note : notes) std::fprintf(stderr, "prun: note: %s\n", note.c_str());
    }
    tools::InfoList job;
    fill_job_info(request_, output_.path(), stdin_.forwarding(), job);
    pmix_status_t rc = PMIx_Spawn_nb(job.data(), job.size(), apps.data(), apps.size(), on_spawned, &events_);
    if (rc != PMIX_SUCCESS) {
        return {Errc::internal, fmt::format("{} refused the job: {}", dvm_.text(), tools::status_text(rc))};
    }
    // Wait for the reply (PMIx copies the request, so `apps` may go now); the loop below keeps
    // serving signals meanwhile.
    while (true) {
        {
            std::lock_guard<std::mutex> lock(events_.mutex);
            if (events_.spawn_replied || events_.connection_lost) break;
        }
        // Interrupted before the DVM named the job (it may be waiting on daemons, or held): there
        // is nothing to kill by name yet. We leave; the DVM watches our pid (src/pmix/spawner_watch.cc)
        // and ends the job we asked for, so waiting here would only make ^C look ignored.
        if (signals::count() > 0) return {Errc::cancelled, "interrupted before the job started: the DVM ends it"};
        events_.wait_for_wake();
    }
    std::unique_lock<std::mutex> lock(events_.mutex);
    if (!events_.spawn_replied) {
        return {Errc::unreachable,
                fmt::format("lost the connection to {} before the job started: it has died or was terminated",
                            dvm_.text())};
    }
    nspace_ = events_.nspace;
    pmix_status_t status = events_.spawn_status;
    if (status == PMIX_SUCCESS) return {};

    // A DVM may explain the failure in a job-end event: give it a moment to arrive.
    lock.unlock();
    auto deadline = Clock::now() + std::chrono::milliseconds(250);
    std::string message;
    while (!nspace_.empty() && Clock::now() < deadline) {
        {
            std::lock_guard<std::mutex> guard(events_.mutex);
            if (auto it = events_.ended.find(nspace_); it != events_.ended.end()) {
                message = it->second.message;
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (message.empty()) message = fmt::format("cannot start {}: {}", commands_of(request_), launch_failure_reason(status));
    return {Errc::refused, one_line(message)};
}

// Testing only: PRTE_TEST_PRUN_PULL_AFTER=<path> makes prun ask for the job's output only once that
// file exists (at most 60 s), so that a test can make the DVM hold more output than its limit for
// a spawner that is slow to ask (test output_held_for_slow_spawner).
namespace {

void wait_for_test_gate()
{
    const char* gate = std::getenv("PRTE_TEST_PRUN_PULL_AFTER");
    if (!gate || !*gate) return;
    struct stat st;
    for (int waited = 0; stat(gate, &st) != 0 && waited < 6000; ++waited) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

void Run::start_output_and_input()
{
    writer_.set_job_label(request_.output.tag_fullname ? nspace_ : job_id());
    trace_(1, "job {} (namespace {}) started", job_id(), nspace_);
    wait_for_test_gate();
    output_.start(nspace_, job_id());
    stdin_.start(nspace_, request_.stdin_target);
}

void Run::kill_job(const char* why)
{
    if (kill_sent_ || nspace_.empty()) return;
    kill_sent_ = true;
    trace_(1, "terminating job {}: {}", job_id(), why);
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, nspace_.c_str(), PMIX_RANK_WILDCARD);
    tools::InfoList directives;
    directives.add_bool(PMIX_JOB_CTRL_KILL, true);
    pmix_status_t rc =
        PMIx_Job_control_nb(&target, 1, directives.data(), directives.size(), on_kill_replied, &events_);
    if (rc != PMIX_SUCCESS) {
        std::lock_guard<std::mutex> lock(events_.mutex);
        events_.kill_replied = true;
        events_.kill_status = rc;
    }
}

// Each signal prun caught for the job, in the order they came, to every process of the job on
// every node: PMIx_Job_control_nb with PMIX_JOB_CTRL_SIGNAL, which any PMIx tool can send (served
// in src/pmix/tools.cc). Signals caught before the job had a name wait for it in the queue.
void Run::forward_signals()
{
    if (nspace_.empty()) return;
    while (int sig = signals::next_forwarded()) {
        if (kill_sent_) continue;  // the job is ending: a TSTP now would only keep it from dying
        trace_(1, "forwarding signal {} to job {}", sig, job_id());
        pmix_proc_t target;
        PMIX_LOAD_PROCID(&target, nspace_.c_str(), PMIX_RANK_WILDCARD);
        tools::InfoList directives;
        directives.add_int(PMIX_JOB_CTRL_SIGNAL, sig);
        auto* forwarded = new SignalForwarded{&events_, sig};
        pmix_status_t rc =
            PMIx_Job_control_nb(&target, 1, directives.data(), directives.size(), on_signal_replied, forwarded);
        if (rc != PMIX_SUCCESS) {
            delete forwarded;
            output::warning("cannot forward {} to job {}: {}", signal_name(sig), job_id(), tools::status_text(rc));
        }
    }
    std::vector<std::pair<int, pmix_status_t>> refused;
    {
        std::lock_guard<std::mutex> lock(events_.mutex);
        refused.swap(events_.signals_refused);
    }
    for (const auto& [sig, status] : refused) {
        output::warning("the DVM did not forward {} to job {}: {}", signal_name(sig), job_id(), tools::status_text(status));
    }
}

void Run::loop()
{
    // Our own guard behind the DVM's --timeout, in case the DVM does not enforce it.
    std::optional<Clock::time_point> timeout_guard;
    if (request_.timeout > 0) timeout_guard = Clock::now() + std::chrono::seconds(request_.timeout + 10);

    while (true) {
        bool push_pending;
        {
            std::lock_guard<std::mutex> lock(events_.mutex);
            if (events_.ended.count(nspace_) || events_.ended.count("") || events_.connection_lost) return;
            push_pending = events_.push_pending;
            if (!push_pending && events_.push_status != PMIX_SUCCESS && stdin_.forwarding()) {
                trace_(1, "stdin is not forwarded: {}", tools::status_text(events_.push_status));
                stdin_.stop();
            }
            if (events_.kill_replied && events_.kill_status != PMIX_SUCCESS && !timed_out_by_us_ &&
                signals::count() > 0) {
                output::error("cannot terminate job {}: {}", job_id(), tools::status_text(events_.kill_status));
                std::exit(128 + signals::last());
            }
        }
        if (signals::count() > interrupt_seen_) {
            interrupt_seen_ = signals::count();
            if (signals::last() == SIGINT) {
                output::warning("terminating job {} (interrupt again to exit at once)", job_id());
            }
            kill_job("interrupted");
        }
        forward_signals();
        if (!stdout_gone_ && writer_.stdout_broken()) {
            stdout_gone_ = true;
            kill_job("nobody reads its output any more");
        }
        if (timeout_guard && Clock::now() >= *timeout_guard && !timed_out_by_us_) {
            timed_out_by_us_ = true;
            kill_job("--timeout expired");
        }

        std::vector<struct pollfd> fds;
        fds.push_back({events_.wake_fd(), POLLIN, 0});
        if (stdin_.wants_input() && !push_pending) fds.push_back({STDIN_FILENO, POLLIN, 0});
        if (stdout_is_pipe_ && !stdout_gone_) fds.push_back({STDOUT_FILENO, 0, 0});  // POLLERR: reader gone
        int wait_ms = -1;
        if (timeout_guard && !timed_out_by_us_) {
            wait_ms = static_cast<int>(std::max<int64_t>(
                std::chrono::duration_cast<std::chrono::milliseconds>(*timeout_guard - Clock::now()).count() + 1, 0));
        }
        int n = poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) return;
        for (const auto& p : fds) {
            if (p.fd == events_.wake_fd() && (p.revents & POLLIN)) {
                events_.drain();
            } else if (p.fd == STDIN_FILENO && p.revents) {
                stdin_.forward_chunk();
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
        std::lock_guard<std::mutex> lock(events_.mutex);
        // An end event that names no namespace can only be ours.
        auto it = events_.ended.find(nspace_);
        if (it == events_.ended.end()) it = events_.ended.find("");
        ended = it != events_.ended.end();
        if (ended) end = it->second;
    }
    if (!ended) {
        writer_.flush();
        output::error("lost the connection to {} while job {} was running: the DVM has died or was terminated",
                      dvm_.text(), job_id());
        return 1;
    }

    // In this order: the DVM's end-of-output marker, the answer to our last stdin push, then the
    // round trip after which nothing more of the job's output can come (output_relay.h).
    output_.wait_for_end_marker(std::chrono::seconds(5));
    if (stdin_.forwarding()) stdin_.wait_for_push_answer(std::chrono::seconds(2));
    output_.wait_for_the_rest(std::chrono::milliseconds(2000));
    writer_.flush();

    if (stdout_gone_) return 128 + SIGPIPE;
    if (signals::count() > 0) return 128 + signals::last();

    int status = exit_status_of(end);
    bool timed_out = end.status == PMIX_ERR_TIMEOUT || timed_out_by_us_;
    if (timed_out) {
        output::error("job {} timed out after {} seconds", job_id(), request_.timeout);
        if (!end.message.empty() && end.message.find("timed out") == std::string::npos) {
            output::error("{}", one_line(end.message));
        }
        return kTimedOutExit;
    }
    if (status != 0) {
        if (!end.message.empty()) {
            output::error("{}", one_line(end.message));
        } else if (is_launch_failure(end.status)) {
            output::error("cannot start {}: {}", commands_of(request_), launch_failure_reason(end.status));
        } else if (end.status < 0 && end.status != PMIX_ERR_JOB_NON_ZERO_TERM) {
            output::error("job {} failed: {}", job_id(), tools::status_text(end.status));
        }
    }
    return status;
}

int Run::execute(const runtime::dvm_registry::Entry& dvm)
{
    struct stat st {};
    stdout_is_pipe_ = fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
    // --output xml: the document is whole whatever happens next (an error goes to stderr).
    writer_.begin_document();
    int status = run_job(dvm);
    writer_.end_document();
    return status;
}

int Run::run_job(const runtime::dvm_registry::Entry& dvm)
{

    if (Status s = dvm_.connect(dvm); !s) {
        output::error("{}", s.message());
        return 1;
    }
    output_.choose_path(dvm_.dvm(), dvm_.self());
    stdin_.decide(request_.stdin_target);
    if (Status s = spawn(); !s) {
        output::error("{}", s.message());
        if (s.code() == Errc::cancelled) return 128 + signals::last();
        if (s.code() == Errc::refused) {
            std::lock_guard<std::mutex> lock(events_.mutex);
            // --spawn-timeout ended it before it ran.
            if (events_.spawn_status == PMIX_ERR_TIMEOUT) return kTimedOutExit;
            return is_launch_failure(events_.spawn_status) ? launch_failure_exit(events_.spawn_status) : 1;
        }
        return 1;
    }
    start_output_and_input();
    loop();
    int status = finish();
    output_.stop_writing();
    return status;
}

}  // namespace prte::prun
