#include "mca/plm/base/plm_daemons.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mca/base/param.h"
#include "mca/errmgr/base/errmgr_base.h"
#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/daemon_table.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_base_state.h"
#include "mca/plm/base/plm_heartbeat.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/plm/base/plm_messages.h"
#include "mca/plm/base/plm_timeout.h"
#include "rml/rml.h"
#include "runtime/dvm_registry.h"
#include "runtime/runtime.h"
#include "runtime/slot_policy.h"
#include "util/strings.h"

namespace prte::plm::base {
namespace {

using runtime::JobPtr;
using runtime::kInvalidRank;
using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }
const output::VerboseStream& verbose() { return framework().verbose(); }

DaemonTable& table() { return daemons(); }

std::string quote(const std::string& word)
{
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                "_-./:=,@+%") == std::string::npos) {
        return word;
    }
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Parameters the plm framework's base registers (plm_base.cc).
const std::string& param_text(const char* name)
{
    static const std::string none;
    const mca::Param* p = mca::ParamRegistry::instance().find(name);
    return p ? p->as_string() : none;
}

// Where prted is: plm_base_prted, by default installed beside prte.
const std::string& prted_path() { return param_text("plm_base_prted"); }

void on_report(Rank origin, rml::Payload&& payload)
{
    msg::DaemonReport report;
    if (Status st = msg::decode(payload, report); !st) {
        output::warning("dropped a daemon report from daemon {}: {}", origin, st.message());
        return;
    }
    if (report.rank != origin || !table().expects_report(report.rank)) {
        output::warning("dropped an unexpected report from daemon {} (node {})", report.rank, report.node_name);
        return;
    }
    runtime::Node* node = table().node_of(report.rank);
    // A daemon whose hardware the master cannot read could never be placed on: it is refused now,
    // as a daemon that failed to start, rather than left to the call-home timeout.
    if (Status st = record_topology(*node, report, rt().topologies()); !st) {
        daemon_failed(report.rank, st.message());
        return;
    }
    messenger().set_contact(report.rank, report.uri);
    node->machine = report.machine;
    if (report.node_name != node->name) {
        verbose()(2, "daemon {} launched for node {} calls itself {}", report.rank, node->name, report.node_name);
        node->aliases.push_back(report.node_name);
    }
    if (!node->slots_given) node->slots = runtime::slots_for(param_text(runtime::kSetSlotsParam), node->topology);
    table().mark_reported(report.rank);
    verbose()(5, "daemon {} on node {} called home ({} cores, {} hwthreads, {} NUMA; {}): {}/{} reported", report.rank,
              node->name, node->topology.cores, node->topology.hwthreads, node->topology.numa_domains,
              node->hw ? fmt::format("{} distinct topolog{} known", rt().topologies().size(),
                                     rt().topologies().size() == 1 ? "y" : "ies")
                       : std::string("it sent no topology"),
              table().reports(), table().size() - 1);
    module()->daemon_reported(report.rank);
    if (rt().campaigns().daemon_reported(report.rank)) return;
    JobPtr djob = rt().jobs().daemon_job();
    if (table().all_reported() && djob->state == runtime::JobState::daemons_launched) {
        rt().state().activate_job_state(djob, runtime::JobState::daemons_reported);
    }
}

void on_proc_update(Rank origin, rml::Payload&& payload)
{
    msg::ProcUpdate u;
    if (Status st = msg::decode(payload, u); !st) {
        output::warning("dropped a process update from daemon {}: {}", origin, st.message());
        return;
    }
    JobPtr job = rt().jobs().find(u.nspace);
    runtime::Proc* proc = job ? job->proc(u.rank) : nullptr;
    if (!proc) return;  // the job has been cleaned up meanwhile
    if (u.pid > 0) proc->pid = u.pid;
    if (u.state == runtime::ProcState::waitpid_fired || runtime::is_error(u.state)) {
        proc->exit_code = u.exit_code;
        proc->term_signal = u.term_signal;
    }
    if (!u.message.empty() && job->abort_message.empty() && !job->aborting) job->abort_message = u.message;
    rt().state().activate_proc_state(job, u.rank, u.state);
}

void on_output(Rank origin, rml::Payload&& payload)
{
    msg::Output o;
    if (Status st = msg::decode(payload, o); !st) {
        output::warning("dropped output from daemon {}: {}", origin, st.message());
        return;
    }
    JobPtr job = rt().jobs().find(o.nspace);
    if (!job) return;
    rt().host().deliver_remote_output(*job, origin, o.channel, o.rank, reinterpret_cast<const char*>(o.data.data()),
                                      o.data.size());
}

void on_lost_peer(Rank rank)
{
    if (errmgr::Module* m = errmgr::base::module()) m->daemon_lost(rank, runtime::ProcState::comm_failed);
}

void finish_teardown()
{
    state().teardown_timer.cancel();
    if (auto then = std::exchange(state().teardown_done, nullptr)) then();
}

// The grace period of the teardown ran out: who did not answer, and that nothing is left to them.
void teardown_timed_out()
{
    std::vector<std::string> left;
    for (Rank r : table().live_remote_ranks()) {
        runtime::Node* node = table().node_of(r);
        left.push_back(fmt::format("{} ({})", r, node ? node->name : "?"));
    }
    std::string note = fmt::format(
        "daemon(s) {} did not answer the order to exit within {} s: their launchers were stopped, and each "
        "ends itself and its processes within {} s of losing the master (prte_daemon_exit_timeout)",
        util::join(left, ", "), rt().settings().master_teardown_timeout().count(),
        rt().settings().daemon_exit_timeout.count());
    output::warning("{}", note);
    if (Status st = runtime::dvm_registry::write_teardown_note(note + "\n"); !st) {
        verbose()(1, "could not leave the teardown note for pterm: {}", st.message());
    }
    finish_teardown();
}

}  // namespace

Status start_master_messaging(rml::Options options)
{
    state().secret = options.secret;
    if (Status st = messenger().start(rt().loop().base(), std::move(options)); !st) return st;
    messenger().register_handler(rml::tag::daemon_report, on_report);
    messenger().register_handler(rml::tag::plm, on_proc_update);
    messenger().register_handler(rml::tag::iof, on_output);
    messenger().register_handler(rml::tag::stack_traces, on_stack_traces);
    messenger().set_lost_peer_handler(on_lost_peer);
    start_master_heartbeat();
    return {};
}

const std::string& dvm_secret() { return state().secret; }

std::vector<Rank> assign_daemons(const std::vector<runtime::Node*>& nodes)
{
    table().set_master_node(rt().pool().find(rt().identity().node_name));
    return table().assign(nodes);
}

std::vector<std::string> daemon_command(Rank rank)
{
    return daemon_command_for_shell(quote(std::to_string(rank)), "");
}

std::vector<std::string> daemon_command_for_shell(const std::string& rank_word, const std::string& node_word)
{
    std::vector<std::string> words = {quote(prted_path()), "--dvm-uri", quote(messenger().uri()), "--rank", rank_word,
                                      "--dvm-nspace", quote(rt().identity().dvm_nspace)};
    for (const auto& [name, value] : mca::ParamRegistry::instance().explicit_settings()) {
        if (name == "prte_node_name") continue;  // each daemon has its own
        words.insert(words.end(), {"--prtemca", quote(name), quote(value)});
    }
    if (!node_word.empty()) words.insert(words.end(), {"--prtemca", "prte_node_name", node_word});
    return words;
}

void daemon_failed(Rank rank, const std::string& why)
{
    if (!table().note_loss(rank, why)) return;
    if (errmgr::Module* m = errmgr::base::module()) m->daemon_lost(rank, runtime::ProcState::failed_to_start);
}

void daemon_unresponsive(Rank rank, const std::string& why)
{
    if (rank == 0 || !table().note_loss(rank, why)) return;
    if (errmgr::Module* m = errmgr::base::module()) m->daemon_lost(rank, runtime::ProcState::heartbeat_failed);
}

void set_daemon_log_dir(std::string dir) { state().daemon_log_dir = std::move(dir); }

std::string daemon_log_path(Rank rank, const std::string& node)
{
    return fmt::format("{}/prted.{}.{}.log", state().daemon_log_dir, rank, node);
}

void relay_daemon_line(Rank rank, const std::string& node, const std::string& line)
{
    if (!state().daemon_log_dir.empty()) {
        // Opened for each line, appending: a daemon's file survives logrotate moving it, and a DVM
        // of thousands of daemons holds no descriptor per daemon.
        if (FILE* f = std::fopen(daemon_log_path(rank, node).c_str(), "a")) {
            std::fprintf(f, "%s\n", line.c_str());
            std::fclose(f);
            return;
        }
        // Unwritable: the line still reaches the master's log rather than nowhere.
    }
    std::fprintf(stderr, "[%s] daemon %u: %s\n", node.c_str(), static_cast<unsigned>(rank), line.c_str());
}

Status record_topology(runtime::Node& node, const msg::DaemonReport& report, runtime::HwTopologyCache& cache)
{
    if (report.topology_xml.empty()) {
        node.hw = nullptr;
        node.topology = report.topology;
        return {};
    }
    std::string error;
    runtime::HwTopologyPtr hw = cache.get(
        report.topology_xml, fmt::format("the topology daemon {} on node {} sent", report.rank, node.name), error);
    if (!hw) return {Errc::bad_file, fmt::format("daemon {} on node {} is refused: {}", report.rank, node.name, error)};
    node.hw = std::move(hw);
    node.topology = node.hw->counts();
    return {};
}

bool daemon_gone(Rank rank)
{
    if (!record_departure(rank)) return false;
    messenger().mark_departed({rank});
    // Stdin and direct modex requests this node sent through it wait for nothing now.
    rt().host().daemons_lost({rank});
    return true;
}

bool record_departure(Rank rank)
{
    if (!table().record_departure(rank)) return false;
    if (table().live_remote() == 0 && state().teardown_done) finish_teardown();
    return true;
}

void reset_node(runtime::Node& node)
{
    node.daemon = kInvalidRank;
    node.daemon_launched = false;
    node.state = runtime::NodeState::down;
    node.topology = {};
    node.hw = nullptr;
    node.machine.clear();
    node.ras_component.clear();
    node.alloc_id.clear();
    node.scheduler_job.clear();
}

void end_jobs_on_node(const runtime::Node* node, const std::string& why, bool spare_recoverable)
{
    for (const auto& job : rt().jobs().all()) {
        if (job->is_daemon_job || !runtime::is_alive(job->state)) continue;
        // A job not launched yet (parked, or still mapping) has nothing running there: it is
        // remapped, not ended.
        if (job->waits() || static_cast<int>(job->state) < static_cast<int>(runtime::JobState::send_launch_msg)) continue;
        std::vector<Rank> lost;
        for (const auto& p : job->procs) {
            if (p->node == node && !p->counted_terminated) lost.push_back(p->rank);
        }
        if (lost.empty()) continue;
        // prun --enable-recovery: the processes lost with the node fail like any other, and the
        // job carries on (errmgr), its survivors hearing of each.
        if (!spare_recoverable || !job->recoverable) {
            terminate_job(job, fmt::format("{}: job {} had {} process(es) there", why, job->nspace, lost.size()),
                          runtime::JobState::comm_failed, 1);
        }
        for (Rank r : lost) {
            runtime::Proc* p = job->proc(r);
            p->iof_complete = p->waitpid_fired = true;
            p->exit_code = 1;
            rt().state().activate_proc_state(job, r, runtime::ProcState::comm_failed);
        }
    }
}

Status broadcast(rml::Tag tag, rml::Payload payload, grpcomm::XcastCompletion on_complete)
{
    if (table().live_remote() == 0) {
        if (on_complete) on_complete({});
        return {};
    }
    grpcomm::Module* g = grpcomm::base::module();
    if (!g) return {Errc::not_supported, "no grpcomm module to reach the daemons"};
    return g->xcast(tag, payload, std::move(on_complete));
}

void kill_job_procs(const JobPtr& job)
{
    odls::base::module()->kill(job);
    if (table().live_remote() == 0) return;
    msg::DaemonCommand c{msg::Command::kill_job, job->nspace, 0};
    if (Status st = broadcast(rml::tag::daemon, msg::encode(c)); !st) {
        output::warning("cannot order the daemons to kill job {}'s processes: {}", job->nspace, st.message());
    }
}

void signal_job_procs(const JobPtr& job, int signal)
{
    odls::base::module()->signal(job, signal);
    if (table().live_remote() == 0) return;
    msg::DaemonCommand c{msg::Command::signal_job, job->nspace, signal};
    if (Status st = broadcast(rml::tag::daemon, msg::encode(c)); !st) {
        output::warning("cannot order the daemons to send signal {} to job {}'s processes: {}", signal, job->nspace,
                        st.message());
    }
}

Status restart_proc(const JobPtr& job, runtime::Proc& proc)
{
    if (!proc.node) return {Errc::internal, fmt::format("rank {} of job {} has no node", proc.rank, job->nspace)};
    Rank daemon = proc.node->daemon;
    if (daemon != rt().identity().rank) {
        msg::DaemonCommand c{msg::Command::restart_procs, job->nspace, 0, {proc.rank}};
        if (Status st = messenger().send(daemon, rml::tag::daemon, msg::encode(c)); !st) return st;
        runtime::forget_ended_life(proc);
        return {};
    }
    runtime::forget_ended_life(proc);
    return odls::base::module()->launch(job, {proc.rank});
}

void release_job_on_daemons(const JobPtr& job)
{
    if (table().live_remote() == 0) return;
    msg::DaemonCommand c{msg::Command::cleanup_job, job->nspace, 0};
    if (Status st = broadcast(rml::tag::daemon, msg::encode(c)); !st) {
        output::warning("cannot tell the daemons to release job {}: {}", job->nspace, st.message());
    }
}

void teardown_daemons(std::function<void()> then)
{
    if (table().live_remote() == 0) {
        then();
        return;
    }
    state().teardown_done = std::move(then);
    verbose()(2, "ordering {} daemon(s) to exit", table().live_remote());
    msg::DaemonCommand c{msg::Command::exit, {}, 0};
    // Not returned early: the timer below still ends the wait (and the launcher's finalize ends
    // the daemons it started).
    if (Status st = broadcast(rml::tag::daemon, msg::encode(c)); !st) {
        output::warning("cannot order the daemons to exit: {}", st.message());
    }
    state().teardown_timer = runtime::LoopTimer(rt().loop(), teardown_timed_out);
    state().teardown_timer.arm(rt().settings().master_teardown_timeout());
}

Status broadcast_wireup(grpcomm::XcastCompletion done)
{
    msg::Wireup w;
    w.size = static_cast<uint32_t>(table().size());
    DaemonTable::WireupView view = table().wireup_view();
    w.departed = view.departed;
    for (Rank rank : view.wired) {
        const runtime::Node* node = table().node_of(rank);
        w.daemons.push_back({rank, node->name, messenger().contact(rank), node->slots,
                             node->state != runtime::NodeState::not_included});
    }
    messenger().set_size(w.size);
    messenger().mark_departed(w.departed);
    messenger().set_absent(view.absent);
    verbose()(5, "wireup: {} daemons; routing tree:\n{}", w.size, messenger().tree().describe());
    return broadcast(rml::tag::wireup, msg::encode(w), std::move(done));
}

void wire_up(const JobPtr& daemon_job)
{
    if (table().size() <= 1) {
        rt().state().activate_job_state(daemon_job, runtime::JobState::vm_ready);
        return;
    }
    // The wireup's own time (every daemon has it and has acknowledged up the tree) is what the
    // tree's depth decides; the start-up before it is each daemon's own start. bench/multinode
    // reads this line to show the two apart.
    auto started = std::chrono::steady_clock::now();
    Status st = broadcast_wireup([daemon_job, started](const Status& s) {
        if (!s) return;
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        verbose()(2, "wireup of {} daemons (tree depth {}) took {:.2f} ms", messenger().tree().size(),
                  messenger().tree().depth(), ms);
        rt().state().activate_job_state(daemon_job, runtime::JobState::vm_ready);
    });
    if (!st) {
        daemon_job->abort_message = st.message();
        rt().state().activate_job_state(daemon_job, runtime::JobState::failed_to_launch);
    }
}

}  // namespace prte::plm::base
