#include "runtime/stack_tracer.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::runtime {
namespace {

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// The frames of gdb's "thread apply all bt": everything else it prints (symbols being read, the
// attach and detach) says nothing about where the process is.
bool is_stack_line(const std::string& line)
{
    return line.rfind("Thread ", 0) == 0 || line.rfind("#", 0) == 0;
}

}  // namespace

std::string find_debugger(const std::string& name)
{
    if (name.empty()) return {};
    if (name.find('/') != std::string::npos) return executable(name) ? name : std::string();
    const char* path = std::getenv("PATH");
    for (const std::string& dir : util::split(path ? path : "", ':', true)) {
        std::string candidate = dir + "/" + name;
        if (executable(candidate)) return candidate;
    }
    return {};
}

struct StackTracer::Attempt {
    StackTrace trace;
    ChildProcess child;
    std::vector<std::string> stack;   // the frames it printed
    std::vector<std::string> others;  // the rest, for when it printed none
    bool ended = false;
};

StackTracer::StackTracer(EventLoop& loop, std::string debugger, std::chrono::seconds limit)
    : loop_(loop), debugger_(std::move(debugger)), limit_(limit)
{
}

StackTracer::~StackTracer()
{
    for (auto& a : attempts_) {
        if (a->child.running()) a->child.signal(SIGKILL);
    }
}

void StackTracer::start(const std::string& node, const std::vector<Target>& targets, Done done)
{
    result_.node = node;
    done_ = std::move(done);
    std::string path = find_debugger(debugger_);
    if (path.empty() && !targets.empty()) {
        result_.note = fmt::format("no stack traces on node {}: the debugger '{}' was not found (prte_stack_trace_debugger; "
                                   "install gdb there)",
                                   node, debugger_);
    }
    for (const Target& t : targets) {
        auto attempt = std::make_unique<Attempt>();
        attempt->trace.rank = t.rank;
        attempt->trace.pid = t.pid;
        Attempt* a = attempt.get();
        attempts_.push_back(std::move(attempt));
        if (path.empty()) {
            a->ended = true;
            continue;
        }
        ChildProcess::Spec spec;
        spec.argv = {path, "-nx", "-batch", "-p", std::to_string(t.pid), "-ex", "thread apply all bt"};
        Status st = a->child.start(
            loop_.base(), spec,
            [a](const std::string& line) { (is_stack_line(line) ? a->stack : a->others).push_back(line); },
            [this, a](int wait_status) { attempt_ended(*a, wait_status); });
        if (!st) {
            a->trace.text = st.message();
            a->ended = true;
            continue;
        }
        ++running_;
    }
    if (running_ > 0) {
        limit_timer_ = LoopTimer(loop_, [this] { at_limit(); });
        limit_timer_.arm(limit_);
    }
    finish_if_done();
}

void StackTracer::attempt_ended(Attempt& a, int wait_status)
{
    if (a.ended) return;
    a.ended = true;
    --running_;
    if (!a.stack.empty()) {
        a.trace.text = util::join(a.stack, "\n");
    } else {
        // No frame: what the debugger said instead ("ptrace: Operation not permitted.").
        std::vector<std::string> last(a.others.end() - static_cast<long>(std::min<size_t>(a.others.size(), 4)), a.others.end());
        a.trace.text = fmt::format("{} printed no stack ({}){}{}", debugger_, ChildProcess::describe(wait_status),
                                   last.empty() ? "" : ": ", util::join(last, " | "));
    }
    finish_if_done();
}

void StackTracer::at_limit()
{
    for (auto& a : attempts_) {
        if (a->ended) continue;
        a->ended = true;
        a->child.signal(SIGKILL);
        std::string partial = a->stack.empty() ? "" : "\n" + util::join(a->stack, "\n");
        a->trace.text = fmt::format("{} did not finish within {} s (prte_stack_trace_timeout) and was killed{}",
                                    debugger_, limit_.count(), partial);
    }
    running_ = 0;
    finish_if_done();
}

void StackTracer::finish_if_done()
{
    if (finished_ || running_ > 0) return;
    finished_ = true;
    limit_timer_.cancel();
    if (result_.note.empty()) {
        for (auto& a : attempts_) result_.traces.push_back(a->trace);
    }
    // Posted: the owner may destroy this tracer from `done`, and we may be inside a child's callback.
    loop_.post([done = std::move(done_), result = std::move(result_)]() mutable { done(std::move(result)); });
}

std::vector<StackTracer::Target> live_processes_on(const Job& job, Rank daemon)
{
    std::vector<StackTracer::Target> out;
    for (const auto& p : job.procs) {
        if (p->node && p->node->daemon == daemon && p->pid > 0 && !p->waitpid_fired) out.push_back({p->rank, p->pid});
    }
    return out;
}

}  // namespace prte::runtime
