// Collectives among processes: fence (the modex), direct modex, connect/disconnect (groups: groups/construct.cc).
//
// PMIx gathers the contributions of this node's participants itself and calls the host once per
// collective with the node's combined data; the host's part is to exchange that with the other
// daemons hosting participants and hand back everything. exchange() below is the one place that
// crosses daemons: when every participant is on this node it answers at once with the node's own
// data, otherwise it is the GRPCOMM allgather (src/mca/grpcomm/grpcomm.h), whose combined result
// is the daemons' contributions one after the other, the form PMIx's server unpacks.
#include <pmix.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/fence_data.h"
#include "pmix/proc_names.h"

namespace prte::pmix::detail {

grpcomm::Signature signature(const Collective& collective)
{
    grpcomm::Signature out{to_process_names(collective.procs), collective.id, collective.assign_context_id,
                           collective.time_limit, collective.optional};
    out.watch_normal_ends = collective.watch_normal_ends;
    return out;
}

// Progress thread. `done` runs on the progress thread, at once for a collective of this node only
// that needs no context id (only the master issues those).
void exchange(const Collective& collective, rml::Payload contribution, ExchangeDone done)
{
    if (!collective.assign_context_id && all_local(collective.procs.data(), collective.procs.size())) {
        done({}, std::move(contribution), 0, nullptr, {});
        return;
    }
    grpcomm::Module* module = grpcomm::base::module();
    if (!module) {
        done({Errc::not_supported, "a collective across nodes needs a grpcomm module, and none is selected"}, {}, 0,
             nullptr, {});
        return;
    }
    Status st = module->allgather(signature(collective), contribution,
                                  [done](const Status& s, const rml::Payload& combined, uint64_t context_id,
                                         const runtime::ProcessName* ended,
                                         const std::vector<runtime::ProcessName>& left_out) {
                                      std::optional<pmix_proc_t> ended_proc;
                                      if (ended) ended_proc = to_pmix_proc(*ended);
                                      done(s, combined, context_id, ended_proc ? &*ended_proc : nullptr,
                                           to_pmix_procs(left_out));
                                  });
    if (!st) done(st, {}, 0, nullptr, {});
}

namespace {

void release_payload(void* cbdata) { delete static_cast<rml::Payload*>(cbdata); }

}  // namespace

// PMIX_TIMEOUT on a fence, connect or group operation: the DVM ends the collective on every
// participating daemon when it has not completed in time (grpcomm's time limit), so that a process
// that never calls fails the others instead of leaving them waiting. It does so a little before
// the caller's seconds are up, because PMIx 4.2.2 also arms a timer of its own on the server of
// every node whose processes called, and must not get there first: its fence handler frees the
// tracker the DVM still holds (and its group handler crashes the daemon, pmix_server_ops.c,
// grp_timeout: a group's PMIX_TIMEOUT is kept from PMIx by the repairs, pmix422/group_timeouts.c,
// and reaches here only when they are off). A completed collective cancels PMIx's timer, and the
// DVM's failure is such a completion.
std::chrono::milliseconds time_limit(const pmix_info_t info[], size_t ninfo)
{
    constexpr std::chrono::milliseconds kAheadOfPmix{250};
    const pmix_info_t* t = find_info(info, ninfo, PMIX_TIMEOUT);
    if (!t) return std::chrono::milliseconds{0};
    std::optional<int64_t> seconds = value_integer(t->value);
    if (!seconds || *seconds <= 0) return std::chrono::milliseconds{0};
    std::chrono::milliseconds limit = std::chrono::seconds(std::min<int64_t>(*seconds, 86400 * 365));
    return limit - kAheadOfPmix;
}

std::vector<pmix_proc_t> copy_procs(const pmix_proc_t procs[], size_t nprocs)
{
    return procs ? std::vector<pmix_proc_t>(procs, procs + nprocs) : std::vector<pmix_proc_t>{};
}

std::string describe_all(const std::vector<pmix_proc_t>& procs)
{
    std::string out;
    for (const auto& p : procs) out += (out.empty() ? "" : ",") + describe(p);
    return out;
}

pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata)
{
    Collective fence{copy_procs(procs, nprocs), {}};
    fence.time_limit = time_limit(info, ninfo);
    rml::Payload contribution(data, data + ndata);
    post([fence = std::move(fence), contribution = std::move(contribution), cbfunc, cbdata]() mutable {
        verbose()(5, "fence over {}: {} byte(s) from this node", describe_all(fence.procs), contribution.size());
        bool withhold = !contribution.empty() && fence_data_misfiled_by_pmix422(fence.procs);
        exchange(fence, std::move(contribution), [cbfunc, cbdata, withhold](const Status& st, rml::Payload combined,
                                                                                uint64_t, const pmix_proc_t*,
                                                                                const std::vector<pmix_proc_t>&) {
            if (!st) verbose()(1, "fence failed: {}", st.message());
            if (st && withhold) {
                verbose()(5, "fence: {} byte(s) of collected data withheld from PMIx 4.2.2, which would file them "
                             "under the wrong processes; the direct modex answers instead",
                          combined.size());
                cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, nullptr, nullptr);
                return;
            }
            auto* held = new rml::Payload(std::move(combined));
            cbfunc(to_pmix_status(st), held->empty() ? nullptr : reinterpret_cast<char*>(held->data()), held->size(),
                   cbdata, release_payload, held);
        });
    });
    return PMIX_SUCCESS;
}


namespace {

// connect/disconnect: PMIx has gathered this node's participants; the daemons hosting the others
// meet in an allgather with nothing to exchange (PMIx 4.2 gives the host no data here: each
// process's data reaches the others by the direct modex). The id keeps a connect and a disconnect
// over the same processes apart.
pmix_status_t barrier(const char* what, const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                      size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    Collective collective{copy_procs(procs, nprocs), what};
    collective.time_limit = time_limit(info, ninfo);
    post([what, collective = std::move(collective), cbfunc, cbdata] {
        verbose()(5, "{} of {}", what, describe_all(collective.procs));
        exchange(collective, {}, [what, cbfunc, cbdata](const Status& st, rml::Payload, uint64_t, const pmix_proc_t*,
                                                       const std::vector<pmix_proc_t>&) {
            if (!st) verbose()(1, "{} failed: {}", what, st.message());
            if (cbfunc) cbfunc(to_pmix_status(st), cbdata);
        });
    });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t connect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                            pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    return barrier("connect", procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t disconnect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    return barrier("disconnect", procs, nprocs, info, ninfo, cbfunc, cbdata);
}

}  // namespace prte::pmix::detail
