// The master's table of daemons (src/mca/plm/base/daemon_table.h): ranks given in order, the node
// facts it keeps in step with each daemon's (rank, launched, up, down), reports accepted once,
// departures recorded once, what the wireup names and routes around, and why a daemon is gone.
#include "mca/plm/base/daemon_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace {

using prte::plm::base::DaemonTable;
using prte::runtime::Node;
using prte::runtime::NodeState;
using prte::runtime::Rank;
using Ranks = std::vector<Rank>;

struct Testbed {
    Node master{"vm"};
    std::vector<Node> nodes{Node{"node1"}, Node{"node2"}, Node{"node3"}};
    DaemonTable table;

    Testbed()
    {
        table.set_master_node(&master);
        table.assign({&nodes[0], &nodes[1], &nodes[2]});
    }
    void report_all()
    {
        for (Rank r = 1; r <= 3; ++r) table.mark_reported(r);
    }
};

TEST(DaemonTable, AssignsTheNextRanksAndMarksTheirNodes)
{
    Testbed t;
    EXPECT_EQ(t.table.size(), 4u);
    EXPECT_EQ(t.nodes[0].daemon, 1u);
    EXPECT_EQ(t.nodes[2].daemon, 3u);
    EXPECT_TRUE(t.nodes[1].daemon_launched);
    EXPECT_EQ(t.table.node_of(0), &t.master);
    EXPECT_EQ(t.table.node_of(2), &t.nodes[1]);
    EXPECT_EQ(t.table.node_of(9), nullptr);
    // A grow's nodes take the ranks after every rank ever given, gone ones included.
    EXPECT_TRUE(t.table.record_departure(3));
    Node grown{"node4"};
    EXPECT_EQ(t.table.assign({&grown}), Ranks{4});
    EXPECT_EQ(grown.daemon, 4u);
}

TEST(DaemonTable, AReportIsAcceptedOnceAndBringsItsNodeUp)
{
    Testbed t;
    EXPECT_FALSE(t.table.expects_report(0));  // the master reports to nobody
    EXPECT_FALSE(t.table.expects_report(7));
    ASSERT_TRUE(t.table.expects_report(1));
    t.table.mark_reported(1);
    EXPECT_EQ(t.nodes[0].state, NodeState::up);
    EXPECT_FALSE(t.table.expects_report(1));
    t.table.mark_reported(1);  // counted once
    EXPECT_EQ(t.table.reports(), 1u);
    EXPECT_FALSE(t.table.all_reported());
    // A node the DVM does not include stays so when its daemon reports.
    t.nodes[1].state = NodeState::not_included;
    t.table.mark_reported(2);
    EXPECT_EQ(t.nodes[1].state, NodeState::not_included);
    t.table.mark_reported(3);
    EXPECT_TRUE(t.table.all_reported());
    EXPECT_EQ(t.table.live_remote(), 3u);
}

TEST(DaemonTable, ADepartureIsRecordedOnceAndTakesItsNodeDown)
{
    Testbed t;
    t.report_all();
    EXPECT_FALSE(t.table.record_departure(0));  // the master never leaves its own table
    ASSERT_TRUE(t.table.record_departure(2));
    EXPECT_EQ(t.nodes[1].state, NodeState::down);
    EXPECT_FALSE(t.table.record_departure(2));
    EXPECT_FALSE(t.table.record_departure(8));
    EXPECT_EQ(t.table.live_remote(), 2u);
    EXPECT_EQ(t.table.live_remote_ranks(), (Ranks{1, 3}));
    EXPECT_FALSE(t.table.expects_report(2));  // a report from the dead is dropped
    // Gone daemons still count among the reports received: the start-up waits for no one twice.
    EXPECT_TRUE(t.table.all_reported());
}

TEST(DaemonTable, TheWireupRoutesAroundTheHeldTheUnreportedAndTheGone)
{
    Testbed t;
    t.table.mark_reported(1);
    t.table.mark_reported(2);
    // Rank 3 has not called home: absent.
    DaemonTable::WireupView v = t.table.wireup_view();
    EXPECT_EQ(v.wired, (Ranks{0, 1, 2}));
    EXPECT_EQ(v.absent, (std::set<Rank>{3}));
    EXPECT_TRUE(v.departed.empty());

    t.table.mark_reported(3);
    t.table.hold({2, 3});  // a grow still starting them
    v = t.table.wireup_view();
    EXPECT_EQ(v.wired, (Ranks{0, 1}));
    EXPECT_EQ(v.absent, (std::set<Rank>{2, 3}));

    t.table.release({3});
    EXPECT_TRUE(t.table.record_departure(2));  // leaving ends a hold too
    v = t.table.wireup_view();
    EXPECT_EQ(v.wired, (Ranks{0, 1, 3}));
    EXPECT_TRUE(v.absent.empty());
    EXPECT_EQ(v.departed, Ranks{2});
}

TEST(DaemonTable, AMasterWhoseNodeIsUnknownIsNotWired)
{
    DaemonTable table;
    DaemonTable::WireupView v = table.wireup_view();
    EXPECT_TRUE(v.wired.empty());
    EXPECT_EQ(v.absent, (std::set<Rank>{0}));
}

TEST(DaemonTable, SaysWhyADaemonIsGone)
{
    Testbed t;
    t.table.mark_reported(1);
    EXPECT_EQ(t.table.loss_reason(1), "daemon 1 on node node1 was lost (its connection closed)");
    EXPECT_EQ(t.table.loss_reason(2), "daemon 2 on node node2 exited before calling home");
    EXPECT_EQ(t.table.loss_reason(42), "is unknown");
    ASSERT_TRUE(t.table.note_loss(3, "ssh to node3 failed: no route to host"));
    EXPECT_EQ(t.table.loss_reason(3), "ssh to node3 failed: no route to host");
    // Once gone, a later account does not replace the first.
    EXPECT_TRUE(t.table.record_departure(3));
    EXPECT_FALSE(t.table.note_loss(3, "heartbeat lost"));
    EXPECT_EQ(t.table.loss_reason(3), "ssh to node3 failed: no route to host");
    EXPECT_FALSE(t.table.note_loss(42, "?"));
}

}  // namespace
