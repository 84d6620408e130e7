// Parameters whose bad value used to mean something else without a word: prte_set_slots ("4abc"
// read as 4, a misspelt policy as cores) and oob_tcp_if_include (a malformed network matched
// nothing). Each is registered with a validator, so a bad value is one error line naming the
// parameter, the value and where it came from, and the program stops (docs/parameters.md).
#include <gtest/gtest.h>

#include <string>

#include "mca/base/param.h"
#include "mca/plm/base/plm_base.h"
#include "program/core_params.h"
#include "rml/rml.h"
#include "runtime/slot_policy.h"

namespace {

using prte::mca::ParamRegistry;
using prte::mca::ParamSource;
using prte::runtime::NodeTopology;

const char* const kSlotsExpected =
    "expected cores, hwthreads, pus, numas, packages, sockets, or a number of slots of at least 1";

TEST(SetSlots, PoliciesAndNumbersAreAccepted)
{
    for (const char* good : {"cores", "hwthreads", "pus", "numas", "packages", "sockets", "1", "4", "+4", " 16 "}) {
        EXPECT_EQ(prte::runtime::check_slot_policy(good), std::nullopt) << good;
    }
}

TEST(SetSlots, AnythingElseIsRefused)
{
    for (const char* bad : {"4abc", "abc4", "core", "Cores", "", "0", "-2", "4.5", "0x4", "2147483648"}) {
        EXPECT_EQ(prte::runtime::check_slot_policy(bad), std::string(kSlotsExpected)) << bad;
    }
}

TEST(SetSlots, EachPolicyReadsItsCountAndANumberIsTakenAsItIs)
{
    NodeTopology t;
    t.packages = 2;
    t.numa_domains = 4;
    t.cores = 16;
    t.hwthreads = 32;
    using prte::runtime::slots_for;
    EXPECT_EQ(slots_for("cores", t), 16);
    EXPECT_EQ(slots_for("hwthreads", t), 32);
    EXPECT_EQ(slots_for("pus", t), 32);
    EXPECT_EQ(slots_for("numas", t), 4);
    EXPECT_EQ(slots_for("packages", t), 2);
    EXPECT_EQ(slots_for("sockets", t), 2);
    EXPECT_EQ(slots_for("4", t), 4);
    EXPECT_EQ(slots_for("2147483647", t), 2147483647);
    // A node whose topology counts none of them still gets a slot.
    EXPECT_EQ(slots_for("numas", NodeTopology{}), 1);
    // Hardware that shows no cores (some virtual machines): cores are its hardware threads, as the
    // simulator counted before it shared this rule.
    NodeTopology threads_only;
    threads_only.hwthreads = 8;
    EXPECT_EQ(slots_for("cores", threads_only), 8);
}

// The parameter as the plm framework registers it.
TEST(SetSlots, ABadValueIsAnErrorNamingTheParameterAndTheDefaultStays)
{
    ParamRegistry r;
    r.set("prte_set_slots", "4abc", {ParamSource::command_line, "--prtemca prte_set_slots"});
    prte::plm::base::framework().register_params(r);
    const prte::mca::Param* p = r.find("prte_set_slots");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->as_string(), "cores");
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], std::string("bad value '4abc' for parameter prte_set_slots (from command line --prtemca "
                                         "prte_set_slots): ") +
                                 kSlotsExpected);
}

TEST(IfInclude, InterfacesAndNetworksAreAccepted)
{
    for (const char* good : {"", "lo", "lo,eth0", "198.18.0.0/24", "10.1.2.3/32,lo", "0.0.0.0/0", "eth0,,lo"}) {
        EXPECT_EQ(prte::rml::check_if_include(good), std::nullopt) << good;
    }
}

TEST(IfInclude, AMalformedNetworkIsRefusedNamingIt)
{
    for (std::string bad : {"198.18.0.0/33", "198.18.0.0/24x", "198.18.0/24", "198.18.0.0/", "/24", "198.18.0.0/-1",
                            "eth0/1", "198.18.0.256/24"}) {
        auto problem = prte::rml::check_if_include("lo," + bad);
        ASSERT_TRUE(problem.has_value()) << bad;
        EXPECT_EQ(*problem, "'" + bad +
                                "' is not an IPv4 network (address/bits, e.g. 198.18.0.0/24, bits from 0 to 32) nor "
                                "an interface name");
    }
}

// The parameter as the core registers it.
TEST(IfInclude, ABadValueIsAnErrorNamingTheParameterAndTheDefaultStays)
{
    ParamRegistry r;
    r.set("oob_tcp_if_include", "lo,198.18.0.0/33", {ParamSource::environment, "PRTE_MCA_oob_tcp_if_include"});
    prte::program::register_core_params(r);
    const prte::mca::Param* p = r.find("oob_tcp_if_include");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->as_string(), "");
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "bad value 'lo,198.18.0.0/33' for parameter oob_tcp_if_include (from environment "
                             "PRTE_MCA_oob_tcp_if_include): '198.18.0.0/33' is not an IPv4 network (address/bits, e.g. "
                             "198.18.0.0/24, bits from 0 to 32) nor an interface name");
}

}  // namespace
