// pmi/simple's barriers (PMI-1 barrier_in, PMI-2 kvs-fence): complete on this node once every
// local process of the job has entered; across nodes a GRPCOMM allgather of what was put since the
// last one.
#include <pmix_common.h>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/pmi/simple/pmi_simple_state.h"
#include "rml/buffer.h"

namespace prte::pmi::simple {
namespace {

// Told apart from a PMIx fence over the same job (grpcomm counts each signature's collectives).
constexpr const char* kFenceId = "pmi-fence";

}  // namespace

void SimpleServer::enter_fence(Client& client)
{
    JobSpace& space = *client.space;
    client.at_fence = true;
    ++space.at_fence;
    if (space.at_fence < space.clients.size()) return;
    start_fence(space);
}

void SimpleServer::start_fence(JobSpace& space)
{
    const std::string nspace = space.job->nspace;
    rml::Writer w;
    w.u32(static_cast<uint32_t>(space.unsent.size()));
    for (const auto& [k, v] : space.unsent) w.str(k).str(v);
    space.unsent.clear();
    space.fence_running = true;
    verbose()(10, "job {}: PMI barrier, {} local process(es){}", nspace, space.clients.size(),
              space.all_local ? "" : ", with the other daemons");
    if (space.all_local) {
        complete_fence(nspace, {}, {});  // everything is in the kvs already
        return;
    }
    grpcomm::Module* module = grpcomm::base::module();
    if (!module) {
        complete_fence(nspace, {Errc::not_supported, "a barrier across nodes needs a grpcomm module, and none is selected"}, {});
        return;
    }
    grpcomm::Signature signature;
    signature.procs = {runtime::ProcessName{nspace, runtime::kWildcardRank}};
    signature.id = kFenceId;
    Status st = module->allgather(signature, w.take(),
                                  [this, nspace](const Status& s, const rml::Payload& combined, uint64_t,
                                                 const runtime::ProcessName*,
                                                 const std::vector<runtime::ProcessName>&) {
                                      complete_fence(nspace, s, combined);
                                  });
    if (!st) complete_fence(nspace, st, {});
}

void SimpleServer::complete_fence(const std::string& nspace, const Status& status, const rml::Payload& combined)
{
    auto it = jobs_.find(nspace);
    if (it == jobs_.end() || !it->second->fence_running) return;  // its processes are gone
    JobSpace& space = *it->second;
    space.fence_running = false;
    if (!status) {
        verbose()(1, "job {}: PMI barrier failed: {}", nspace, status.message());
        // A process that ended before it entered: its own end is the job's story (errmgr tells
        // it, and kills the ones still waiting here).
        if (status.code() == Errc::peer_ended) return;
        for (auto& [rank, client] : space.clients) {
            if (client->at_fence) {
                fail(*client, client->version == 2 ? "kvs-fence" : "barrier_in", "the barrier failed: " + status.message());
                break;  // one message for the job
            }
        }
        return;
    }
    rml::Reader r(combined, "PMI barrier data");
    while (r.ok() && !r.at_end()) {
        uint32_t n = r.count("PMI puts", 2);
        for (uint32_t i = 0; i < n && r.ok(); ++i) {
            std::string key = r.str();
            std::string value = r.str();
            if (r.ok()) space.kvs[key] = std::move(value);
        }
    }
    if (!r.ok()) verbose()(1, "job {}: PMI barrier data dropped: {}", nspace, r.error());
    space.at_fence = 0;
    for (auto& [rank, client] : space.clients) {
        if (!client->at_fence) continue;
        client->at_fence = false;
        if (client->version == 2) {
            answer(*client, "kvs-fence-response", {{"rc", "0"}});
        } else {
            answer(*client, "barrier_out", {{"rc", "0"}});
        }
    }
}

}  // namespace prte::pmi::simple
