// The daemons' message decoders (src/mca/plm/base/plm_messages.cc): every message round-trips;
// values a well-behaved daemon never sends (a rank span beyond any DVM, a rank out of the span or
// named twice, a state or channel or signal no one defined, bytes left over) are refused on one
// line naming the message and the field; and a seeded fuzz feeds random and mutated frames to
// every decoder, which must never crash, never keep memory, and either refuse them with such a
// line or accept something that encodes and decodes again to itself. And each message's encoding
// of a fixed, fully populated example is the one recorded for this wire protocol version
// (wire_golden.inc): a payload changed without a new version fails here.
#include "mca/plm/base/plm_messages.h"

#include <malloc.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mca/plm/base/plm_daemons.h"
#include "pmix_server_env.h"
#include "rml/buffer.h"
#include "rml/types.h"
#include "runtime/hw_topology.h"
#include "wire_golden.h"

namespace {

namespace msg = prte::plm::msg;
using prte::Status;
using prte::rml::Payload;
using prte::runtime::ProcState;
using prte::runtime::Rank;

int64_t heap_in_use()
{
    struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.hblkhd + m.uordblks);
}

msg::Wireup sample_wireup()
{
    msg::Wireup w;
    w.size = 5;
    w.daemons = {{0, "head", "tcp://127.0.0.1:4000", 4, false}, {1, "node01", "tcp://127.0.0.1:4001", 2, true},
                 {3, "node03", "tcp://127.0.0.1:4003,10.0.0.3:4003", 8, true}};
    w.departed = {2};  // and 4 is still starting
    return w;
}

msg::ProcUpdate sample_update()
{
    return {"prte-job-7", 3, ProcState::waitpid_fired, 4242, 1, 0, "exited with status 1"};
}

prte::runtime::NodePool& pool()
{
    static prte::runtime::NodePool nodes = [] {
        prte::runtime::NodePool p;
        for (const char* name : {"node01", "node02"}) {
            prte::runtime::Node n;
            n.name = name;
            p.add(n);
        }
        return p;
    }();
    return nodes;
}

prte::runtime::Job sample_job()
{
    prte::runtime::Job job;
    job.nspace = "prte-job-9";
    prte::runtime::AppContext a;
    a.index = 0;
    a.executable = "/bin/echo";
    a.argv = {"echo", "hello", ""};
    a.env = {"A=1", "B="};
    a.working_dir = "/tmp";
    a.num_procs = 3;
    job.apps.push_back(a);
    a.index = 1;
    a.executable = "/bin/true";
    a.argv = {"true"};
    a.env = {};
    a.num_procs = 0;
    job.apps.push_back(a);
    job.mapping.bind_to = prte::runtime::BindTo::l2cache;
    job.mapping.bind_overload_allowed = true;
    job.mapping.by = prte::runtime::MapBy::numa;
    job.stdin_target.kind = prte::runtime::StdinTarget::Kind::rank;
    job.stdin_target.rank = 0;
    pmix_proc_t parent;
    PMIX_LOAD_PROCID(&parent, "prte-job-8", 1);
    job.originator = parent;
    for (Rank r = 0; r < 4; ++r) {
        auto p = std::make_unique<prte::runtime::Proc>();
        p->rank = r;
        p->app_index = r < 3 ? 0 : 1;
        p->node = pool().find(r % 2 ? "node02" : "node01");
        p->local_rank = static_cast<int>(r / 2);
        p->node_rank = static_cast<int>(r / 2);
        job.procs.push_back(std::move(p));
    }
    return job;
}

// A decoder as the fuzz sees it: the name its errors start with, valid frames to mutate, and a
// decode that, when it accepts, re-encodes what it decoded.
struct Decoder {
    std::string name;
    std::vector<Payload> samples;
    std::function<Status(const Payload& in, Payload& reencoded)> decode;
};

template <typename Message>
Decoder simple(std::string name, std::vector<Message> samples)
{
    Decoder d;
    d.name = std::move(name);
    for (const auto& m : samples) d.samples.push_back(msg::encode(m));
    d.decode = [](const Payload& in, Payload& again) {
        Message m;
        Status st = msg::decode(in, m);
        if (st) again = msg::encode(m);
        return st;
    };
    return d;
}

std::vector<Decoder> all_decoders()
{
    std::vector<Decoder> out;
    out.push_back(simple<msg::DaemonReport>(
        "daemon report", {{7, "node07", "tcp://127.0.0.1:4007", {1, 1, 4, 8}, "<topology version=\"2.0\"/>\n",
                           "host7 3c1a2b4e-5d6f-4a70-8b91-a2b3c4d5e6f7"},
                          {1, "n", "", {0, 0, 0, 0}, "", ""}}));
    out.push_back(simple<msg::Wireup>("wireup", {sample_wireup(), msg::Wireup{1, {{0, "head", "u", 1, true}}, {}}}));
    out.push_back(simple<msg::DaemonCommand>(
        "daemon command", {{msg::Command::exit, "", 0, {}},
                           {msg::Command::signal_job, "prte-job-3", 15, {}},
                           {msg::Command::shrink, "", 0, {4, 5, 9}},
                           {msg::Command::restart_procs, "prte-job-5", 0, {2, 7}}}));
    out.push_back(simple<msg::ProcUpdate>("process update", {sample_update(), {"j", 0, ProcState::running, 0, 0, 0, ""}}));
    out.push_back(simple<msg::Output>(
        "output", {{"prte-job-1", 2, PMIX_FWD_STDERR_CHANNEL, {'h', 'i', '\n'}}, {"j", 0, PMIX_FWD_STDOUT_CHANNEL, {}}}));
    out.push_back(simple<msg::Silence>("daemon silence", {{3, 4012}, {1, 0}}));
    Decoder ranks;
    ranks.name = "daemon list";
    ranks.samples = {msg::encode_ranks({3, 1, 4}), msg::encode_ranks({})};
    ranks.decode = [](const Payload& in, Payload& again) {
        std::vector<Rank> r;
        Status st = msg::decode_ranks(in, r);
        if (st) again = msg::encode_ranks(r);
        return st;
    };
    out.push_back(ranks);
    Decoder job;
    job.name = "launch message";
    job.samples = {msg::encode_job(sample_job())};
    job.decode = [](const Payload& in, Payload& again) {
        prte::runtime::JobPtr j;
        Status st = msg::decode_job(in, pool(), j);
        if (st) again = msg::encode_job(*j);
        return st;
    };
    out.push_back(job);
    return out;
}

// A refusal names its message and a field, on one line.
bool clean_error(const Decoder& d, const Status& st, const Payload& in)
{
    const std::string& e = st.message();
    bool named = e.rfind(d.name + ": field ", 0) == 0;
    bool one_line = e.find('\n') == std::string::npos && e.size() < 400;
    EXPECT_TRUE(named) << "not named after its message and field: " << e << " (input of " << in.size() << " bytes)";
    EXPECT_TRUE(one_line) << "not one short line: " << e << " (input of " << in.size() << " bytes)";
    return named && one_line;
}

TEST(PlmMessages, EveryMessageRoundTrips)
{
    for (const Decoder& d : all_decoders()) {
        for (const Payload& sample : d.samples) {
            Payload again;
            Status st = d.decode(sample, again);
            EXPECT_TRUE(st) << d.name << ": " << st.message();
            EXPECT_EQ(again, sample) << d.name;
        }
    }
}

TEST(PlmMessages, WireupDecodesWhatWasSent)
{
    msg::Wireup w;
    ASSERT_TRUE(msg::decode(msg::encode(sample_wireup()), w));
    EXPECT_EQ(w.size, 5u);
    ASSERT_EQ(w.daemons.size(), 3u);
    EXPECT_EQ(w.daemons[2].rank, 3u);
    EXPECT_EQ(w.daemons[2].uri, "tcp://127.0.0.1:4003,10.0.0.3:4003");
    EXPECT_FALSE(w.daemons[0].allocated);
    EXPECT_EQ(w.departed, std::vector<Rank>{2});
}

Status decode_wireup(const msg::Wireup& w)
{
    msg::Wireup out;
    return msg::decode(msg::encode(w), out);
}

// The span sizes every daemon's routing tree: 2^32-1 ranks would be vectors of 4 G entries.
TEST(PlmMessages, AWireupSpanBeyondAnyDvmIsRefused)
{
    msg::Wireup w;
    w.size = 0xffffffffu;
    Status st = decode_wireup(w);
    EXPECT_FALSE(st);
    EXPECT_EQ(st.message(), "wireup: field 1 (u32) at byte 0: a DVM of 4294967295 daemons (1 to 1048576 allowed)");
    w.size = 0;
    EXPECT_FALSE(decode_wireup(w));
}

TEST(PlmMessages, WireupRanksMustBeInTheSpanAndNamedOnce)
{
    msg::Wireup beyond = sample_wireup();
    beyond.daemons[1].rank = 5;
    Status st = decode_wireup(beyond);
    EXPECT_NE(st.message().find("wireup: field "), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("daemon 5 is beyond the DVM's 5 ranks"), std::string::npos) << st.message();

    msg::Wireup twice = sample_wireup();
    twice.daemons[2].rank = 1;
    st = decode_wireup(twice);
    EXPECT_NE(st.message().find("daemon 1 is named twice"), std::string::npos) << st.message();

    msg::Wireup listed_and_gone = sample_wireup();
    listed_and_gone.departed = {3};
    st = decode_wireup(listed_and_gone);
    EXPECT_NE(st.message().find("daemon 3 is named twice"), std::string::npos) << st.message();

    msg::Wireup negative = sample_wireup();
    negative.daemons[0].slots = -4;
    st = decode_wireup(negative);
    EXPECT_NE(st.message().find("daemon 0's node has -4 slots"), std::string::npos) << st.message();
}

TEST(PlmMessages, AProcessStateNobodyDefinedIsRefused)
{
    for (int32_t value : {12345, -1, 0, 30}) {
        msg::ProcUpdate u = sample_update();
        u.state = static_cast<ProcState>(value);
        msg::ProcUpdate out;
        Status st = msg::decode(msg::encode(u), out);
        EXPECT_FALSE(st) << value;
        EXPECT_NE(st.message().find(std::to_string(value) + " is not a process state"), std::string::npos)
            << st.message();
    }
    for (ProcState s : {ProcState::running, ProcState::failed_to_start, ProcState::error, ProcState::peer_unknown}) {
        msg::ProcUpdate u = sample_update();
        u.state = s;
        msg::ProcUpdate out;
        EXPECT_TRUE(msg::decode(msg::encode(u), out));
        EXPECT_EQ(out.state, s);
    }
}

TEST(PlmMessages, AnOutputChannelNobodyWritesToIsRefused)
{
    msg::Output o{"j", 0, static_cast<pmix_iof_channel_t>(0x40), {'x'}};
    msg::Output out;
    Status st = msg::decode(msg::encode(o), out);
    EXPECT_EQ(st.message(), "output: field 3 (u32) at byte 6: 0x40 is not an output channel");
}

TEST(PlmMessages, ASignalOutOfRangeIsRefused)
{
    msg::DaemonCommand c{msg::Command::signal_job, "j", 1000, {}};
    msg::DaemonCommand out;
    Status st = msg::decode(msg::encode(c), out);
    EXPECT_NE(st.message().find("signal 1000 is not a signal"), std::string::npos) << st.message();
    msg::ProcUpdate u = sample_update();
    u.term_signal = -9;
    msg::ProcUpdate uout;
    st = msg::decode(msg::encode(u), uout);
    EXPECT_NE(st.message().find("terminating signal -9 is not a signal"), std::string::npos) << st.message();
}

TEST(PlmMessages, AnUnknownCommandIsRefused)
{
    msg::DaemonCommand c{static_cast<msg::Command>(9), "", 0, {}};
    msg::DaemonCommand out;
    EXPECT_EQ(msg::decode(msg::encode(c), out).message(), "daemon command: field 1 (u8) at byte 0: unknown command 9");
}

TEST(PlmMessages, ADaemonRankBeyondAnyDvmIsRefused)
{
    std::vector<Rank> out;
    Status st = msg::decode_ranks(msg::encode_ranks({1, 1u << 20}), out);
    EXPECT_NE(st.message().find("daemon 1048576 is beyond the 1048576 daemons a DVM may have"), std::string::npos)
        << st.message();
}

TEST(PlmMessages, BytesLeftOverAreRefused)
{
    Payload in = msg::encode(sample_update());
    Payload extra = prte::rml::Writer().u32(1).take();
    in.insert(in.end(), extra.begin(), extra.end());
    msg::ProcUpdate out;
    Status st = msg::decode(in, out);
    EXPECT_NE(st.message().find("byte(s) left over after this last field"), std::string::npos) << st.message();
}

TEST(PlmMessages, ALaunchMessageNamesTheBadField)
{
    prte::runtime::Job job = sample_job();
    job.procs[2]->node = nullptr;  // encoded as "", which no node is called
    prte::runtime::JobPtr out;
    Status st = msg::decode_job(msg::encode_job(job), pool(), out);
    EXPECT_FALSE(st);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(st.message().rfind("launch message: field ", 0), 0u) << st.message();
    EXPECT_NE(st.message().find("rank 2 is placed on unknown node ''"), std::string::npos) << st.message();

    job = sample_job();
    job.procs[3]->app_index = 2;
    st = msg::decode_job(msg::encode_job(job), pool(), out);
    EXPECT_NE(st.message().find("rank 3 belongs to app 2 of 2"), std::string::npos) << st.message();
}

// prun --preload-*: the files travel only in the launch message of a daemon hosting the job's
// processes; the others learn the job without them. A preloaded file named outside the working
// directory is refused.
TEST(PlmMessages, ALaunchMessageCarriesPreloadedFilesOnlyWhenAsked)
{
    prte::runtime::Job job = sample_job();
    job.apps[1].preload.push_back({false, "sub/f.dat", 0600, "m", 1, 2, {'x', 'y'}});
    prte::runtime::JobPtr out;
    ASSERT_TRUE(msg::decode_job(msg::encode_job(job, true), pool(), out));
    ASSERT_EQ(out->apps[1].preload.size(), 1u);
    EXPECT_EQ(out->apps[1].preload[0].name, "sub/f.dat");
    EXPECT_EQ(out->apps[1].preload[0].content, (std::vector<uint8_t>{'x', 'y'}));
    EXPECT_EQ(out->apps[1].preload[0].mode, 0600u);
    ASSERT_TRUE(msg::decode_job(msg::encode_job(job), pool(), out));
    EXPECT_TRUE(out->apps[1].preload.empty());

    job.apps[1].preload[0].name = "../escape";
    Status st = msg::decode_job(msg::encode_job(job, true), pool(), out);
    EXPECT_FALSE(st);
    EXPECT_NE(st.message().find("'../escape'"), std::string::npos) << st.message();
}

// What a daemon needs to bind on its own node: the level, its qualifiers and the mapping object.
TEST(PlmMessages, ALaunchMessageCarriesTheBindingPolicy)
{
    prte::runtime::JobPtr out;
    ASSERT_TRUE(msg::decode_job(msg::encode_job(sample_job()), pool(), out));
    EXPECT_EQ(out->mapping.bind_to, prte::runtime::BindTo::l2cache);
    EXPECT_TRUE(out->mapping.bind_overload_allowed);
    EXPECT_FALSE(out->mapping.bind_if_supported);
    EXPECT_EQ(out->mapping.by, prte::runtime::MapBy::numa);
}

// A job spawned by a process names it, so that its children get PMIX_PARENT_ID on any node; one a
// tool spawned names nobody.
TEST(PlmMessages, ALaunchMessageNamesTheSpawningProcess)
{
    prte::runtime::JobPtr out;
    ASSERT_TRUE(msg::decode_job(msg::encode_job(sample_job()), pool(), out));
    ASSERT_TRUE(out->originator.has_value());
    EXPECT_STREQ(out->originator->nspace, "prte-job-8");
    EXPECT_EQ(out->originator->rank, 1u);

    prte::runtime::Job by_tool = sample_job();
    by_tool.originator.reset();
    ASSERT_TRUE(msg::decode_job(msg::encode_job(by_tool), pool(), out));
    EXPECT_FALSE(out->originator.has_value());
}

// A daemon's call home carries its whole hwloc topology (issue 25): the XML arrives as it was sent,
// and the master records it on the node - the counts from it, and one shared object for every
// node that sent the same text.
TEST(PlmMessages, ADaemonReportCarriesItsTopologyAsXml)
{
    std::string error;
    auto topology = prte::runtime::HwTopology::from_synthetic("pack:2 core:4 pu:2", error);
    ASSERT_TRUE(topology) << error;
    msg::DaemonReport sent{3, "node03", "tcp://127.0.0.1:4003", {1, 1, 1, 1}, topology->xml()};
    ASSERT_FALSE(sent.topology_xml.empty());
    msg::DaemonReport got;
    ASSERT_TRUE(msg::decode(msg::encode(sent), got));
    EXPECT_EQ(got.topology_xml, sent.topology_xml);

    prte::runtime::HwTopologyCache cache;
    prte::runtime::Node first;
    first.name = "node03";
    ASSERT_TRUE(prte::plm::base::record_topology(first, got, cache));
    ASSERT_TRUE(first.hw);
    // The counts are the topology's, not the ones the report carried beside it.
    EXPECT_EQ(first.topology.packages, 2);
    EXPECT_EQ(first.topology.cores, 8);
    EXPECT_EQ(first.topology.hwthreads, 16);
    EXPECT_EQ(first.hw->objects(prte::runtime::HwLevel::core).size(), 8u);

    msg::DaemonReport twin = got;
    twin.rank = 4;
    twin.node_name = "node04";
    prte::runtime::Node second;
    second.name = "node04";
    ASSERT_TRUE(prte::plm::base::record_topology(second, twin, cache));
    EXPECT_EQ(first.hw, second.hw) << "nodes that sent the same topology share one object";
    EXPECT_EQ(cache.size(), 1u);
}

// What a daemon sends leaves out its host's name, so that identical nodes send identical text and
// the master keeps one topology for all of them; the rest is hwloc's XML as it was.
TEST(PlmMessages, TheTopologySentLeavesOutTheHostName)
{
    std::string error;
    auto topology = prte::runtime::HwTopology::from_synthetic("pack:2 core:4 pu:2", error);
    ASSERT_TRUE(topology) << error;
    std::string xml = topology->xml();
    size_t root_end = xml.find('>', xml.find("<object type=\"Machine\""));
    ASSERT_NE(root_end, std::string::npos) << xml;
    auto on_host = [&](const std::string& host) {
        return xml.substr(0, root_end + 1) + "\n    <info name=\"HostName\" value=\"" + host + "\"/>" +
               xml.substr(root_end + 1);
    };
    std::string a = msg::topology_xml_to_send(on_host("node17"));
    std::string b = msg::topology_xml_to_send(on_host("n&quot;2"));
    EXPECT_EQ(a, b) << "identical nodes send identical text";
    EXPECT_EQ(a, xml) << "nothing but the host's name is taken out";
    EXPECT_EQ(msg::topology_xml_to_send(xml), xml) << "a topology without a host name is sent as it is";

    prte::runtime::HwTopologyCache cache;
    prte::runtime::Node n17, n2;
    n17.name = "node17";
    n2.name = "n2";
    ASSERT_TRUE(prte::plm::base::record_topology(n17, {17, "node17", "u", {}, a}, cache));
    ASSERT_TRUE(prte::plm::base::record_topology(n2, {2, "n2", "u", {}, b}, cache));
    EXPECT_EQ(n17.hw, n2.hw);
    EXPECT_EQ(n17.topology.cores, 8);
}

// This machine's own export names its host (hwloc's Linux backend does), and what is sent does not.
TEST(PlmMessages, ThisMachinesTopologyIsSentWithoutItsHostName)
{
    auto local = prte::runtime::HwTopology::local();
    ASSERT_TRUE(local);
    std::string xml = local->xml();
    if (xml.find("name=\"HostName\"") == std::string::npos) GTEST_SKIP() << "hwloc names no host here";
    std::string sent = msg::topology_xml_to_send(xml);
    EXPECT_EQ(sent.find("name=\"HostName\""), std::string::npos);
    std::string error;
    auto again = prte::runtime::HwTopology::from_xml(sent, "the sent topology", error);
    ASSERT_TRUE(again) << error;
    EXPECT_EQ(again->counts().hwthreads, local->counts().hwthreads);
}

// A topology hwloc cannot read refuses the daemon, naming it and its node on one line; the node
// keeps what it had.
TEST(PlmMessages, ATopologyHwlocCannotReadNamesTheDaemonAndItsNode)
{
    std::string error;
    auto topology = prte::runtime::HwTopology::from_synthetic("pack:1 core:2 pu:1", error);
    ASSERT_TRUE(topology) << error;
    std::string xml = topology->xml();
    // Cut short, not XML, and XML of a machine without a processing unit.
    const std::string empty_machine = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"></topology>\n";
    for (const std::string& corrupt : {xml.substr(0, xml.size() / 2), std::string("not a topology"), empty_machine}) {
        msg::DaemonReport report{5, "node05", "tcp://127.0.0.1:4005", {1, 1, 2, 2}, corrupt};
        msg::DaemonReport got;
        ASSERT_TRUE(msg::decode(msg::encode(report), got)) << "the message is sound; its topology is not";
        prte::runtime::HwTopologyCache cache;
        prte::runtime::Node node;
        node.name = "node05";
        node.topology = {9, 9, 9, 9};
        prte::Status st = prte::plm::base::record_topology(node, got, cache);
        ASSERT_FALSE(st) << "accepted: " << corrupt.substr(0, 80);
        EXPECT_EQ(st.message().rfind("daemon 5 on node node05 is refused: ", 0), 0u) << st.message();
        EXPECT_EQ(st.message().find('\n'), std::string::npos) << st.message();
        EXPECT_FALSE(node.hw);
        EXPECT_EQ(node.topology.cores, 9) << "the node keeps what it had";
        EXPECT_EQ(cache.size(), 0u);
    }
}

// A daemon whose hwloc could not read its node sends no XML: the node keeps the counts, no topology.
TEST(PlmMessages, AReportWithoutTopologyKeepsItsCounts)
{
    msg::DaemonReport report{6, "node06", "u", {1, 2, 3, 4}, ""};
    prte::runtime::HwTopologyCache cache;
    prte::runtime::Node node;
    node.name = "node06";
    ASSERT_TRUE(prte::plm::base::record_topology(node, report, cache));
    EXPECT_FALSE(node.hw);
    EXPECT_EQ(node.topology.numa_domains, 2);
    EXPECT_EQ(node.topology.hwthreads, 4);
}

// The XML field cut short is refused by the decoder like any other field, naming it.
TEST(PlmMessages, ATruncatedTopologyFieldIsRefused)
{
    msg::DaemonReport report{7, "node07", "u", {1, 1, 1, 1}, std::string(300, 'x')};
    Payload in = msg::encode(report);
    in.resize(in.size() - 100);
    msg::DaemonReport out;
    prte::Status st = msg::decode(in, out);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.message().rfind("daemon report: field 8 (string)", 0), 0u) << st.message();
}

// ---- A daemon's stack traces of a timed-out job's processes (prun --get-stack-traces).
msg::StackTraces sample_stack_traces()
{
    return {"prte-job-4", 2, {"node02", "", {{0, 4242, "Thread 1 (LWP 4242):\n#0  hang_in_recognisable_frame ()"},
                                               {3, 4250, "gdb printed no stack"}}}};
}

TEST(PlmMessages, StackTracesRoundTrip)
{
    msg::StackTraces got;
    ASSERT_TRUE(msg::decode(msg::encode(sample_stack_traces()), got).ok());
    EXPECT_EQ(got.nspace, "prte-job-4");
    EXPECT_EQ(got.daemon, 2u);
    EXPECT_EQ(got.node.node, "node02");
    ASSERT_EQ(got.node.traces.size(), 2u);
    EXPECT_EQ(got.node.traces[0].pid, 4242);
    EXPECT_NE(got.node.traces[0].text.find("hang_in_recognisable_frame"), std::string::npos);
    EXPECT_EQ(got.node.traces[1].rank, 3u);

    // A node without a debugger: its note, and no trace.
    msg::StackTraces none{"prte-job-4", 1, {"node01", "no stack traces on node node01: the debugger 'gdb' was not found", {}}};
    ASSERT_TRUE(msg::decode(msg::encode(none), got).ok());
    EXPECT_EQ(got.node.note, none.node.note);
    EXPECT_TRUE(got.node.traces.empty());
}

TEST(PlmMessages, StackTracesWithoutAPidOrNodeAreRefused)
{
    msg::StackTraces bad = sample_stack_traces();
    bad.node.traces[1].pid = 0;
    msg::StackTraces got;
    Status st = msg::decode(msg::encode(bad), got);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("rank 3 has pid 0"), std::string::npos) << st.message();

    bad = sample_stack_traces();
    bad.node.node.clear();
    st = msg::decode(msg::encode(bad), got);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("stack traces"), std::string::npos) << st.message();
}

TEST(PlmMessages, StackTracesCommandDecodes)
{
    msg::DaemonCommand got;
    ASSERT_TRUE(msg::decode(msg::encode(msg::DaemonCommand{msg::Command::stack_traces, "prte-job-4", 0, {}}), got).ok());
    EXPECT_EQ(got.command, msg::Command::stack_traces);
    EXPECT_EQ(got.nspace, "prte-job-4");
}

TEST(PlmMessages, RestartCommandCarriesRanks)
{
    msg::DaemonCommand got;
    ASSERT_TRUE(msg::decode(msg::encode(msg::DaemonCommand{msg::Command::restart_procs, "prte-job-5", 0, {2, 7}}), got).ok());
    EXPECT_EQ(got.command, msg::Command::restart_procs);
    EXPECT_EQ(got.targets, (std::vector<Rank>{2, 7}));
    Status st = msg::decode(msg::encode(msg::DaemonCommand{msg::Command::restart_procs, "j", 0, {PMIX_RANK_WILDCARD}}), got);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("not a process's rank"), std::string::npos) << st.message();
}

// ---- Golden encodings: the bytes of each message, per wire protocol version (wire_golden.h).
using wire_golden::differ;
using wire_golden::first_of;
using wire_golden::GoldenMessage;

// The launch message with every field it carries set to something other than its default.
prte::runtime::Job golden_job()
{
    prte::runtime::Job job = sample_job();
    job.mapping.bind_if_supported = true;
    job.mapping.by = prte::runtime::MapBy::ppr;
    job.mapping.ppr_object = prte::runtime::MapBy::package;
    job.stdin_target.kind = prte::runtime::StdinTarget::Kind::rank;
    job.stdin_target.rank = 2;
    job.reports.bindings = true;
    job.mpi = prte::runtime::MpiInterface::pmi2;
    for (auto& p : job.procs) {
        p->cpuset = std::to_string(2 * p->rank) + "-" + std::to_string(2 * p->rank + 1);
        p->binding = "core " + std::to_string(p->rank);
    }
    // Wire protocol 10: what a daemon hosting the job's processes writes before it forks them.
    job.apps[0].preload.push_back({true, "echo", 0755, "host7 3c1a2b4e", 2049, 131, {'#', '!', '/'}});
    job.apps[0].preload.push_back({false, "in/data.txt", 0640, "host7 3c1a2b4e", 2049, 132, {'4', '2', '\n'}});
    return job;
}

std::string preload_differs(const prte::runtime::AppContext& g, const prte::runtime::AppContext& w)
{
    std::string d = differ("app preload", g.preload.size(), w.preload.size());
    for (size_t i = 0; d.empty() && i < w.preload.size(); ++i) {
        const auto &a = g.preload[i], &b = w.preload[i];
        d = first_of({differ("preload binary", a.binary, b.binary), differ("preload name", a.name, b.name),
                      differ("preload mode", a.mode, b.mode), differ("preload machine", a.machine, b.machine),
                      differ("preload device", a.device, b.device), differ("preload inode", a.inode, b.inode),
                      differ("preload content", a.content, b.content)});
    }
    return d;
}

template <typename Message, typename Compare>
GoldenMessage golden(std::string name, const Message& example, Compare compare)
{
    return wire_golden::golden_by_lookup(std::move(name), example, compare);
}

std::vector<GoldenMessage> golden_messages()
{
    std::vector<GoldenMessage> out;
    out.push_back(golden("daemon report",
                         msg::DaemonReport{7, "node07", "tcp://127.0.0.1:4007", {1, 2, 4, 8}, "<topology version=\"2.0\"/>\n",
                                           "host7 3c1a2b4e-5d6f-4a70-8b91-a2b3c4d5e6f7"},
                         [](const msg::DaemonReport& g, const msg::DaemonReport& w) {
                             return first_of({differ("rank", g.rank, w.rank), differ("node_name", g.node_name, w.node_name),
                                              differ("uri", g.uri, w.uri),
                                              differ("packages", g.topology.packages, w.topology.packages),
                                              differ("numa_domains", g.topology.numa_domains, w.topology.numa_domains),
                                              differ("cores", g.topology.cores, w.topology.cores),
                                              differ("hwthreads", g.topology.hwthreads, w.topology.hwthreads),
                                              differ("topology_xml", g.topology_xml, w.topology_xml),
                                              differ("machine", g.machine, w.machine)});
                         }));
    out.push_back(golden("wireup", sample_wireup(), [](const msg::Wireup& g, const msg::Wireup& w) {
        std::string d = first_of({differ("size", g.size, w.size), differ("departed", g.departed, w.departed),
                                  differ("daemons", g.daemons.size(), w.daemons.size())});
        for (size_t i = 0; d.empty() && i < w.daemons.size(); ++i) {
            const auto &a = g.daemons[i], &b = w.daemons[i];
            d = first_of({differ("daemon rank", a.rank, b.rank), differ("daemon node_name", a.node_name, b.node_name),
                          differ("daemon uri", a.uri, b.uri), differ("daemon slots", a.slots, b.slots),
                          differ("daemon allocated", a.allocated, b.allocated)});
        }
        return d;
    }));
    auto command = [](const msg::DaemonCommand& g, const msg::DaemonCommand& w) {
        return first_of({differ("command", static_cast<int>(g.command), static_cast<int>(w.command)),
                         differ("nspace", g.nspace, w.nspace), differ("signal", g.signal, w.signal),
                         differ("targets", g.targets, w.targets)});
    };
    out.push_back(golden("daemon command (signal)", msg::DaemonCommand{msg::Command::signal_job, "prte-job-3", 15, {}}, command));
    out.push_back(golden("daemon command (shrink)", msg::DaemonCommand{msg::Command::shrink, "", 0, {4, 5, 9}}, command));
    out.push_back(golden("process update", sample_update(), [](const msg::ProcUpdate& g, const msg::ProcUpdate& w) {
        return first_of({differ("nspace", g.nspace, w.nspace), differ("rank", g.rank, w.rank),
                         differ("state", static_cast<int>(g.state), static_cast<int>(w.state)), differ("pid", g.pid, w.pid),
                         differ("exit_code", g.exit_code, w.exit_code), differ("term_signal", g.term_signal, w.term_signal),
                         differ("message", g.message, w.message)});
    }));
    out.push_back(golden("output", msg::Output{"prte-job-1", 2, PMIX_FWD_STDERR_CHANNEL, {'h', 'i', '\n'}},
                         [](const msg::Output& g, const msg::Output& w) {
                             return first_of({differ("nspace", g.nspace, w.nspace), differ("rank", g.rank, w.rank),
                                              differ("channel", static_cast<int>(g.channel), static_cast<int>(w.channel)),
                                              differ("data", g.data, w.data)});
                         }));
    out.push_back(golden("daemon silence", msg::Silence{3, 4012}, [](const msg::Silence& g, const msg::Silence& w) {
        return first_of({differ("rank", g.rank, w.rank), differ("silent_ms", g.silent_ms, w.silent_ms)});
    }));
    out.push_back(
        golden("daemon command (stack traces)", msg::DaemonCommand{msg::Command::stack_traces, "prte-job-4", 0, {}}, command));
    out.push_back(
        golden("daemon command (restart)", msg::DaemonCommand{msg::Command::restart_procs, "prte-job-5", 0, {2, 7}}, command));
    out.push_back(golden("stack traces", sample_stack_traces(), [](const msg::StackTraces& g, const msg::StackTraces& w) {
        std::string d = first_of({differ("nspace", g.nspace, w.nspace), differ("daemon", g.daemon, w.daemon),
                                  differ("node", g.node.node, w.node.node), differ("note", g.node.note, w.node.note),
                                  differ("traces", g.node.traces.size(), w.node.traces.size())});
        for (size_t i = 0; d.empty() && i < w.node.traces.size(); ++i) {
            const auto &a = g.node.traces[i], &b = w.node.traces[i];
            d = first_of({differ("trace rank", a.rank, b.rank), differ("trace pid", a.pid, b.pid),
                          differ("trace text", a.text, b.text)});
        }
        return d;
    }));
    std::vector<Rank> ranks{3, 1, 4};
    out.push_back({"daemon list", msg::encode_ranks(ranks), [ranks](const Payload& in) {
                       std::vector<Rank> got;
                       Status st = msg::decode_ranks(in, got);
                       if (!st) return "does not decode: " + st.message();
                       return differ("ranks", got, ranks);
                   }});
    out.push_back({"launch message", msg::encode_job(golden_job(), true), [](const Payload& in) {
                       prte::runtime::JobPtr got;
                       Status st = msg::decode_job(in, pool(), got);
                       if (!st) return "does not decode: " + st.message();
                       const prte::runtime::Job want = golden_job();
                       const prte::runtime::Job& g = *got;
                       std::string d = first_of(
                           {differ("nspace", g.nspace, want.nspace), differ("apps", g.apps.size(), want.apps.size()),
                            differ("bind_to", static_cast<int>(g.mapping.bind_to), static_cast<int>(want.mapping.bind_to)),
                            differ("bind_overload_allowed", g.mapping.bind_overload_allowed, want.mapping.bind_overload_allowed),
                            differ("bind_if_supported", g.mapping.bind_if_supported, want.mapping.bind_if_supported),
                            differ("map by", static_cast<int>(g.mapping.by), static_cast<int>(want.mapping.by)),
                            differ("ppr_object", static_cast<int>(g.mapping.ppr_object), static_cast<int>(want.mapping.ppr_object)),
                            differ("stdin kind", static_cast<int>(g.stdin_target.kind), static_cast<int>(want.stdin_target.kind)),
                            differ("stdin rank", g.stdin_target.rank, want.stdin_target.rank),
                            differ("report bindings", g.reports.bindings, want.reports.bindings),
                            differ("mpi", static_cast<int>(g.mpi), static_cast<int>(want.mpi)),
                            differ("originator", g.originator.has_value(), want.originator.has_value()),
                            differ("procs", g.procs.size(), want.procs.size())});
                       if (d.empty() && g.originator) {
                           d = first_of({differ("originator nspace", std::string(g.originator->nspace),
                                                std::string(want.originator->nspace)),
                                         differ("originator rank", g.originator->rank, want.originator->rank)});
                       }
                       for (size_t i = 0; d.empty() && i < want.apps.size(); ++i) {
                           const auto &a = g.apps[i], &b = want.apps[i];
                           d = first_of({differ("app index", a.index, b.index), differ("app executable", a.executable, b.executable),
                                         differ("app argv", a.argv, b.argv), differ("app env", a.env, b.env),
                                         differ("app working_dir", a.working_dir, b.working_dir),
                                         differ("app num_procs", a.num_procs, b.num_procs), preload_differs(a, b)});
                       }
                       for (size_t i = 0; d.empty() && i < want.procs.size(); ++i) {
                           const auto &a = *g.procs[i], &b = *want.procs[i];
                           d = first_of({differ("proc rank", a.rank, b.rank), differ("proc app_index", a.app_index, b.app_index),
                                         differ("proc node", a.node ? a.node->name : std::string(), b.node ? b.node->name : std::string()),
                                         differ("proc local_rank", a.local_rank, b.local_rank),
                                         differ("proc node_rank", a.node_rank, b.node_rank),
                                         differ("proc cpuset", a.cpuset, b.cpuset), differ("proc binding", a.binding, b.binding)});
                       }
                       return d;
                   }});
    return out;
}

TEST(PlmMessagesGolden, EveryMessageEncodesAsRecordedForThisProtocolVersion)
{
    wire_golden::expect_encodings_recorded("", golden_messages());
}

TEST(PlmMessagesGolden, TheRecordedBytesDecodeToTheExample) { wire_golden::expect_recorded_bytes_decode(golden_messages()); }

// One mutation of a valid frame, chosen by the generator.
Payload mutate(const Payload& in, const std::vector<Payload>& others, std::mt19937& rng)
{
    Payload out = in;
    auto pick = [&](size_t n) { return n == 0 ? size_t(0) : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    auto byte = [&] { return static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng)); };
    static const uint8_t kEdges[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff};
    int rounds = 1 + static_cast<int>(pick(3));
    for (int i = 0; i < rounds; ++i) {
        switch (pick(8)) {
        case 0:  // flip a bit
            if (!out.empty()) out[pick(out.size())] ^= static_cast<uint8_t>(1u << pick(8));
            break;
        case 1:  // a byte set to a value at an edge of the varint encoding
            if (!out.empty()) out[pick(out.size())] = kEdges[pick(sizeof(kEdges))];
            break;
        case 2:  // cut short
            out.resize(pick(out.size() + 1));
            break;
        case 3: {  // bytes inserted
            size_t at = pick(out.size() + 1);
            size_t n = 1 + pick(8);
            for (size_t k = 0; k < n; ++k) out.insert(out.begin() + static_cast<long>(at), byte());
            break;
        }
        case 4:  // a range deleted
            if (!out.empty()) {
                size_t at = pick(out.size());
                size_t n = 1 + pick(std::min<size_t>(8, out.size() - at));
                out.erase(out.begin() + static_cast<long>(at), out.begin() + static_cast<long>(at + n));
            }
            break;
        case 5:  // a slice repeated
            if (!out.empty()) {
                size_t at = pick(out.size());
                size_t n = 1 + pick(std::min<size_t>(16, out.size() - at));
                Payload slice(out.begin() + static_cast<long>(at), out.begin() + static_cast<long>(at + n));
                out.insert(out.begin() + static_cast<long>(at), slice.begin(), slice.end());
            }
            break;
        case 6: {  // the tail of another message spliced on
            const Payload& other = others[pick(others.size())];
            out.resize(pick(out.size() + 1));
            size_t from = pick(other.size() + 1);
            out.insert(out.end(), other.begin() + static_cast<long>(from), other.end());
            break;
        }
        default:  // a stretch of random bytes written over
            for (size_t k = 0, at = pick(out.size() + 1); k < 4 && at + k < out.size(); ++k) out[at + k] = byte();
            break;
        }
    }
    return out;
}

// Iterations per decoder: enough to reach every field's error paths in well under a second each;
// PRTE_FUZZ_ITERATIONS runs longer (or shorter under valgrind).
int iterations()
{
    const char* env = std::getenv("PRTE_FUZZ_ITERATIONS");
    return env ? std::atoi(env) : 30000;
}

TEST(PlmMessagesFuzz, RandomAndMutatedFramesAreRefusedCleanlyOrRoundTrip)
{
    std::vector<Decoder> decoders = all_decoders();
    std::vector<Payload> every_sample;
    for (const Decoder& d : decoders) every_sample.insert(every_sample.end(), d.samples.begin(), d.samples.end());
    for (const Decoder& d : decoders) {
        std::mt19937 rng(20261125u + static_cast<uint32_t>(d.name.size()));
        size_t accepted = 0, refused = 0;
        int64_t before = heap_in_use();
        bool sound = true;  // stop this decoder at its first failure, go on with the next
        for (int i = 0; i < iterations() && sound; ++i) {
            Payload in;
            if (i % 4 == 0) {  // bytes from nowhere
                in.resize(std::uniform_int_distribution<size_t>(0, 64)(rng));
                for (auto& b : in) b = static_cast<uint8_t>(rng());
            } else {
                in = mutate(d.samples[static_cast<size_t>(i) % d.samples.size()], every_sample, rng);
            }
            Payload again;
            Status st = d.decode(in, again);
            if (!st) {
                ++refused;
                sound = clean_error(d, st, in);
                continue;
            }
            // Accepted: what was decoded is a message of its own, which must survive another trip.
            ++accepted;
            Payload third;
            Status st2 = d.decode(again, third);
            EXPECT_TRUE(st2) << d.name << ": a re-encoded message no longer decodes: " << st2.message();
            EXPECT_EQ(third, again) << d.name << ": decoding is not stable";
            sound = st2 && third == again;
        }
        EXPECT_GT(refused, 0u) << d.name;
        EXPECT_LT(heap_in_use() - before, 256 << 10) << d.name << ": decoding kept memory";
        std::printf("%s: %zu refused, %zu accepted\n", d.name.c_str(), refused, accepted);
    }
}

}  // namespace
