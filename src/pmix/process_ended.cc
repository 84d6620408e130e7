// A member that ends before it takes part in a collective (issue 13, "Failure").
//
// Without this, in a job that carries on after a process fails (prun --enable-recovery), or in a
// group spanning jobs when one of them ends, the others waited for ever: on the dead process's own
// node in PMIx (which does not hand a group operation to the host once a member's connection is
// lost), on the other nodes in the DVM's collective (which waited for that node's share). Both now
// end with PMIX_ERR_PROC_TERM_WO_SYNC.
#include <pmix.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/host_state.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "pmix/proc_names.h"
#include "pmix/server.h"

namespace prte::pmix {
namespace {

// The jobs this daemon was told to kill (job_killing), until they are deregistered. Their
// processes all go, so no later group operation can count one of them: they are not deregistered
// from PMIx one by one, which in killed jobs sometimes wedged PMIx 4.2.2's server (its
// _deregister_client released a rank record already freed: seen in 1 of 600 aborted jobs).
std::set<std::string>& killed_jobs() { return detail::host().killed_jobs; }

// Progress thread.
void tell_collectives(const pmix_proc_t& proc)
{
    if (grpcomm::Module* module = grpcomm::base::module()) module->participant_ended(to_process_name(proc));
}

// PMIx's thread, before the callers are answered. The members here get an error, so the DVM's
// collective of that operation must fail on the other nodes too, also when the member ended
// normally (without joining): otherwise they would wait for this node's share.
// A leader declared here, which no daemon knows of yet (PMIx never handed this construct over), is
// told to every daemon first: before the failure, which follows the same way through the master.
int group_ended(const char* id, int construct, int optional, const pmix_proc_t* ended, const pmix_proc_t* leader,
                const pmix_proc_t* members, size_t nmembers, size_t callers)
{
    std::string group = id ? id : "?";
    // RFC 0033: a destruct of a group that asked for PMIX_GROUP_NOTIFY_TERMINATION completes among
    // the others (the member's end is told by PMIX_GROUP_MEMBER_FAILED instead).
    if (!construct && detail::destruct_goes_on_without_ended(group)) optional = 1;
    if (optional) {
        // The DVM's collective goes on without it; the survivors hear of it as it completes.
        detail::verbose()(1, "group {} {}: member {} ended before it took part; the {} caller(s) on this node go on "
                             "without it ({})",
                          group, construct ? "construct" : "destruct", describe(*ended), callers,
                          construct ? "PMIX_GROUP_OPTIONAL" : "PMIX_GROUP_NOTIFY_TERMINATION");
    } else {
        detail::verbose()(1, "group {} {}: member {} ended before it took part; {} caller(s) on this node answered {}",
                          group, construct ? "construct" : "destruct", describe(*ended), callers,
                          PMIx_Error_string(PMIX_ERR_PROC_TERM_WO_SYNC));
        if (construct) {
            // On the progress thread, which owns the job table it consults (where the leader runs):
            // read here, on PMIx's thread, it raced with a job's deregistration (issue 26, item 6).
            // Posted before the leader's declaration below, so it still goes first.
            pmix_proc_t who_ended = *ended;
            std::optional<pmix_proc_t> named_leader = leader ? std::optional<pmix_proc_t>(*leader) : std::nullopt;
            std::vector<pmix_proc_t> all = detail::copy_procs(members, nmembers);
            detail::post([group, who_ended, named_leader, all] {
                detail::tell_invite_failed(group, who_ended, named_leader ? &*named_leader : nullptr, all.data(),
                                           all.size());
            });
        }
    }
    if (leader && !optional) {  // one handed over is declared as the host takes it
        pmix_proc_t who = *leader;
        std::vector<pmix_proc_t> all = detail::copy_procs(members, nmembers);
        detail::post([group, who, all] {
            detail::declare_group_leader(group, who, all);
            detail::group_construct_ended(group);  // ended here; the others forget it as theirs fails
        });
    }
    pmix_proc_t proc = *ended;
    detail::post([proc] { tell_collectives(proc); });
    return optional;
}

// PMIx's thread, once PMIx has read all the process sent: an answer to an invitation it sent just
// before it ended has reached the DVM by now, so it is not taken for an invitee that never answered.
void invitations_after_end(const pmix_proc_t* ended)
{
    pmix_proc_t proc = *ended;
    detail::post([proc] {
        detail::verbose()(5, "{} ended: PMIx has handled the end of its connection", describe(proc));
        detail::invitation_party_ended(proc);
    });
}

}  // namespace

// Only an abnormal end, the end of a member of a group that asked for
// PMIX_GROUP_NOTIFY_TERMINATION and is not destructed yet, or a normal end that a group operation
// under way waits for in vain (grpcomm's watch: process_left) is told to every daemon: a process
// that ends normally has left every collective it was in (a blocking call returned), and telling
// every daemon of each of a job's normal ends would cost a broadcast per process.
void process_ended(const runtime::Job& job, runtime::Rank rank, bool abnormally)
{
    if (!detail::server_running()) return;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), rank);
    // Nobody waits for the master's reply to its relayed requests now, but PMIx holds each call
    // until it is answered.
    if (size_t n = detail::relays().fail_requester(proc, PMIX_ERR_LOST_CONNECTION, "the requester ended"); n > 0) {
        detail::verbose()(2, "{} ended: its {} request(s) relayed to other daemons answered {}", describe(proc), n,
                          PMIx_Error_string(PMIX_ERR_LOST_CONNECTION));
    }
    // A process told to the collectives, also after a normal end, is forgotten by PMIx: a group
    // operation its node starts later must not count it as a member here.
    bool in_group = detail::group_member_ended(proc);
    grpcomm::Module* collectives = grpcomm::base::module();
    bool told = abnormally || in_group || (collectives && collectives->watches(to_process_name(proc)));
    bool forget = told && !killed_jobs().count(job.nspace);
    if (!prte_pmix422_end_groups_waiting_for(&proc, PMIX_ERR_PROC_TERM_WO_SYNC, forget, group_ended,
                                             invitations_after_end)) {
        detail::invitation_party_ended(proc);
    }
    detail::group_leader_ended(proc);
    // After end_groups_waiting_for: a leader it finds declared here is told before the failure.
    if (abnormally || in_group) {
        tell_collectives(proc);
    } else if (collectives) {
        collectives->process_left(to_process_name(proc));
    }
}

void job_killing(const runtime::Job& job)
{
    if (!detail::server_running()) return;
    killed_jobs().insert(job.nspace);
    // Shared with PMIx's thread, which may fulfil it after this has stopped waiting.
    auto held = std::make_shared<std::promise<void>>();
    std::future<void> done = held->get_future();
    auto* arg = new std::shared_ptr<std::promise<void>>(held);
    auto signal = [](void* p) {
        std::unique_ptr<std::shared_ptr<std::promise<void>>> promise(static_cast<std::shared_ptr<std::promise<void>>*>(p));
        (*promise)->set_value();
    };
    if (!prte_pmix422_hold_collectives(job.nspace.c_str(), signal, arg)) {
        delete arg;
        return;
    }
    if (done.wait_for(std::chrono::seconds(1)) != std::future_status::ready) {
        // Killing without the hold only risks the defect it guards against.
        output::warning("job {}: PMIx's server did not answer within a second before its processes were killed",
                        job.nspace);
        return;
    }
    detail::verbose()(5, "job {}: collectives of its processes here held before they are killed", job.nspace);
}

void detail::forget_killed_job(const std::string& nspace) { killed_jobs().erase(nspace); }

}  // namespace prte::pmix
