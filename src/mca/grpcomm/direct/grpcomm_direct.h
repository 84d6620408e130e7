// grpcomm/direct: collectives over the radix routing tree (rml/rml.h).
//
// xcast: the master wraps the message with an op id and sends it to its children; each daemon
// forwards it to its own children before processing it (process-first only for wireup and
// daemon_died, which change the tree the message must then follow), and acknowledges to its parent
// once it has processed the message and every child has acknowledged. On the master, the last
// acknowledgement means the whole DVM has the message: the caller's completion runs then. When the
// tree changes under an op (a daemon lost), children adopted since are sent the op too, and
// departed ones are no longer waited for; a daemon that gets an op twice only acknowledges it.
//
// allgather: each daemon hosting participants contributes its node's data; a daemon waits for its
// own contribution (if it hosts participants) and for every child whose subtree hosts some, then
// passes the concatenation up; the master broadcasts the whole. Successive collectives over the
// same processes are told apart by a per-signature sequence number every participant counts alike.
#pragma once

#include <map>
#include <set>
#include <string>

#include "mca/grpcomm/grpcomm.h"
#include "runtime/node.h"

namespace prte::grpcomm::direct {

class DirectModule final : public Module {
  public:
    Status init() override;
    Status xcast(rml::Tag tag, const rml::Payload& message, XcastCompletion on_complete) override;
    Status allgather(const Signature& signature, const rml::Payload& contribution,
                     AllgatherCallback on_complete) override;
    void finalize() noexcept override;

  private:
    struct XcastOp {
        rml::Tag tag = 0;
        rml::Payload message;  // the wrapped form, as forwarded
        std::set<runtime::Rank> sent;
        std::set<runtime::Rank> pending;
        bool processed = false;
        XcastCompletion on_complete;
    };
    struct GatherOp {
        std::string key;
        std::vector<std::string> procs;  // "nspace:rank", for working out the participants
        std::set<runtime::Rank> participants;
        bool contributed = false;  // this daemon's own share is in
        std::set<runtime::Rank> heard;  // children whose share is in
        rml::Payload data;
        AllgatherCallback on_complete;  // participants only
        bool sent_up = false;
    };

    void on_xcast(runtime::Rank origin, rml::Payload&& payload);
    void on_ack(runtime::Rank origin, rml::Payload&& payload);
    void start_op(uint64_t id, XcastOp op);
    void forward(uint64_t id, XcastOp& op);
    void process(uint64_t id, XcastOp& op);
    void maybe_finish(uint64_t id);
    void on_tree_changed();

    void on_gather(runtime::Rank origin, rml::Payload&& payload);
    void on_release(runtime::Rank origin, rml::Payload&& payload);
    GatherOp& gather_op(const std::string& key, const std::vector<std::string>& procs);
    void maybe_send_up(GatherOp& op);

    uint64_t next_op_ = 1;
    std::map<uint64_t, XcastOp> ops_;
    std::set<uint64_t> seen_;
    std::map<std::string, uint64_t> signature_seq_;
    std::map<std::string, GatherOp> gathers_;
};

}  // namespace prte::grpcomm::direct
