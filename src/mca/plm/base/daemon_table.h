// The master's table of its daemons: one entry per daemon rank (rank 0 is the master itself), with
// what the master knows of each: its node, whether it called home, whether it is gone and why, and
// whether a grow still holds it out of the wireup.
//
// The table also keeps the node facts that follow from its daemon's in step: Node::daemon and
// Node::daemon_launched when a rank is given, Node::state when the daemon reports and when it
// leaves. Copying those by hand in each caller is what chaos testing found out of step three
// times. Bookkeeping only: it sends nothing; plm_daemons.cc acts on what it says. Owned by the plm
// framework's base (plm_base.h, daemons()); built alone in test/unit/daemon_table_test.cc.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "runtime/node.h"

namespace prte::plm::base {

class DaemonTable {
  public:
    struct Daemon {
        runtime::Node* node = nullptr;
        bool reported = false;
        bool gone = false;
        bool held = false;  // a grow in progress has not wired it yet
        std::string loss;   // why it is gone, when something said so before it went
    };

    // Who the wireup names: the daemons every daemon routes to, the ranks that left (the tree
    // routes around them for good) and those given out but not wired yet (held by a grow, or not
    // reported: routed around until a later wireup names them).
    struct WireupView {
        std::vector<runtime::Rank> wired;
        std::vector<runtime::Rank> departed;
        std::set<runtime::Rank> absent;
    };

    DaemonTable();

    // Rank 0 is the master on `node` (null while the pool does not know the master's node).
    void set_master_node(runtime::Node* node);
    // Gives each node the next free rank, and marks it as having a daemon.
    std::vector<runtime::Rank> assign(const std::vector<runtime::Node*>& nodes);

    const Daemon* find(runtime::Rank rank) const;
    runtime::Node* node_of(runtime::Rank rank) const;
    // Ranks given out, the master's included.
    size_t size() const { return daemons_.size(); }

    // Whether a report from daemon `rank` is one the master expects: a rank it gave out, not the
    // master's, not reported before, not gone.
    bool expects_report(runtime::Rank rank) const;
    // Daemon `rank` called home: its node is up (a node the DVM does not include stays so).
    void mark_reported(runtime::Rank rank);
    // Reports received, those of daemons gone since included.
    size_t reports() const { return reports_; }
    bool all_reported() const { return reports_ + 1 == daemons_.size(); }
    // Daemons other than the master that have called home and not left.
    size_t live_remote() const;
    // Those of them, in rank order (the teardown names the ones that did not answer).
    std::vector<runtime::Rank> live_remote_ranks() const;

    // Records why daemon `rank` is about to be handled as lost; false, recording nothing, when the
    // rank is unknown or already gone.
    bool note_loss(runtime::Rank rank, std::string why);
    // Daemon `rank` left: it is gone and its node down. Once: false when it was already gone, is
    // the master, or is unknown.
    bool record_departure(runtime::Rank rank);
    // What is known of why daemon `rank` is gone, for an error message.
    std::string loss_reason(runtime::Rank rank) const;

    // Daemons a grow is starting stay out of every wireup until their own campaign wires them.
    void hold(const std::vector<runtime::Rank>& ranks);
    void release(const std::vector<runtime::Rank>& ranks);

    WireupView wireup_view() const;

  private:
    Daemon* entry(runtime::Rank rank);

    std::vector<Daemon> daemons_;  // by rank
    size_t reports_ = 0;
};

}  // namespace prte::plm::base
