// Placement, table-driven: each case is a prun command line on a machine of simulated nodes (hwloc
// synthetic topologies) and the node and CPUs (OS ids, as Cpus_allowed_list shows them) of every
// rank, or the error it must give. The map goes through the real framework: the build tree's ppr,
// seq, rank_file and round_robin components and the base's placement inside nodes.
//
// Cases marked "PRRTE docs" take their expected outcome from PRRTE's own documentation
// (docs/placement/{examples,fundamentals,rankfiles,overview}.rst in openpmix/prrte), an oracle
// outside our reading; the others follow the rules in docs/user-guide.md ("Placement").
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mca/base/param.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "rmaps_test_util.h"
#include "runtime/placement_spec.h"
#include "runtime/runtime.h"
#include "temp_dir.h"
#include "util/strings.h"

namespace prte::rmaps {
namespace {

using runtime::Job;
using runtime::Node;
using runtime::NodePool;

// The hardware of the simulated nodes (hwloc synthetic descriptions; PU OS ids follow logical order).
const std::map<std::string, std::string> kHardware = {
    {"dual", "pack:2 core:2 pu:1"},              // PRRTE docs' "two packages, each with two cores"
    {"wide", "pack:2 core:10 pu:1"},             // rankfiles.rst's nodes with cores 10-12
    {"smt", "pack:2 l3:1 core:4 pu:2"},          // 8 cores, 16 hwthreads, an L3 per package
    {"epyc", "pack:2 numa:2 l3:2 core:4 pu:2"},  // 4 NUMA domains, 8 L3s, 32 cores, 64 hwthreads
    {"quad", "pack:1 core:4 pu:1"},
    {"small", "pack:2 core:2 pu:2"},
    {"one", "core:1 pu:1"},                      // a 1-core node without a package
};

// "aa=4@dual,bb@dual": nodes, with a slot count (else from their cores) and "/N" for max_slots.
void build_pool(const std::string& spec, NodePool& pool)
{
    for (const std::string& entry : util::split(spec, ',')) {
        size_t at = entry.find('@');
        std::string head = entry.substr(0, at);
        std::string name = head.substr(0, head.find('='));
        Node n = test::make_node(name, 1, false);
        if (head.find('=') != std::string::npos) {
            std::string slots = head.substr(head.find('=') + 1);
            size_t slash = slots.find('/');
            n.slots = std::stoi(slots.substr(0, slash));
            n.slots_given = true;
            if (slash != std::string::npos) n.slots_max = std::stoi(slots.substr(slash + 1));
        }
        Node& added = pool.add(n);
        test::set_hardware(added, kHardware.at(entry.substr(at + 1)));
        if (!added.slots_given) added.slots = added.topology.cores;
    }
}

struct Case {
    const char* source;  // "PRRTE docs ..." or "rules"
    const char* nodes;   // build_pool's spec
    const char* args;    // prun's placement options and -n; apps separated by " : "
    const char* expect;  // "node:cpus" per rank ("node:-" unbound, "node" any CPUs), or "error: <text>"
    const char* file = "";  // --hostfile-lines / rankfile contents ('\n' between lines)
};

const Case kCases[] = {
    // --- PRRTE docs, examples.rst: "Mapping Processes to Nodes Using Policies" and neighbours ---
    {"PRRTE docs examples.rst: prun --np 6", "aa=4@dual,bb=4@dual,cc=4@dual", "-n 6", "aa aa aa aa bb bb"},
    {"PRRTE docs examples.rst: prun --np 6 --map-by node", "aa=4@dual,bb=4@dual,cc=4@dual", "-n 6 --map-by node",
     "aa bb cc aa bb cc"},
    {"PRRTE docs examples.rst: --map-by node:NOLOCAL", "aa=4@dual,bb=4@dual,cc=4@dual", "-n 6 --map-by node:NOLOCAL",
     "bb cc bb cc bb cc"},
    {"PRRTE docs examples.rst: --np 14 errors without OVERSUBSCRIBE", "aa=4@dual,bb=4@dual,cc=4@dual", "-n 14",
     "error: not enough slots"},
    {"PRRTE docs examples.rst: max_slots protects aa and bb, two forced onto cc", "aa=4/4@dual,bb=8/8@dual,cc=4@dual",
     "-n 14 --map-by :OVERSUBSCRIBE", "aa aa aa aa bb bb bb bb bb bb bb bb cc cc"},
    {"PRRTE docs examples.rst: --host aa,bb --np 8 errors", "aa=1@dual,bb=1@dual", "-n 8", "error: not enough slots"},
    {"PRRTE docs examples.rst: --host aa,bb --np 8 :OVERSUBSCRIBE, evenly", "aa=1@dual,bb=1@dual",
     "-n 8 --map-by :OVERSUBSCRIBE", "aa aa aa aa bb bb bb bb"},
    {"PRRTE docs examples.rst: --host aa:2,bb:6 --np 8", "aa=2@dual,bb=6@dual", "-n 8", "aa aa bb bb bb bb bb bb"},
    {"PRRTE docs examples.rst: MIMD", "aa=1@dual,bb=1@dual,cc=1@dual", "-n 1 --host aa : -n 2 --host bb,cc",
     "aa bb cc"},
    {"PRRTE docs examples.rst: hostfile of 2 slots each, no -n", "aa=2@dual,bb=2@dual,cc=2@dual", "",
     "aa aa bb bb cc cc"},
    {"PRRTE docs examples.rst: --hostfile with --host aa", "aa=2@dual,bb=2@dual,cc=2@dual", "--host aa", "aa aa"},
    {"PRRTE docs examples.rst: --host dd not in the allocation", "aa=2@dual,bb=2@dual,cc=2@dual", "--host dd",
     "error: asks for host(s) not in the DVM: dd"},
    {"PRRTE docs examples.rst: ppr:2:package, bound to package", "aa@dual,bb@dual", "--map-by ppr:2:package",
     "aa:0-1 aa:0-1 aa:2-3 aa:2-3 bb:0-1 bb:0-1 bb:2-3 bb:2-3"},
    {"PRRTE docs examples.rst: ppr:2:node", "aa@dual,bb@dual", "--map-by ppr:2:node", "aa aa bb bb"},
    {"PRRTE docs examples.rst: ppr:1:node", "aa@dual,bb@dual", "--map-by ppr:1:node", "aa bb"},
    // --- PRRTE docs, fundamentals.rst: the --rank-by table (2 packages x 2 cores per node) ---
    {"PRRTE docs fundamentals.rst: --rank-by core", "aa@dual,bb@dual", "--map-by ppr:2:package --rank-by core",
     "aa:0-1 aa:0-1 aa:2-3 aa:2-3 bb:0-1 bb:0-1 bb:2-3 bb:2-3"},
    {"PRRTE docs fundamentals.rst: --rank-by package", "aa@dual,bb@dual", "--map-by ppr:2:package --rank-by package",
     "aa:0-1 aa:2-3 aa:0-1 aa:2-3 bb:0-1 bb:2-3 bb:0-1 bb:2-3"},
    {"PRRTE docs fundamentals.rst: --rank-by package:SPAN", "aa@dual,bb@dual",
     "--map-by ppr:2:package --rank-by package:SPAN", "aa:0-1 aa:2-3 bb:0-1 bb:2-3 aa:0-1 aa:2-3 bb:0-1 bb:2-3"},
    {"PRRTE docs fundamentals.rst: --map-by seq, one per line", "aa=4@dual,bb=4@dual,cc=4@dual",
     "--map-by seq --hostfile-lines", "aa bb cc", "aa\nbb\ncc"},
    // --- PRRTE docs, rankfiles.rst ---
    {"PRRTE docs rankfiles.rst: logical cores", "aa@wide,bb@wide,cc@wide,dd@wide", "--map-by rankfile",
     "aa:10-12 bb:0-1,4 cc:1-2", "rank 0=aa slot=10-12\nrank 1=bb slot=0,1,4\nrank 2=cc slot=1-2"},
    {"PRRTE docs rankfiles.rst: package:cores", "aa@wide,bb@wide,cc@wide,dd@wide", "--map-by rankfile",
     "aa:10-12 bb:0-1,4 cc:1-2", "rank 0=aa slot=1:0-2\nrank 1=bb slot=0:0,1,4\nrank 2=cc slot=1-2"},
    {"PRRTE docs rankfiles.rst: relative hosts +nX", "aa@wide,bb@wide,cc@wide,dd@wide", "--map-by rankfile",
     "aa:10-12 bb:0-1,4 cc:1-2", "rank 0=+n0 slot=10-12\nrank 1=+n1 slot=0,1,4\nrank 2=+n2 slot=1-2"},
    // --- PRRTE docs, overview.rst ---
    {"PRRTE docs overview.rst: by default round-robin by CPU, each bound to its own", "aa@dual", "-n 4",
     "aa:0 aa:1 aa:2 aa:3"},
    {"PRRTE docs overview.rst: --use-hwthread-cpus runs one per hwthread", "s0@smt", "--map-by :HWTCPUS",
     "s0:0 s0:1 s0:2 s0:3 s0:4 s0:5 s0:6 s0:7 s0:8 s0:9 s0:10 s0:11 s0:12 s0:13 s0:14 s0:15"},
    {"PRRTE docs overview.rst: --host node1 runs one per core", "aa@dual,bb@dual", "--host aa",
     "aa:0 aa:1 aa:2 aa:3"},

    // --- SMT nodes: 2 packages x 4 cores x 2 hwthreads ---
    {"rules", "s0@smt,s1@smt", "-n 2", "s0:0-1 s0:2-3"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by hwthread", "s0:0 s0:1"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by package", "s0:0-7 s0:8-15"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by package --bind-to core", "s0:0-1 s0:8-9"},
    {"rules", "s0@smt,s1@smt", "-n 4 --map-by package --bind-to core", "s0:0-1 s0:8-9 s0:2-3 s0:10-11"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by l3cache", "s0:0-7 s0:8-15"},
    {"rules", "s0@smt,s1@smt", "-n 1 --map-by l2cache", "error: hwloc finds no l2cache there"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by slot:PE=2", "s0:0-3 s0:4-7"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by slot:PE=2:HWTCPUS", "s0:0-1 s0:2-3"},
    {"rules", "s0@smt,s1@smt", "-n 4 --map-by package:PE=2", "s0:0-3 s0:8-11 s0:4-7 s0:12-15"},
    {"rules", "s0@smt,s1@smt", "-n 3 --map-by ppr:1:package", "s0:0-7 s0:8-15 s1:0-7"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by node", "s0:0-1 s1:0-1"},
    {"rules", "s0@smt,s1@smt", "-n 4 --map-by node", "s0:0-15 s1:0-15 s0:0-15 s1:0-15"},
    {"rules", "s0@smt,s1@smt", "-n 17", "error: not enough slots"},
    {"rules", "s0@smt,s1@smt", "-n 10", "s0:0-1 s0:2-3 s0:4-5 s0:6-7 s0:8-9 s0:10-11 s0:12-13 s0:14-15 s1:0-1 s1:2-3"},
    {"rules", "s0@smt,s1@smt", "-n 20 --map-by :OVERSUBSCRIBE",
     "s0:- s0:- s0:- s0:- s0:- s0:- s0:- s0:- s0:- s0:- s1:- s1:- s1:- s1:- s1:- s1:- s1:- s1:- s1:- s1:-"},
    {"rules", "s0@smt,s1@smt", "-n 20 --map-by :OVERSUBSCRIBE --bind-to core",
     "error: cannot bind 2 processes to core 0 on node s0: it has 1 core(s)"},
    {"rules", "s0@smt", "-n 10 --map-by :OVERSUBSCRIBE --bind-to core:overload-allowed",
     "s0:0-1 s0:2-3 s0:4-5 s0:6-7 s0:8-9 s0:10-11 s0:12-13 s0:14-15 s0:0-1 s0:2-3"},
    {"rules", "s0@smt,s1@smt", "-n 2 --bind-to numa", "s0:0-15 s0:0-15"},
    {"rules", "s0@smt,s1@smt", "-n 4 --rank-by node", "s0:0-1 s0:2-3 s0:4-5 s0:6-7"},
    {"rules", "s0@smt,s1@smt", "-n 4 --map-by package --rank-by fill", "s0:0-7 s0:0-7 s0:8-15 s0:8-15"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by pe-list=3,5", "s0:6-7,10-11 s0:6-7,10-11"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by pe-list=3,5:ORDERED", "s0:6-7 s0:10-11"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by pe-list=9", "error: pe-list names core 9, but node s0 has 8 core(s)"},
    {"rules", "s0@smt,s1@smt", "-n 1 --bind-to l1cache", "error: cannot bind to l1cache on node s0: hwloc finds no l1cache"},
    {"rules", "s0@smt,s1@smt", "-n 1 --bind-to l1cache:if-supported", "s0:-"},
    {"rules", "s0@smt,s1@smt", "-n 2 --map-by core:SPAN", "s0:0-1 s1:0-1"},
    {"rules", "s0@smt,s1@smt", "-n 1 --map-by slot:SPAN", "error: SPAN applies to mapping by an object"},
    {"rules", "s0@smt,s1@smt", "-n 1 --map-by core:PE=2 --bind-to package", "error: PE=2 binds each process to 2 core(s)"},

    // --- EPYC-like nodes: 2 packages x 2 NUMA x 2 L3 x 4 cores x 2 hwthreads ---
    {"rules", "e0@epyc,e1@epyc", "-n 4 --map-by numa", "e0:0-15 e0:16-31 e0:32-47 e0:48-63"},
    {"rules", "e0@epyc,e1@epyc", "-n 4 --map-by l3cache", "e0:0-7 e0:8-15 e0:16-23 e0:24-31"},
    {"rules", "e0@epyc,e1@epyc", "-n 4 --map-by package --bind-to l3cache", "e0:0-7 e0:32-39 e0:8-15 e0:40-47"},
    {"rules", "e0@epyc,e1@epyc", "--map-by ppr:2:numa",
     "e0:0-15 e0:0-15 e0:16-31 e0:16-31 e0:32-47 e0:32-47 e0:48-63 e0:48-63 "
     "e1:0-15 e1:0-15 e1:16-31 e1:16-31 e1:32-47 e1:32-47 e1:48-63 e1:48-63"},
    {"rules", "e0@epyc,e1@epyc", "-n 8 --map-by ppr:2:numa --rank-by numa",
     "e0:0-15 e0:16-31 e0:32-47 e0:48-63 e0:0-15 e0:16-31 e0:32-47 e0:48-63"},
    {"rules", "e0@epyc,e1@epyc", "--map-by ppr:2:package --rank-by package:SPAN",
     "e0:0-31 e0:32-63 e1:0-31 e1:32-63 e0:0-31 e0:32-63 e1:0-31 e1:32-63"},
    {"rules", "e0@epyc,e1@epyc", "-n 2 --map-by package:PE=4", "e0:0-7 e0:32-39"},
    {"rules", "e0@epyc,e1@epyc", "-n 4 --map-by hwthread", "e0:0 e0:1 e0:2 e0:3"},
    {"rules", "e0@epyc,e1@epyc", "-n 4 --map-by hwthread --bind-to core",
     "error: cannot bind 2 processes to core 0 on node e0"},
    {"rules", "e0@epyc,e1@epyc", "-n 3 --map-by l3cache:SPAN", "e0:0-7 e0:8-15 e1:0-7"},
    {"rules", "e0@epyc,e1@epyc", "-n 2 --bind-to package", "e0:0-31 e0:0-31"},

    // --- a heterogeneous set: 4 cores; 2 packages x 2 cores x 2 hwthreads; 1 core, no package ---
    {"rules", "h0@quad,h1@small,h2@one", "-n 9", "h0:0 h0:1 h0:2 h0:3 h1:0-1 h1:2-3 h1:4-5 h1:6-7 h2:0"},
    {"rules", "h0@quad,h1@small,h2@one", "--map-by ppr:1:package", "error: node h2 has no packages"},
    {"rules", "h0@quad,h1@small,h2@one", "--map-by ppr:1:core", "h0:0 h0:1 h0:2 h0:3 h1:0-1 h1:2-3 h1:4-5 h1:6-7 h2:0"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 3 --map-by node", "h0:0-3 h1:0-7 h2:0"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 2 --map-by node", "h0:0 h1:0-1"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 9 --map-by :HWTCPUS", "h0:0 h0:1 h0:2 h0:3 h1:0 h1:1 h1:2 h1:3 h1:4"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 3 --map-by package", "h0:0-3 h0:0-3 h0:0-3"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 3 --map-by slot:PE=2", "h0:0-1 h0:2-3 h1:0-3"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 6 --map-by slot:PE=2", "error: PE=2: each process needs 2 free cores"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 1 --host h2 --bind-to package",
     "error: cannot bind to package on node h2: hwloc finds no package there"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 1 --host h2 --bind-to package:if-supported", "h2:-"},
    {"rules", "h0@quad,h1@small,h2@one", "-n 2 --host h2 --map-by :OVERSUBSCRIBE", "h2:- h2:-"},

    // --- a 1-core node ---
    {"rules", "o0@one", "-n 1", "o0:0"},
    {"rules", "o0@one", "-n 2", "error: not enough slots"},
    {"rules", "o0@one", "-n 1 --map-by l3cache", "error: cannot map by l3cache on node o0"},
    {"rules", "o0@one", "-n 1 --map-by hwthread:HWTCPUS", "o0:0"},
    {"rules", "o0@one", "-n 1 --map-by slot:PE=2", "error: PE=2: each process needs 2 free cores"},
    {"rules", "o0@one", "-n 1 --bind-to hwthread", "o0:0"},

    // --- MPMD: an app's own --map-by; the apps before it already hold their CPUs ---
    {"rules", "aa@dual,bb@dual", "-n 2 --map-by node : -n 2 --map-by core", "aa:0 bb:0 aa:1 aa:2"},
    {"rules", "aa@dual,bb@dual", "-n 2 --map-by node : -n 2", "aa:0-3 bb:0-3 aa:0-3 bb:0-3"},
    {"rules", "aa@dual,bb@dual", "-n 1 --host aa : --map-by ppr:1:package --host bb", "aa:0 bb:0-1 bb:2-3"},
    {"rules", "aa@dual,bb@dual", "-n 2 : -n 1 --map-by slot:PE=2", "aa:0 aa:1 aa:2-3"},
    {"rules", "aa@dual,bb@dual", "-n 2 --map-by ppr:1:package : -n 2 --map-by node --bind-to package",
     "aa:0-1 aa:2-3 aa:0-1 bb:0-1"},
    {"rules", "s0@smt", "-n 1 : -n 2 --map-by hwthread:HWTCPUS", "s0:0-1 s0:2 s0:3"},
    {"rules", "o0@one,aa@dual", "-n 1 --host aa : -n 1 --map-by l3cache --host o0", "error: cannot map by l3cache on node o0"},
    {"rules", "aa@dual", "-n 1 : -n 1 --map-by core:DONOTLAUNCH",
     "error: DONOTLAUNCH and the DISPLAY qualifiers apply to the whole job"},
    {"rules", "aa@dual", "-n 1 : -n 1 --map-by core:PE=2 --bind-to hwthread",
     "error: PE=2 binds each process to 2 core(s), which --bind-to hwthread contradicts"},
};

class PlacementTable : public ::testing::Test {
  protected:
    void SetUp() override
    {
        PRTE_REQUIRE_COMPONENT_FILES("mca_rmaps_ppr.so", "mca_rmaps_seq.so", "mca_rmaps_rank_file.so",
                                     "mca_rmaps_round_robin.so");
        test::open_rmaps(registry_, "ppr,seq,rank_file,round_robin");
        saved_node_ = runtime::Runtime::instance().identity().node_name;
        runtime::Runtime::instance().identity().node_name = "aa";  // where prun runs (NOLOCAL)
    }
    void TearDown() override
    {
        runtime::Runtime::instance().identity().node_name = saved_node_;
        base::framework().close();
    }

    // Maps the case; "node:cpus ..." in rank order, or "error: <message>".
    std::string run(const Case& c)
    {
        NodePool pool;
        build_pool(c.nodes, pool);
        Job job;
        job.nspace = "table";
        std::string file;
        if (*c.file) file = dir_.write("file", std::string(c.file) + "\n");
        std::string args = c.args;
        std::vector<std::string> apps_args;
        for (size_t at = 0; at != std::string::npos;) {
            size_t next = args.find(" : ", at);
            apps_args.push_back(args.substr(at, next == std::string::npos ? std::string::npos : next - at));
            at = next == std::string::npos ? next : next + 3;
        }
        for (const std::string& app_args : apps_args) {
            runtime::AppContext app = test::make_app(static_cast<int>(job.apps.size()), 0);
            std::istringstream words(app_args);
            std::string w;
            while (words >> w) {
                std::string value;
                if (w == "--hostfile-lines") {
                    app.hostfile = file;
                    continue;
                }
                words >> value;
                Status st;
                if (w == "-n") {
                    app.num_procs = std::stoi(value);
                } else if (w == "--host") {
                    app.hosts.push_back(value);
                } else if (w == "--map-by") {
                    if (value.rfind("rankfile", 0) == 0 || value.rfind("seq", 0) == 0) value += file.empty() ? "" : ":FILE=" + file;
                    // As prun: the first app's --map-by is the job's, a later app's its own.
                    if (job.apps.empty()) {
                        st = runtime::parse_map_by(value, job.mapping, job.reports);
                    } else {
                        app.map_by = value;
                    }
                } else if (w == "--rank-by") {
                    st = runtime::parse_rank_by(value, job.mapping);
                } else if (w == "--bind-to") {
                    st = runtime::parse_bind_to(value, job.mapping, job.reports);
                } else {
                    ADD_FAILURE() << "unknown word in the case: " << w;
                }
                if (!st) return "error: " + st.message();
            }
            job.apps.push_back(app);
        }
        if (job.mapping.by == runtime::MapBy::seq) job.mapping.file.clear();  // seq here reads the app's hostfile
        if (Status st = runtime::check_combination(job.mapping); !st) return "error: " + st.message();
        if (Status st = base::map_job(job, pool); !st) return "error: " + st.message();
        std::vector<std::string> out;
        for (const auto& proc : job.procs) {
            out.push_back(proc->node->name + ":" + (proc->cpuset.empty() ? "-" : proc->cpuset));
        }
        base::unmap_job(job);
        for (const Node* n : pool.nodes()) {
            for (uint16_t load : n->pu_load) EXPECT_EQ(load, 0) << "unmapping left CPUs counted on " << n->name;
        }
        return util::join(out, " ");
    }

  private:
    mca::ParamRegistry registry_;
    prte::test::TempDir dir_;
    std::string saved_node_;
};

// "aa:0-1" against an expected "aa:0-1", "aa" (any CPUs) or an error's text.
bool matches(const std::string& actual, const std::string& expected)
{
    if (expected.rfind("error: ", 0) == 0) return actual.find(expected.substr(7)) != std::string::npos;
    std::vector<std::string> got = util::split(actual, ' ', true), want = util::split(expected, ' ', true);
    if (got.size() != want.size()) return false;
    for (size_t i = 0; i < got.size(); ++i) {
        if (want[i].find(':') == std::string::npos ? got[i].substr(0, got[i].find(':')) != want[i] : got[i] != want[i]) {
            return false;
        }
    }
    return true;
}

TEST_F(PlacementTable, EveryCasePlacesEveryRankAsExpected)
{
    size_t from_docs = 0;
    std::map<std::string, int> topologies;
    for (const Case& c : kCases) {
        std::string actual = run(c);
        EXPECT_TRUE(matches(actual, c.expect)) << c.source << "\n  nodes:    " << c.nodes << "\n  args:     " << c.args
                                               << "\n  expected: " << c.expect << "\n  got:      " << actual;
        from_docs += std::string(c.source).rfind("PRRTE docs", 0) == 0 ? 1 : 0;
        for (const std::string& entry : util::split(c.nodes, ',')) topologies[entry.substr(entry.find('@') + 1)]++;
    }
    // What the table promises (issue 25): at least 60 cases, 15 of them from PRRTE's documentation,
    // over at least 4 topologies.
    EXPECT_GE(std::size(kCases), 60u);
    EXPECT_GE(from_docs, 15u);
    EXPECT_GE(topologies.size(), 4u);
}

// --display ...:physical: a binding names its object and CPUs by the OS's ids. On a node whose OS
// numbers cores and hwthreads out of hwloc's logical order (hyperthreads 4 apart, cores swapped in
// each package), the two reports differ; the CPU sets (OS ids) are the same.
TEST_F(PlacementTable, PhysicalReportsNameTheOsIds)
{
    for (bool physical : {false, true}) {
        NodePool pool;
        Node& node = pool.add(test::make_node("p0", 4, false));
        test::set_hardware(node, "pack:2 core:2(indexes=1,0,3,2) pu:2(indexes=0,4,1,5,2,6,3,7)");
        Job job;
        job.nspace = "physical";
        job.apps.push_back(test::make_app(0, 2));
        job.reports.physical = physical;
        ASSERT_TRUE(base::map_job(job, pool).ok());
        ASSERT_EQ(job.procs.size(), 2u);
        EXPECT_EQ(job.procs[0]->cpuset, "0,4");
        EXPECT_EQ(job.procs[0]->binding, physical ? "core P#1 (cpus 0,4)" : "core 0 (cpus 0,4)");
        EXPECT_EQ(job.procs[1]->binding, physical ? "core P#0 (cpus 1,5)" : "core 1 (cpus 1,5)");
        base::unmap_job(job);

        Job pe;
        pe.nspace = "physical-pe";
        pe.apps.push_back(test::make_app(0, 1));
        pe.mapping.pes_per_proc = 2;
        pe.reports.physical = physical;
        ASSERT_TRUE(base::map_job(pe, pool).ok());
        EXPECT_EQ(pe.procs[0]->binding, physical ? "cores P#0-1 (cpus 0-1,4-5)" : "cores 0-1 (cpus 0-1,4-5)");
        base::unmap_job(pe);

        // An MPMD app with its own --map-by is placed apart from the job, and reported alike.
        Job mpmd;
        mpmd.nspace = "physical-mpmd";
        mpmd.apps.push_back(test::make_app(0, 1));
        mpmd.apps.push_back(test::make_app(1, 1));
        mpmd.apps[1].map_by = "core";
        mpmd.reports.physical = physical;
        ASSERT_TRUE(base::map_job(mpmd, pool).ok());
        ASSERT_EQ(mpmd.procs.size(), 2u);
        EXPECT_EQ(mpmd.procs[1]->binding, physical ? "core P#0 (cpus 1,5)" : "core 1 (cpus 1,5)");
        base::unmap_job(mpmd);
    }
}


// Nodes that share one machine (the same Node::machine, as the local test-bed's daemons report)
// are not bound by default: each node's placement would hand out the one machine's core 0 again.
// A node of another machine, or one whose machine is unknown, binds as before; --bind-to binds.
TEST_F(PlacementTable, NodesSharingAMachineAreNotBoundByDefault)
{
    NodePool pool;
    for (const char* name : {"a1", "a2", "b1", "u1"}) {
        Node& node = pool.add(test::make_node(name, 2));
        test::set_hardware(node, "pack:1 core:2 pu:1");
        node.state = prte::runtime::NodeState::up;
        node.machine = name[0] == 'a' ? "host-a 1111" : name[0] == 'b' ? "host-b 2222" : "";
    }
    Job job;
    job.nspace = "shared";
    job.apps.push_back(test::make_app(0, 4));
    job.mapping.by = prte::runtime::MapBy::node;
    ASSERT_TRUE(base::map_job(job, pool).ok());
    ASSERT_EQ(job.procs.size(), 4u);
    for (const auto& proc : job.procs) {
        const std::string& node = proc->node->name;
        if (node == "a1" || node == "a2") {
            EXPECT_EQ(proc->cpuset, "") << node;
            EXPECT_EQ(proc->binding, "node " + node + " shares its machine's CPUs with node " +
                                         (node == "a1" ? "a2" : "a1") +
                                         " (same host name and boot id), so nothing is bound there by default "
                                         "(--bind-to binds anyway)");
        } else {
            // 4 processes mapped by node: PRRTE's default binds each to its NUMA domain, here both cores.
            EXPECT_EQ(proc->cpuset, "0-1") << node << ": a node alone on its machine (or of an unknown one) binds";
        }
    }
    base::unmap_job(job);

    // A sharer that is down does not count; asked for, binding is done on every node.
    pool.find("a2")->state = prte::runtime::NodeState::down;
    Job alone;
    alone.nspace = "alone";
    alone.apps.push_back(test::make_app(0, 1));
    alone.apps[0].hosts = {"a1"};
    ASSERT_TRUE(base::map_job(alone, pool).ok());
    EXPECT_EQ(alone.procs[0]->cpuset, "0");
    base::unmap_job(alone);
    pool.find("a2")->state = prte::runtime::NodeState::up;
    Job asked;
    asked.nspace = "asked";
    asked.apps.push_back(test::make_app(0, 2));
    asked.mapping.by = prte::runtime::MapBy::node;
    asked.mapping.bind_to = prte::runtime::BindTo::core;
    asked.apps[0].hosts = {"a1", "a2"};
    ASSERT_TRUE(base::map_job(asked, pool).ok());
    for (const auto& proc : asked.procs) EXPECT_EQ(proc->cpuset, "0") << proc->node->name;
    base::unmap_job(asked);
}

}  // namespace
}  // namespace prte::rmaps
