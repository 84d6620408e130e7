// PMIx_Spawn from a tool (prun) or a process (MPI_Comm_spawn): a new job in the DVM. The request
// is translated on PMIx's thread (a copy: PMIx owns its arrays), the job created and submitted on
// the progress thread, and the requester answered once the job runs or has failed to start
// (Job::on_spawned, called by the launch path).
//
// Only the master creates jobs. A process on a daemon's node asks its daemon's PMIx server, so a
// daemon relays the request (spawn_relay.cc) and answers the process with the master's reply; it
// translates the request first all the same, so a malformed one is refused at once, locally.
#include <pmix.h>

#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "mca/plm/base/plm_launch.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "pmix/spawn_translate.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {

// The requester learns only a status; a failure to start is PMIX_ERR_JOB_FAILED_TO_LAUNCH (the
// reason went out first in the job-end event), a refused request says what was wrong with it.
pmix_status_t spawn_status(const Status& st)
{
    if (st.ok()) return PMIX_SUCCESS;
    if (st.code() == Errc::internal) return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    return to_pmix_status(st);
}

namespace {

// A job spawned by a process takes its parent job's placement directives wherever the spawn gives
// none of its own (PRRTE's default): children of a job started with --map-by :OVERSUBSCRIBE may
// oversubscribe too (issue 32, item 1).
void inherit_placement(runtime::MappingPolicy& child, const runtime::MappingPolicy& parent)
{
    // :NOINHERIT on either side (the parent's "my children choose for themselves", the child's "I do").
    if (parent.inherit == false || child.inherit == false) return;
    if (child.by == runtime::MapBy::unset) {
        child.by = parent.by;
        child.ppr_count = parent.ppr_count;
        child.ppr_object = parent.ppr_object;
        child.span = parent.span;
    }
    if (child.rank_by == runtime::RankBy::unset) child.rank_by = parent.rank_by;
    if (child.bind_to == runtime::BindTo::unset) child.bind_to = parent.bind_to;
    if (!child.oversubscribe) child.oversubscribe = parent.oversubscribe;
    if (child.bind_to == parent.bind_to) {
        child.bind_overload_allowed = child.bind_overload_allowed || parent.bind_overload_allowed;
        child.bind_if_supported = child.bind_if_supported || parent.bind_if_supported;
    }
}

// A spawn by a process that failed is said where its user looks: on the stderr of the tool that
// started the job tree (the parent's prun), and on the DVM's verbose stream. Open MPI only aborts
// with an error code.
void report_failed_spawn(const pmix_proc_t& requester, const runtime::JobPtr& parent, const std::string& nspace,
                         const Status& st)
{
    std::string text = fmt::format("prte: the spawn of job {} by rank {} of job {} failed: {}\n", nspace,
                                   requester.rank, parent->nspace, st.message());
    verbose()(1, "{}", text.substr(0, text.size() - 1));
    // Delivered as the parent's: a spawned parent's output goes to its tree's prun (events.cc).
    deliver_output(*parent, PMIX_RANK_UNDEF, PMIX_FWD_STDERR_CHANNEL, text.data(), text.size());
}

}  // namespace

void submit_spawn(const pmix_proc_t& requester, const runtime::Job& draft, const std::vector<std::string>& notes,
                  SpawnAnswer answer)
{
    auto& rt = runtime::Runtime::instance();
    runtime::JobPtr parent = rt.jobs().find(requester.nspace);
    runtime::JobPtr job = rt.jobs().create();
    job->apps = draft.apps;
    job->mapping = draft.mapping;
    if (parent) inherit_placement(job->mapping, parent->mapping);
    job->outlives_parent = draft.outlives_parent;
    job->report_children_separately = draft.report_children_separately;
    job->output = draft.output;
    job->reports = draft.reports;
    job->stdin_target = draft.stdin_target;
    job->timeout_seconds = draft.timeout_seconds;
    job->timeout_report_state = draft.timeout_report_state;
    job->timeout_stack_traces = draft.timeout_stack_traces;
    job->spawn_timeout_seconds = draft.spawn_timeout_seconds;
    job->queue = draft.queue;
    job->queue_timeout_seconds = draft.queue_timeout_seconds;
    job->recoverable = draft.recoverable;
    job->error_nonzero_status = draft.error_nonzero_status;
    job->max_restarts = draft.max_restarts;
    job->continuous = draft.continuous;
    job->mpi = draft.mpi;
    runtime::apply_job_defaults(rt.job_defaults(), *job);
    if (job->output.held_for_pull) {
        hold_output(job->nspace);
        track_acks(job->nspace);
    }
    job->originator = requester;
    job->spawner_pid = draft.spawner_pid;
    job->spawner_host = draft.spawner_host;
    if (parent) {
        answer = [requester, parent, answer = std::move(answer)](const Status& st, const std::string& nspace) {
            if (!st) report_failed_spawn(requester, parent, nspace, st);
            answer(st, nspace);
        };
    }
    job->on_spawned = std::move(answer);
    watch_spawner(*job);
    verbose()(2, "{} spawns job {}: {} app(s), first {}", requestor_name(requester), job->nspace, job->apps.size(),
              job->apps.front().executable);
    for (const std::string& note : notes) verbose()(1, "job {}: {}", job->nspace, note);
    plm::base::spawn(job);
}

pmix_status_t spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                    size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata)
{
    pmix_proc_t requester = *proc;
    auto draft = std::make_shared<runtime::Job>();
    std::vector<std::string> notes;
    if (Status st = translate_spawn(job_info, ninfo, apps, napps, *draft, notes); !st) {
        // Refused at once: PMIx reports the status to the requester and will not call cbfunc.
        output::error("spawn request from {} refused: {}", describe(requester), st.message());
        return to_pmix_status(st);
    }
    if (runtime::Runtime::instance().identity().role != mca::ProcessRole::master) {
        return relay_spawn(requester, job_info, ninfo, apps, napps, cbfunc, cbdata);
    }
    post([requester, draft, notes = std::move(notes), cbfunc, cbdata] {
        submit_spawn(requester, *draft, notes, [cbfunc, cbdata](const Status& st, const std::string& nspace) {
            pmix_nspace_t name;
            PMIX_LOAD_NSPACE(name, nspace.c_str());
            if (cbfunc) cbfunc(spawn_status(st), name, cbdata);
        });
    });
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail

namespace prte::pmix {
namespace {

using SpawnDone = std::function<void(const Status&, const std::string&)>;

void spawned_for_process(pmix_status_t status, pmix_nspace_t nspace, void* cbdata)
{
    std::unique_ptr<SpawnDone> done(static_cast<SpawnDone*>(cbdata));
    (*done)(status == PMIX_SUCCESS ? Status() : Status(Errc::internal, PMIx_Error_string(status)),
            status == PMIX_SUCCESS ? std::string(nspace) : std::string());
}

// PMIx's own form of an app, freed by PMIX_APP_DESTRUCT.
void load_app(const runtime::AppContext& in, pmix_app_t& out)
{
    PMIX_APP_CONSTRUCT(&out);
    out.cmd = strdup(in.executable.c_str());
    for (const auto& a : in.argv) pmix_argv_append_nosize(&out.argv, a.c_str());
    for (const auto& e : in.env) pmix_argv_append_nosize(&out.env, e.c_str());
    if (!in.working_dir.empty()) out.cwd = strdup(in.working_dir.c_str());
    out.maxprocs = in.num_procs;
}

}  // namespace

void spawn_for_process(const pmix_proc_t& requester, const std::vector<runtime::AppContext>& apps,
                       std::function<void(const Status&, const std::string&)> done)
{
    std::vector<pmix_app_t> pmix_apps(apps.size());
    for (size_t i = 0; i < apps.size(); ++i) load_app(apps[i], pmix_apps[i]);
    auto held = std::make_unique<SpawnDone>(std::move(done));
    // The request is translated (or packed for the master) before this returns: the apps are ours to free.
    pmix_status_t rc = detail::spawn(&requester, nullptr, 0, pmix_apps.data(), pmix_apps.size(), spawned_for_process,
                                     held.get());
    for (auto& app : pmix_apps) PMIX_APP_DESTRUCT(&app);
    if (rc == PMIX_SUCCESS) {
        held.release();  // spawned_for_process owns it now
        return;
    }
    (*held)(Status(Errc::bad_param, fmt::format("the spawn was refused: {}", PMIx_Error_string(rc))), {});
}

}  // namespace prte::pmix
