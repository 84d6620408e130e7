#include "runtime/runtime.h"

#include <event2/event.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "runtime/dvm_registry.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::runtime {
namespace {

std::string local_hostname()
{
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

// Every session directory says whose it is, in a file "owner": the node and the process (pid and
// start time) that made it, so that a later prte or prted can tell a dead one's from a live one's.
constexpr const char* kOwnerFile = "owner";

struct SessionOwner {
    std::string node;
    pid_t pid = 0;
    int64_t started = -1;
};

void write_owner(const std::filesystem::path& session_dir, const std::string& node_name)
{
    std::ofstream out(session_dir / kOwnerFile, std::ios::trunc);
    out << fmt::format("node={}\npid={}\nstarted={}\n", node_name, getpid(),
                       dvm_registry::process_started(getpid()));
}

// Nothing while the file is missing or still being written.
std::optional<SessionOwner> read_owner(const std::filesystem::path& session_dir)
{
    std::ifstream in(session_dir / kOwnerFile);
    SessionOwner owner;
    bool complete = false;
    for (std::string line; std::getline(in, line);) {
        if (util::starts_with(line, "node=")) owner.node = line.substr(5);
        if (util::starts_with(line, "pid=")) {
            if (auto v = util::parse_int(line.substr(4)); v && *v > 0 && *v <= INT_MAX) owner.pid = static_cast<pid_t>(*v);
        }
        if (util::starts_with(line, "started=")) {
            if (auto v = util::parse_int(line.substr(8))) {
                owner.started = *v;
                complete = true;  // the last line written
            }
        }
    }
    if (!complete || owner.node.empty() || owner.pid <= 0) return std::nullopt;
    return owner;
}

// The pid in a master's directory name made before the owner file existed
// ("prte-<node>-<pid>.session"), or 0.
pid_t pid_in_master_name(const std::string& name, const std::string& node_name)
{
    const std::string prefix = fmt::format("prte-{}-", node_name);
    if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + 8) return 0;
    auto pid = util::parse_int(name.substr(prefix.size(), name.size() - prefix.size() - 8));
    return pid && *pid > 0 && *pid <= INT_MAX ? static_cast<pid_t>(*pid) : 0;
}

// A DVM killed outright (SIGKILL, the OOM killer) cannot remove its session directories, its
// master's or its daemons'; the next prte or prted of this user on the same node does: every
// "*.session" whose owner is a process of this node that is no longer running. One with no
// complete owner file yet (being made now) is left alone, as is every other node's (a TMPDIR may
// be shared between nodes) and every running process's. Returns those removed.
std::vector<std::string> remove_stale_sessions(const std::filesystem::path& base, const std::string& node_name)
{
    std::vector<std::string> removed;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!name.ends_with(".session")) continue;
        bool stale = false;
        if (auto owner = read_owner(it->path())) {
            stale = owner->node == node_name && owner->pid != getpid() &&
                    !dvm_registry::still_running(owner->pid, owner->started);
        } else if (pid_t pid = pid_in_master_name(name, node_name); pid > 0) {
            stale = pid != getpid() && !dvm_registry::process_alive(pid);
        }
        if (!stale) continue;
        std::error_code failed;
        std::filesystem::remove_all(it->path(), failed);
        if (!failed) removed.push_back(it->path().string());
    }
    return removed;
}

}  // namespace

void remove_session_dir(const std::string& session_dir)
{
    if (session_dir.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(session_dir, ec);
    // remove() takes an empty directory only; another DVM's files keep it.
    std::filesystem::remove(std::filesystem::path(session_dir).parent_path(), ec);
}

Runtime& Runtime::instance()
{
    static Runtime runtime;
    return runtime;
}

void InertCampaigns::submit(AllocationRequest, Answer answer)
{
    answer({Errc::not_supported, "allocation requests need an elastic DVM: start prte with --prtemca "
                                 "prte_elastic_mode 1"},
           {});
}

Status Runtime::set_host(HostServices host)
{
    if (std::string missing = host.first_missing(); !missing.empty()) {
        return {Errc::bad_param, fmt::format("the PMIx host services lack '{}' (program wiring)", missing)};
    }
    host_ = std::move(host);
    return {};
}

Status Runtime::init(util::ProcessRole role, const Settings& settings, const output::VerboseStream& state_verbose)
{
    settings_ = settings;
    state_verbose_ = &state_verbose;
    identity_.role = role;
    elastic_.set_enabled(settings.elastic_mode);
    identity_.node_name = settings.node_name.empty() ? local_hostname() : settings.node_name;
    output::set_identity(identity_.node_name);
    if (role == util::ProcessRole::master) {
        identity_.rank = 0;
        identity_.dvm_nspace = fmt::format("prte-{}-{}", identity_.node_name, getpid());
    }
    jobs_.set_dvm_nspace(identity_.dvm_nspace);

    loop_ = std::make_unique<EventLoop>();
    state_machine_ = std::make_unique<state::StateMachine>(*loop_, state_verbose);

    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path base = fmt::format("{}/prte.{}", tmp && *tmp ? tmp : "/tmp", getuid());
    // A daemon's session directory carries its rank: on the local-node test-bed, every daemon of a
    // DVM shares this machine's TMPDIR with the master.
    std::string session_name = identity_.dvm_nspace.empty() ? std::to_string(getpid()) : identity_.dvm_nspace;
    if (role == util::ProcessRole::daemon) session_name += fmt::format(".d{}", identity_.rank);
    identity_.session_dir = (base / fmt::format("{}.session", session_name)).string();
    std::error_code ec;
    // What killed DVMs left on this node goes when the next one starts here (not with prte_info).
    if (role == util::ProcessRole::master || role == util::ProcessRole::daemon) {
        removed_stale_sessions_ = remove_stale_sessions(base, identity_.node_name);
        dvm_registry::list();  // which also removes the registry files of DVMs no longer running
    }
    // A second try: another prte or prted leaving may remove the per-user directory, empty, between
    // this one's creating it and creating the session directory in it (remove_session_dir).
    for (int attempt = 0; attempt < 2; ++attempt) {
        ec.clear();
        if (std::filesystem::create_directories(identity_.session_dir, ec) || !ec) break;
    }
    if (ec) {
        return {Errc::unreachable,
                fmt::format("cannot create the session directory {}: {}", identity_.session_dir, ec.message())};
    }
    ::chmod(base.c_str(), 0700);
    write_owner(identity_.session_dir, identity_.node_name);
    return {};
}

void Runtime::finalize()
{
    finalizing_ = true;
    if (loop_) loop_->stop();
    campaigns_.reset();
    for (auto step = finalize_steps_.rbegin(); step != finalize_steps_.rend(); ++step) (*step)();
    finalize_steps_.clear();
    remove_session_dir(identity_.session_dir);
}

void Runtime::finish_shutdown_when_idle()
{
    if (!shutting_down()) return;
    for (const auto& job : jobs_.all()) {
        if (!job->is_daemon_job) return;
    }
    start_teardown();
}

void Runtime::start_teardown()
{
    if (teardown_started_) return;
    teardown_started_ = true;
    if (teardown_) {
        teardown_([this] { loop_->stop(); });
        return;
    }
    loop_->stop();
}

void Runtime::shutdown_on_signals(bool hangup)
{
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        if (sig == SIGHUP && !hangup) continue;
        event* ev = evsignal_new(
            loop_->base(), sig,
            [](evutil_socket_t s, short, void*) {
                Runtime::instance().request_shutdown(0, fmt::format("signal {}", strsignal(s)));
            },
            nullptr);
        event_add(ev, nullptr);  // lives as long as the process
    }
    signal(SIGPIPE, SIG_IGN);
}

void Runtime::mark_dvm_ready()
{
    if (dvm_ready_) return;
    dvm_ready_ = true;
    if (ready_handler_) ready_handler_();
}

void Runtime::request_shutdown(int exit_status, const std::string& reason)
{
    if (shutdown_status_) return;
    shutdown_status_ = exit_status;
    shutdown_reason_ = reason;
    state_verbose()(1, "shutdown requested: {}", reason);
    if (shutdown_handler_) shutdown_handler_();
}

}  // namespace prte::runtime
