// pack_infos / unpack_infos carry PMIx info arrays between daemons (events, publish/lookup): every
// entry must come out as it went in. A first version unpacked the entries in one call, which
// filled only the first and left the others empty, so an event lost its AFFECTED_PROC, message
// and PMIX_EVENT_DO_NOT_CACHE on its way to other nodes (and was cached for late registrants).
#include <gtest/gtest.h>
#include <pmix.h>

#include <cstring>
#include <string>
#include <vector>

#include "pmix/info_array.h"
#include "pmix_server_env.h"

namespace {

using prte::pmix::InfoArray;

TEST(PmixInfoArray, EveryEntrySurvivesPackAndUnpack)
{
    InfoArray info;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, "job@1", 3);
    info.add_proc(PMIX_EVENT_AFFECTED_PROC, proc);
    info.add_int(PMIX_EXIT_CODE, 137);
    info.add_string(PMIX_EVENT_TEXT_MESSAGE, "rank 3 was killed");
    info.add_bool(PMIX_EVENT_DO_NOT_CACHE, true);

    std::vector<uint8_t> bytes;
    ASSERT_TRUE(prte::pmix::pack_infos(info.data(), info.size(), bytes));
    size_t n = 0;
    pmix_info_t* out = prte::pmix::unpack_infos(bytes, n, 1);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(n, 5u);  // four, and the spare slot asked for
    EXPECT_STREQ(out[0].key, PMIX_EVENT_AFFECTED_PROC);
    ASSERT_EQ(out[0].value.type, PMIX_PROC);
    EXPECT_STREQ(out[0].value.data.proc->nspace, "job@1");
    EXPECT_EQ(out[0].value.data.proc->rank, 3u);
    EXPECT_STREQ(out[1].key, PMIX_EXIT_CODE);
    EXPECT_EQ(out[1].value.data.integer, 137);
    EXPECT_STREQ(out[2].key, PMIX_EVENT_TEXT_MESSAGE);
    ASSERT_EQ(out[2].value.type, PMIX_STRING);
    EXPECT_STREQ(out[2].value.data.string, "rank 3 was killed");
    EXPECT_STREQ(out[3].key, PMIX_EVENT_DO_NOT_CACHE);
    EXPECT_TRUE(PMIX_INFO_TRUE(&out[3]));
    EXPECT_EQ(out[4].key[0], '\0');  // the spare slot is the caller's
    PMIX_INFO_FREE(out, n);
}

TEST(PmixInfoArray, SkippedKeyIsLeftOut)
{
    InfoArray info;
    info.add_bool("pmix.srvr.internal.notify", true);
    info.add_int(PMIX_EXIT_CODE, 1);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(prte::pmix::pack_infos(info.data(), info.size(), bytes, "pmix.srvr.internal.notify"));
    size_t n = 0;
    pmix_info_t* out = prte::pmix::unpack_infos(bytes, n);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(n, 1u);
    EXPECT_STREQ(out[0].key, PMIX_EXIT_CODE);
    PMIX_INFO_FREE(out, n);
}

TEST(PmixInfoArray, TruncatedOrOversizedInputIsRefused)
{
    InfoArray info;
    info.add_string(PMIX_EVENT_TEXT_MESSAGE, "a message long enough to cut");
    info.add_int(PMIX_EXIT_CODE, 2);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(prte::pmix::pack_infos(info.data(), info.size(), bytes));
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
    size_t n = 7;
    EXPECT_EQ(prte::pmix::unpack_infos(cut, n), nullptr);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(prte::pmix::unpack_infos(bytes, n, 0, 1), nullptr);  // more entries than allowed
}

TEST(PmixInfoArray, ValueProcsReadsOneProcOrAnArrayOfThem)
{
    pmix_proc_t two[2];
    PMIX_LOAD_PROCID(&two[0], "job-a", 0);
    PMIX_LOAD_PROCID(&two[1], "job-b", PMIX_RANK_WILDCARD);
    InfoArray info;
    info.add_proc(PMIX_EVENT_AFFECTED_PROC, two[0]);
    info.add_proc_array(PMIX_EVENT_CUSTOM_RANGE, two, 2);
    info.add_string(PMIX_EVENT_TEXT_MESSAGE, "not processes");

    std::vector<pmix_proc_t> one = prte::pmix::value_procs(info.data()[0].value);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_TRUE(PMIX_CHECK_PROCID(&one[0], &two[0]));
    std::vector<pmix_proc_t> both = prte::pmix::value_procs(info.data()[1].value);
    ASSERT_EQ(both.size(), 2u);
    EXPECT_STREQ(both[1].nspace, "job-b");
    EXPECT_EQ(both[1].rank, PMIX_RANK_WILDCARD);
    EXPECT_TRUE(prte::pmix::value_procs(info.data()[2].value).empty());
}

}  // namespace
