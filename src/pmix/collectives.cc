// Collectives among processes: fence (the modex), direct modex, connect/disconnect and groups.
//
// PMIx gathers the contributions of this node's participants itself and calls the host once per
// collective with the node's combined data; the host's part is to exchange that with the other
// daemons hosting participants and hand back everything. exchange() below is the one place that
// crosses daemons: when every participant is on this node it answers at once with the node's own
// data, otherwise it is the GRPCOMM allgather (src/mca/grpcomm/grpcomm.h), whose combined result
// is the daemons' contributions one after the other, the form PMIx's server unpacks.
#include <pmix.h>

#include <memory>
#include <string>
#include <vector>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"

namespace prte::pmix::detail {
namespace {

using ExchangeDone = std::function<void(const Status& status, rml::Payload combined)>;

// Progress thread. `done` runs on the progress thread, at once for a collective of this node only.
void exchange(const grpcomm::Signature& signature, rml::Payload contribution, ExchangeDone done)
{
    if (all_local(signature.procs.data(), signature.procs.size())) {
        done({}, std::move(contribution));
        return;
    }
    grpcomm::Module* module = grpcomm::base::module();
    if (!module) {
        done({Errc::not_supported, "a collective across nodes needs a grpcomm module, and none is selected"}, {});
        return;
    }
    Status st = module->allgather(signature, contribution,
                                  [done](const Status& s, const rml::Payload& combined) { done(s, combined); });
    if (!st) done(st, {});
}

void release_payload(void* cbdata) { delete static_cast<rml::Payload*>(cbdata); }
void release_info(void* cbdata) { delete static_cast<InfoArray*>(cbdata); }

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

// Context ids for groups that ask for one. Unique within this DVM as long as only the master
// assigns them, which holds while groups are single-node.
size_t next_context_id = 1;

}  // namespace

pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata)
{
    grpcomm::Signature signature{copy_procs(procs, nprocs), {}};
    rml::Payload contribution(data, data + ndata);
    post([signature = std::move(signature), contribution = std::move(contribution), cbfunc, cbdata]() mutable {
        verbose()(5, "fence over {}: {} byte(s) from this node", describe_all(signature.procs), contribution.size());
        exchange(signature, std::move(contribution), [cbfunc, cbdata](const Status& st, rml::Payload combined) {
            if (!st) verbose()(1, "fence failed: {}", st.message());
            auto* held = new rml::Payload(std::move(combined));
            cbfunc(to_pmix_status(st), held->empty() ? nullptr : reinterpret_cast<char*>(held->data()), held->size(),
                   cbdata, release_payload, held);
        });
    });
    return PMIX_SUCCESS;
}


namespace {

// connect/disconnect: PMIx has gathered this node's participants; with all of them here there is
// nothing more to synchronise.
pmix_status_t local_barrier(const char* what, const pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                            void* cbdata)
{
    std::vector<pmix_proc_t> members = copy_procs(procs, nprocs);
    post([what, members = std::move(members), cbfunc, cbdata] {
        bool local = all_local(members.data(), members.size());
        verbose()(5, "{} of {}: {}", what, describe_all(members), local ? "done" : "spans nodes, not supported");
        if (cbfunc) cbfunc(local ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED, cbdata);
    });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t connect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                            pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    return local_barrier("connect", procs, nprocs, cbfunc, cbdata);
}

pmix_status_t disconnect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                               pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    return local_barrier("disconnect", procs, nprocs, cbfunc, cbdata);
}

// PMIx 4.2 completes a group of this node's processes that asks for no context id by itself and
// only tells us (PMIX_GROUP_LOCAL_ONLY): nothing to do. Otherwise it hands us the members, the
// request for a context id and the members' data (PMIX_GROUP_ENDPT_DATA), and expects back the
// context id and everyone's data, as a fence does; with every member here, the data is what it
// gave us. Groups that span nodes need the daemons' collective and are refused until then.
pmix_status_t group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[], size_t nprocs,
                    const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    std::string id = grp ? grp : "";
    if (has_flag(directives, ndirs, PMIX_GROUP_LOCAL_ONLY)) {
        verbose()(5, "group {} {}: local, completed by PMIx", id, op == PMIX_GROUP_CONSTRUCT ? "construct" : "destruct");
        return PMIX_OPERATION_SUCCEEDED;
    }
    bool want_context_id = op == PMIX_GROUP_CONSTRUCT && has_flag(directives, ndirs, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    std::vector<uint8_t> endpoint_data;
    if (const pmix_info_t* e = find_info(directives, ndirs, PMIX_GROUP_ENDPT_DATA);
        e && e->value.type == PMIX_BYTE_OBJECT && e->value.data.bo.bytes) {
        endpoint_data.assign(e->value.data.bo.bytes, e->value.data.bo.bytes + e->value.data.bo.size);
    }
    std::vector<pmix_proc_t> members = copy_procs(procs, nprocs);
    post([op, id, want_context_id, endpoint_data = std::move(endpoint_data), members = std::move(members), cbfunc,
          cbdata] {
        const char* what = op == PMIX_GROUP_CONSTRUCT ? "construct" : "destruct";
        if (!all_local(members.data(), members.size())) {
            verbose()(1, "group {} {} over {} refused: groups across nodes are not supported yet", id, what,
                      describe_all(members));
            if (cbfunc) cbfunc(PMIX_ERR_NOT_SUPPORTED, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        auto* results = new InfoArray;
        if (want_context_id) results->add_size(PMIX_GROUP_CONTEXT_ID, next_context_id++);
        if (!endpoint_data.empty()) {
            pmix_byte_object_t bo;
            bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(endpoint_data.data()));
            bo.size = endpoint_data.size();
            results->add(PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
        }
        verbose()(5, "group {} {} over {}: done", id, what, describe_all(members));
        if (cbfunc) {
            cbfunc(PMIX_SUCCESS, results->data(), results->size(), cbdata, release_info, results);
        } else {
            delete results;
        }
    });
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail
