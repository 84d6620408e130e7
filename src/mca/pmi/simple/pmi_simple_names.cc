// pmi/simple: the name service of both protocols (MPICH's MPI_Publish_name, MPI_Lookup_name and
// MPI_Unpublish_name): PMI-1 publish_name / lookup_name / unpublish_name (service=, port=) and
// PMI-2 name-publish / name-lookup / name-unpublish (name=, port=), served from the DVM's one store
// (runtime::HostServices::names: the one PMIx_Publish and PMIx_Lookup use, on the master), so a
// name published by an MPICH program is found by an Open MPI one and the other way round. A name
// lives until its publisher unpublishes it or the publisher's job ends. The caller waits for the
// answer, which comes back here once the master has served the request.
//
// The answers carry what every MPICH version reads: PMI-1 "rc" (MPICH 4.1 and later) and "info=ok"
// (up to 4.0, Debian's 4.0.2 among them); a PMI-2 lookup's port as both "port" (4.1 and later)
// and "value" (up to 4.0).
#include <pmix_common.h>

#include <fmt/format.h>

#include "mca/pmi/simple/pmi_simple_state.h"

namespace prte::pmi::simple {
namespace {

// Why it failed, as one word a PMI-1 line can carry.
std::string reason(pmix_status_t status)
{
    switch (status) {
    case PMIX_ERR_NOT_FOUND: return "service_not_published";
    case PMIX_ERR_DUPLICATE_KEY: return "service_already_published";
    case PMIX_ERR_TYPE_MISMATCH: return "service_published_with_a_value_that_is_not_a_string";
    case PMIX_ERR_BAD_PARAM: return "service_name_empty_or_too_long";
    case PMIX_ERR_UNREACH: return "the_DVM's_master_cannot_be_reached";
    default: break;
    }
    return fmt::format("PMIx_status_{}", status);
}

}  // namespace

void SimpleServer::serve_name(Client& client, const Command& command, runtime::NameOp op)
{
    const bool v1 = client.version == 1;
    const std::string* service = command.find(v1 ? "service" : "name");
    const std::string* port = command.find("port");
    if (!service || (op == runtime::NameOp::publish && !port)) {
        fail(client, command.name,
             fmt::format("it names no {}{}", v1 ? "service" : "name", op == runtime::NameOp::publish ? " and port" : ""));
        return;
    }
    const std::string nspace = client.space->job->nspace;
    const runtime::Rank rank = client.rank;
    const std::string reply = v1 ? command.name.substr(0, command.name.find('_')) + "_result" : command.name + "-response";
    pmix_proc_t requester;
    PMIX_LOAD_PROCID(&requester, nspace.c_str(), rank);
    verbose()(10, "job {} rank {}: PMI {} of '{}'", nspace, rank, command.name, describe(*service));
    rt().host().names(requester, op, *service, port ? *port : std::string(),
                      [this, nspace, rank, reply, v1, op](pmix_status_t status, const std::string& found) {
                          Client* c = find_client(nspace, rank);
                          if (!c || c->phase != Client::Phase::initialized) return;  // gone, or ended meanwhile
                          Attributes attributes;
                          if (status != PMIX_SUCCESS) {
                              verbose()(5, "job {} rank {}: PMI {}: {}", nspace, rank, reply, reason(status));
                              attributes = v1 ? Attributes{{"rc", "-1"}, {"msg", reason(status)}, {"info", reason(status)}}
                                          : Attributes{{"rc", "-1"}, {"errmsg", reason(status)}};
                          } else if (v1) {
                              attributes = {{"rc", "0"}, {"info", "ok"}};
                              if (op == runtime::NameOp::lookup) attributes.emplace_back("port", found);
                          } else {
                              attributes = {{"rc", "0"}};
                              if (op == runtime::NameOp::lookup) {
                                  attributes.emplace_back("port", found);
                                  attributes.emplace_back("value", found);
                              }
                          }
                          answer(*c, reply, attributes);
                      });
}

}  // namespace prte::pmi::simple
