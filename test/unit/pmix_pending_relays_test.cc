// PendingRelays: a request a daemon relayed to the master is answered exactly once - by the
// master's reply, or by an error when the reply can no longer come (its route lost, its requester
// ended, the server stopping) - and a reply that comes after such an error is ignored. route_to:
// the daemons a request to another daemon and its reply pass.
#include <gtest/gtest.h>
#include <pmix_common.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pmix/pending_relays.h"
#include "rml/radix_tree.h"

namespace {

using prte::Errc;
using prte::Status;
using prte::pmix::PendingRelays;
using prte::pmix::RelayAnswer;
using prte::pmix::route_to;
using prte::rml::RadixTree;
using Ranks = std::vector<prte::runtime::Rank>;

pmix_proc_t proc(const char* nspace, pmix_rank_t rank)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    return p;
}

// Relays one request along `route` and records every answer it gets; returns its id.
uint64_t relay(PendingRelays& relays, std::vector<RelayAnswer>& answers, const std::optional<pmix_proc_t>& requester,
               std::vector<prte::runtime::Rank> route = {1, 0})
{
    uint64_t sent_id = 0;
    Status st = relays.relay(
        requester, std::move(route), [&](uint64_t id) { sent_id = id; return Status{}; },
        [&answers](const RelayAnswer& a) { answers.push_back(a); });
    EXPECT_TRUE(st.ok());
    return sent_id;
}

TEST(PendingRelays, TheReplyAnswersOnceAndASecondReplyIsIgnored)
{
    PendingRelays relays;
    std::vector<RelayAnswer> answers;
    uint64_t id = relay(relays, answers, proc("job@1", 0));
    EXPECT_EQ(relays.size(), 1u);
    EXPECT_TRUE(answers.empty());

    EXPECT_TRUE(relays.answer(id, {PMIX_SUCCESS, "job@2", {}}));
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].status, PMIX_SUCCESS);
    EXPECT_EQ(answers[0].value, "job@2");
    EXPECT_EQ(relays.size(), 0u);

    EXPECT_FALSE(relays.answer(id, {PMIX_SUCCESS, "job@3", {}}));
    EXPECT_EQ(answers.size(), 1u);
    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "stopping"), 0u);
    EXPECT_EQ(answers.size(), 1u);
}

TEST(PendingRelays, EachRequestHasItsOwnId)
{
    PendingRelays relays;
    std::vector<RelayAnswer> first, second;
    uint64_t a = relay(relays, first, proc("job@1", 0));
    uint64_t b = relay(relays, second, proc("job@1", 0));
    EXPECT_NE(a, b);
    EXPECT_TRUE(relays.answer(b, {PMIX_ERR_NOT_FOUND, {}, {}}));
    EXPECT_TRUE(first.empty());
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].status, PMIX_ERR_NOT_FOUND);
}

TEST(PendingRelays, ARequestThatCannotBeSentIsNotKept)
{
    PendingRelays relays;
    int answered = 0;
    Status st = relays.relay(
        proc("job@1", 0), {0}, [](uint64_t) { return Status(Errc::unreachable, "no route to daemon 0"); },
        [&](const RelayAnswer&) { answered++; });
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "no route to daemon 0");
    EXPECT_EQ(relays.size(), 0u);
    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "stopping"), 0u);
    EXPECT_EQ(answered, 0);  // the caller answers a request it could not send
}

TEST(PendingRelays, FailAllAnswersEveryRequestOnceWithTheError)
{
    PendingRelays relays;
    std::vector<RelayAnswer> answers;
    std::vector<uint64_t> ids;
    for (pmix_rank_t r = 0; r < 3; ++r) ids.push_back(relay(relays, answers, proc("job@1", r)));

    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "the PMIx server is stopping"), 3u);
    ASSERT_EQ(answers.size(), 3u);
    for (const RelayAnswer& a : answers) {
        EXPECT_EQ(a.status, PMIX_ERR_UNREACH);
        EXPECT_EQ(a.message, "the PMIx server is stopping");
    }
    EXPECT_EQ(relays.size(), 0u);

    // Nothing twice: neither a second sweep nor the master's late replies.
    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "again"), 0u);
    for (uint64_t id : ids) EXPECT_FALSE(relays.answer(id, {PMIX_SUCCESS, "late", {}}));
    EXPECT_EQ(answers.size(), 3u);
}

TEST(PendingRelays, ALostDaemonFailsOnlyTheRequestsRoutedThroughIt)
{
    PendingRelays relays;
    std::vector<RelayAnswer> via_one, via_two, direct;
    uint64_t one = relay(relays, via_one, proc("job@1", 0), {1, 0});
    uint64_t two = relay(relays, via_two, proc("job@1", 1), {2, 0});
    uint64_t none = relay(relays, direct, proc("job@1", 2), {0});

    EXPECT_EQ(relays.fail_routed_through({1}, PMIX_ERR_UNREACH, "daemon 1 lost"), 1u);
    ASSERT_EQ(via_one.size(), 1u);
    EXPECT_EQ(via_one[0].status, PMIX_ERR_UNREACH);
    EXPECT_EQ(via_one[0].message, "daemon 1 lost");
    EXPECT_TRUE(via_two.empty());
    EXPECT_TRUE(direct.empty());
    EXPECT_FALSE(relays.answer(one, {PMIX_SUCCESS, "late", {}}));
    EXPECT_EQ(via_one.size(), 1u);

    // The master is on every route.
    EXPECT_EQ(relays.fail_routed_through({0}, PMIX_ERR_UNREACH, "the master lost"), 2u);
    EXPECT_EQ(via_two.size(), 1u);
    EXPECT_EQ(direct.size(), 1u);
    EXPECT_FALSE(relays.answer(two, {PMIX_SUCCESS, {}, {}}));
    EXPECT_FALSE(relays.answer(none, {PMIX_SUCCESS, {}, {}}));
}

TEST(PendingRelays, AnEndedRequesterHasOnlyItsOwnRequestsFailed)
{
    PendingRelays relays;
    std::vector<RelayAnswer> ended, other_rank, other_job;
    relay(relays, ended, proc("job@1", 0));
    relay(relays, ended, proc("job@1", 0));
    uint64_t keep = relay(relays, other_rank, proc("job@1", 1));
    relay(relays, other_job, proc("job@2", 0));

    EXPECT_EQ(relays.fail_requester(proc("job@1", 0), PMIX_ERR_LOST_CONNECTION, "the requester ended"), 2u);
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(ended[0].status, PMIX_ERR_LOST_CONNECTION);
    EXPECT_EQ(ended[1].status, PMIX_ERR_LOST_CONNECTION);
    EXPECT_TRUE(other_rank.empty());
    EXPECT_TRUE(other_job.empty());
    EXPECT_EQ(relays.size(), 2u);

    EXPECT_TRUE(relays.answer(keep, {PMIX_SUCCESS, "job@3", {}}));
    ASSERT_EQ(other_rank.size(), 1u);
    EXPECT_EQ(other_rank[0].value, "job@3");
}

TEST(PendingRelays, AnAnswerThatRelaysAgainIsNotAnsweredByTheSameSweep)
{
    // An answer may start another relay (a retry): the sweep answers only what it found.
    PendingRelays relays;
    int first_answers = 0;
    std::vector<RelayAnswer> retried;
    Status st = relays.relay(
        proc("job@1", 0), {1, 0}, [](uint64_t) { return Status{}; },
        [&](const RelayAnswer&) {
            first_answers++;
            relay(relays, retried, proc("job@1", 0), {0});
        });
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "stopping"), 1u);
    EXPECT_EQ(first_answers, 1);
    EXPECT_TRUE(retried.empty());
    EXPECT_EQ(relays.size(), 1u);
}

TEST(PendingRelays, ARequestOfNoProcessOfThisNodeEndsOnlyWithItsRouteOrTheServer)
{
    // A direct modex request or stdin for another node: no requester here to end.
    PendingRelays relays;
    std::vector<RelayAnswer> modex, stdin_sent;
    uint64_t id = relay(relays, modex, std::nullopt, {1, 3});
    relay(relays, stdin_sent, std::nullopt, {2});
    EXPECT_EQ(relays.fail_requester(proc("", 0), PMIX_ERR_LOST_CONNECTION, "the requester ended"), 0u);
    EXPECT_EQ(relays.fail_requester(proc("job@1", 0), PMIX_ERR_LOST_CONNECTION, "the requester ended"), 0u);
    EXPECT_EQ(relays.size(), 2u);

    EXPECT_EQ(relays.fail_routed_through({3}, PMIX_ERR_UNREACH, "daemon 3 lost"), 1u);
    ASSERT_EQ(modex.size(), 1u);
    EXPECT_EQ(modex[0].status, PMIX_ERR_UNREACH);
    EXPECT_TRUE(modex[0].data.empty());
    EXPECT_FALSE(relays.answer(id, {PMIX_SUCCESS, {}, {}, {1, 2, 3}}));
    EXPECT_EQ(relays.fail_all(PMIX_ERR_UNREACH, "stopping"), 1u);
    EXPECT_EQ(stdin_sent.size(), 1u);
}

TEST(PendingRelays, TheReplyCanCarryBytes)
{
    PendingRelays relays;
    std::vector<RelayAnswer> answers;
    uint64_t id = relay(relays, answers, std::nullopt, {1});
    EXPECT_TRUE(relays.answer(id, {PMIX_SUCCESS, {}, {}, {7, 8, 9}}));
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].data, (std::vector<uint8_t>{7, 8, 9}));
}

Ranks sorted(Ranks ranks)
{
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

TEST(RouteTo, UpToTheCommonAncestorThenDownToTheTarget)
{
    // radix 2: 0 -> 1, 2; 1 -> 3, 4; 2 -> 5, 6.
    RadixTree from3(3, 7, 2);
    EXPECT_EQ(route_to(from3, 0), (Ranks{1, 0}));
    EXPECT_EQ(route_to(from3, 1), (Ranks{1}));
    EXPECT_EQ(sorted(route_to(from3, 4)), (Ranks{1, 4}));
    EXPECT_EQ(sorted(route_to(from3, 6)), (Ranks{0, 1, 2, 6}));
    EXPECT_EQ(sorted(route_to(from3, 2)), (Ranks{0, 1, 2}));

    RadixTree from0(0, 7, 2);
    EXPECT_EQ(sorted(route_to(from0, 6)), (Ranks{2, 6}));
    EXPECT_EQ(route_to(from0, 1), (Ranks{1}));

    RadixTree from1(1, 7, 2);
    EXPECT_EQ(route_to(from1, 4), (Ranks{4}));
    EXPECT_EQ(sorted(route_to(from1, 5)), (Ranks{0, 2, 5}));
}

TEST(RouteTo, FollowsTheRepairedTree)
{
    // Daemon 1 departed: 3 and 4 are adopted by 0.
    RadixTree from3(3, 7, 2);
    from3.mark_departed({1});
    EXPECT_EQ(route_to(from3, 0), (Ranks{0}));
    EXPECT_EQ(sorted(route_to(from3, 4)), (Ranks{0, 4}));

    // A departed target is not in the tree: our way up, and the target.
    from3.mark_departed({6});
    EXPECT_EQ(sorted(route_to(from3, 6)), (Ranks{0, 6}));
}

}  // namespace
