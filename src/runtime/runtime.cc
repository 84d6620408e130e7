#include "runtime/runtime.h"

#include <event2/event.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "runtime/dvm_registry.h"
#include "util/output.h"

namespace prte::runtime {
namespace {

std::string local_hostname()
{
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

// A DVM killed outright (SIGKILL, the OOM killer) cannot remove its session directory; the next
// master on this node does, for every "prte-<this node>-<pid>.session" whose pid is gone.
void remove_stale_sessions(const std::filesystem::path& base, const std::string& node_name)
{
    std::error_code ec;
    const std::string prefix = fmt::format("prte-{}-", node_name);
    for (std::filesystem::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + 8) continue;
        std::string pid_text = name.substr(prefix.size(), name.size() - prefix.size() - 8);
        if (name.compare(name.size() - 8, 8, ".session") != 0 || pid_text.empty() ||
            pid_text.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        pid_t pid = static_cast<pid_t>(std::stol(pid_text));
        if (pid == getpid() || dvm_registry::process_alive(pid)) continue;
        std::error_code ignored;
        std::filesystem::remove_all(it->path(), ignored);
    }
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

Status Runtime::init(ProcessRole role, const Settings& settings, const output::VerboseStream& state_verbose)
{
    settings_ = settings;
    state_verbose_ = &state_verbose;
    identity_.role = role;
    elastic_.set_enabled(settings.elastic_mode);
    identity_.node_name = settings.node_name.empty() ? local_hostname() : settings.node_name;
    output::set_identity(identity_.node_name);
    if (role == ProcessRole::master) {
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
    if (role == ProcessRole::daemon) session_name += fmt::format(".d{}", identity_.rank);
    identity_.session_dir = (base / fmt::format("{}.session", session_name)).string();
    std::error_code ec;
    if (role == ProcessRole::master) remove_stale_sessions(base, identity_.node_name);
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
