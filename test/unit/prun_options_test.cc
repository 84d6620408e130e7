// prun's command line (PRRTE spellings, stopping at the program, ':' contexts, one-line errors) and
// its output formatting (tags, timestamps, merging, whole lines, a reader that went away).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tools/prun/output_writer.h"
#include "runtime/env_edit.h"
#include "tools/prun/preload.h"
#include "tools/prun/prun_options.h"

namespace {

using prte::prun::OutputOptions;
using prte::prun::OutputWriter;
using prte::prun::Request;
using prte::prun::Stream;

// An app's environment options as words: -x's as given, the others with their option's name.
std::vector<std::string> env_words(const prte::prun::AppContext& app)
{
    using prte::prun::EnvOption;
    std::vector<std::string> out;
    for (const EnvOption& o : app.environment) {
        switch (o.kind) {
        case EnvOption::export_var: out.push_back(o.name); break;
        case EnvOption::set: out.push_back("set " + o.name + "=" + o.value); break;
        case EnvOption::unset: out.push_back("unset " + o.name); break;
        case EnvOption::prepend: out.push_back("prepend " + o.name + "[" + o.separator + "] " + o.value); break;
        case EnvOption::append: out.push_back("append " + o.name + "[" + o.separator + "] " + o.value); break;
        case EnvOption::forward_all: out.push_back("all"); break;
        }
    }
    return out;
}

Request parse_ok(const std::vector<std::string>& args)
{
    Request r;
    prte::Status st = prte::prun::parse(args, r);
    EXPECT_TRUE(st.ok()) << st.message();
    return r;
}

std::string parse_error(const std::vector<std::string>& args)
{
    Request r;
    prte::Status st = prte::prun::parse(args, r);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.message().find('\n'), std::string::npos) << "one line: " << st.message();
    return st.message();
}

using Words = std::vector<std::string>;

TEST(PrunOptions, ParsingStopsAtTheProgram)
{
    Request r = parse_ok({"-n", "2", "hostname", "-s"});
    ASSERT_EQ(r.apps.size(), 1u);
    EXPECT_EQ(r.apps[0].np, 2);
    EXPECT_EQ(r.apps[0].command, "hostname");
    EXPECT_EQ(r.apps[0].argv, (Words{"hostname", "-s"}));

    r = parse_ok({"-n", "1", "./app", "-n", "5", "--host", "x", "--help"});
    EXPECT_EQ(r.apps[0].np, 1);
    EXPECT_TRUE(r.apps[0].hosts.empty());
    EXPECT_FALSE(r.help);
    EXPECT_EQ(r.apps[0].argv, (Words{"./app", "-n", "5", "--host", "x", "--help"}));

    r = parse_ok({"-n", "2", "--", "-weird-name", "x"});
    EXPECT_EQ(r.apps[0].command, "-weird-name");
}

// PRRTE master's --forward-signals: the list replaces the default set; names with or without SIG
// (any case) or numbers; `none` forwards nothing; what prun must keep is refused by name.
TEST(PrunOptions, ForwardSignals)
{
    using Signals = std::vector<int>;
    EXPECT_EQ(parse_ok({"x"}).forward_signals, (Signals{SIGTSTP, SIGUSR1, SIGUSR2, SIGABRT, SIGALRM, SIGCONT}));
    EXPECT_EQ(parse_ok({"--forward-signals", "USR2", "x"}).forward_signals, (Signals{SIGUSR2}));
    EXPECT_EQ(parse_ok({"--forward-signals", "sigusr1,10,SIGALRM, 12", "x"}).forward_signals,
              (Signals{SIGUSR1, SIGALRM, SIGUSR2}));
    EXPECT_TRUE(parse_ok({"--forward-signals", "none", "x"}).forward_signals.empty());
    EXPECT_TRUE(parse_ok({"-forward-signals", "NONE", "x"}).forward_signals.empty());  // PRRTE's single dash
    // The program's own option is its own.
    EXPECT_EQ(parse_ok({"x", "--forward-signals", "none"}).forward_signals.size(), 6u);

    EXPECT_NE(parse_error({"--forward-signals", "USR1,BOGUS", "x"}).find("unknown signal 'BOGUS'"), std::string::npos);
    EXPECT_NE(parse_error({"--forward-signals", "0", "x"}).find("unknown signal '0'"), std::string::npos);
    EXPECT_NE(parse_error({"--forward-signals", "999", "x"}).find("unknown signal '999'"), std::string::npos);
    EXPECT_NE(parse_error({"--forward-signals", "USR1,,USR2", "x"}).find("an empty entry"), std::string::npos);
    EXPECT_NE(parse_error({"--forward-signals", "none,USR1", "x"}).find("'none' cannot be combined"), std::string::npos);
    for (const char* kept : {"INT", "TERM", "SIGHUP", "KILL", "STOP", "PIPE", "QUIT", "SEGV", "9"}) {
        EXPECT_NE(parse_error({"--forward-signals", kept, "x"}).find("cannot be forwarded"), std::string::npos) << kept;
    }
}

TEST(PrunOptions, RecoveryIsOffUnlessEnabled)
{
    EXPECT_FALSE(parse_ok({"-n", "2", "x"}).recoverable);
    EXPECT_TRUE(parse_ok({"--enable-recovery", "-n", "2", "x"}).recoverable);
    EXPECT_TRUE(parse_ok({"-enable-recovery", "x"}).recoverable);  // PRRTE's single dash
    EXPECT_FALSE(parse_ok({"--enable-recovery", "--disable-recovery", "x"}).recoverable);
    // The program's own --enable-recovery is its own.
    EXPECT_FALSE(parse_ok({"x", "--enable-recovery"}).recoverable);
}

TEST(PrunOptions, PrrteSpellings)
{
    Request r = parse_ok({"-np", "4", "-host", "a,b:2", "--map-by", "core:OVERSUBSCRIBE", "--bind-to", "core",
                          "-x", "A", "-x", "B=1", "--wdir", "/tmp", "--output", "tag,timestamp", "--timeout", "7",
                          "--prtemca", "foo", "bar", "--dvm", "pid:12", "a.out"});
    const auto& app = r.apps.at(0);
    EXPECT_EQ(app.np, 4);
    EXPECT_EQ(app.hosts, (Words{"a,b:2"}));
    EXPECT_EQ(env_words(app), (Words{"A", "B=1"}));
    EXPECT_EQ(app.wdir, "/tmp");
    EXPECT_EQ(r.map_by, "core:OVERSUBSCRIBE");
    EXPECT_EQ(r.bind_to, "core");
    EXPECT_TRUE(r.output.tag);
    EXPECT_TRUE(r.output.timestamp);
    EXPECT_FALSE(r.output.merge_stderr);
    EXPECT_EQ(r.timeout, 7);
    ASSERT_EQ(r.mca.size(), 1u);
    EXPECT_EQ(r.mca[0], (std::pair<std::string, std::string>{"foo", "bar"}));
    EXPECT_EQ(r.dvm, "pid:12");

    r = parse_ok({"--np=3", "--map-by=:OVERSUBSCRIBE", "--host", "a", "--host", "b", "--hostfile", "hf",
                  "--output", "merge-stderr-to-stdout", "--dvm-uri", "file:/x", "--verbose", "true"});
    EXPECT_EQ(r.apps[0].np, 3);
    EXPECT_EQ(r.apps[0].hosts, (Words{"a", "b"}));
    EXPECT_EQ(r.apps[0].hostfile, "hf");
    EXPECT_EQ(r.map_by, ":OVERSUBSCRIBE");
    EXPECT_TRUE(r.output.merge_stderr);
    EXPECT_EQ(r.dvm_uri, "file:/x");
    EXPECT_TRUE(r.verbose);
}

TEST(PrunOptions, ColonSeparatesAppContexts)
{
    Request r = parse_ok({"-n", "1", "a", "x", ":", "-n", "2", "-x", "V=1", "b", "-y"});
    ASSERT_EQ(r.apps.size(), 2u);
    EXPECT_EQ(r.apps[0].argv, (Words{"a", "x"}));
    EXPECT_EQ(r.apps[0].np, 1);
    EXPECT_EQ(r.apps[1].argv, (Words{"b", "-y"}));
    EXPECT_EQ(r.apps[1].np, 2);
    EXPECT_EQ(env_words(r.apps[1]), (Words{"V=1"}));
    EXPECT_TRUE(r.apps[0].environment.empty());
}

// The DVM reads the hostfile from its own working directory, so prun sends an absolute path.
TEST(PrunOptions, RelativeHostfilesBecomeAbsoluteAgainstPrunsDirectory)
{
    Request r = parse_ok({"--hostfile", "hosts", "a", ":", "--hostfile", "/etc/h", "b", ":", "--hostfile", "../x/./h",
                          "c", ":", "d"});
    prte::prun::make_hostfiles_absolute(r, "/home/u/run");
    ASSERT_EQ(r.apps.size(), 4u);
    EXPECT_EQ(r.apps[0].hostfile, "/home/u/run/hosts");
    EXPECT_EQ(r.apps[1].hostfile, "/etc/h");
    EXPECT_EQ(r.apps[2].hostfile, "/home/u/x/h");
    EXPECT_EQ(r.apps[3].hostfile, "");
}

TEST(PrunOptions, StdinTarget)
{
    EXPECT_EQ(parse_ok({"x"}).stdin_target.kind, prte::prun::StdinTarget::rank);
    EXPECT_EQ(parse_ok({"--stdin", "none", "x"}).stdin_target.kind, prte::prun::StdinTarget::none);
    EXPECT_EQ(parse_ok({"--stdin", "all", "x"}).stdin_target.kind, prte::prun::StdinTarget::all);
    EXPECT_EQ(parse_ok({"--stdin", "3", "x"}).stdin_target.value, 3);
}

TEST(PrunOptions, HelpAndVersion)
{
    EXPECT_TRUE(parse_ok({"--help"}).help);
    EXPECT_TRUE(parse_ok({"-n", "2", "-h"}).help);
    EXPECT_TRUE(parse_ok({"--version"}).version);
    std::string usage = prte::prun::usage();
    EXPECT_NE(usage.find("--map-by"), std::string::npos);
    EXPECT_NE(usage.find("--dvm-uri"), std::string::npos);
}

TEST(PrunOptions, ErrorsAreOneLine)
{
    EXPECT_NE(parse_error({"--no-such-option"}).find("--no-such-option"), std::string::npos);
    EXPECT_NE(parse_error({"-n", "2", "--bogus", "x"}).find("--bogus"), std::string::npos);
    EXPECT_NE(parse_error({}).find("no program"), std::string::npos);
    EXPECT_NE(parse_error({"-n", "2"}).find("no program"), std::string::npos);
    EXPECT_NE(parse_error({"-n"}).find("-n"), std::string::npos);
    EXPECT_NE(parse_error({"-n", "abc", "x"}).find("abc"), std::string::npos);
    EXPECT_NE(parse_error({"-n", "-3", "x"}).find("-3"), std::string::npos);
    EXPECT_NE(parse_error({"--map-by", "bogus", "x"}).find("unknown policy 'bogus'"), std::string::npos);
    EXPECT_NE(parse_error({"--map-by", "ppr:x:node", "x"}).find("ppr:N"), std::string::npos);
    EXPECT_NE(parse_error({"--bind-to", "rack", "x"}).find("unknown level 'rack'"), std::string::npos);
    EXPECT_NE(parse_error({"--output", "tag,fancy", "x"}).find("unknown format 'fancy'"), std::string::npos);
    EXPECT_NE(parse_error({"--timeout", "0", "x"}).find("--timeout 0"), std::string::npos);
    EXPECT_NE(parse_error({"--timeout", "soon", "x"}).find("--timeout soon"), std::string::npos);
    EXPECT_NE(parse_error({"--spawn-timeout", "0", "x"}).find("--spawn-timeout 0"), std::string::npos);
    EXPECT_NE(parse_error({"--spawn-timeout", "later", "x"}).find("--spawn-timeout later"), std::string::npos);
    EXPECT_NE(parse_error({"--stdin", "some", "x"}).find("--stdin some"), std::string::npos);
    EXPECT_NE(parse_error({"-x", "=v", "x"}).find("-x '=v'"), std::string::npos);
    EXPECT_NE(parse_error({"--prtemca", "only-name"}).find("--prtemca"), std::string::npos);
    EXPECT_NE(parse_error({"a", ":"}).find("':'"), std::string::npos);
}

TEST(PrunOptions, PoliciesAreCheckedCaseInsensitively)
{
    EXPECT_TRUE(prte::prun::check_map_by("ppr:2:node").ok());
    EXPECT_TRUE(prte::prun::check_map_by("Node:NOOVERSUBSCRIBE").ok());
    EXPECT_TRUE(prte::prun::check_bind_to("hwthread").ok());
    EXPECT_TRUE(prte::prun::check_bind_to("NUMA").ok());
}

// prun accepts exactly what the DVM maps (runtime/placement_spec.h): PRRTE's policies, and a clear
// refusal of the two it does not offer and of any unknown word.
TEST(PrunOptions, PoliciesTheDvmDoesNotMapAreRefusedUpFront)
{
    for (const char* ok : {"slot", "node", "core", "package", "socket", "numa", "hwthread", "seq", "ppr:1:core",
                           "l1cache", "L2", "l3cache:SPAN", "rankfile:FILE=r", "pe-list=0,2-3:ORDERED", "slot:PE=2",
                           ":NOLOCAL:DONOTLAUNCH", "core:HWTCPUS"}) {
        EXPECT_TRUE(prte::prun::check_map_by(ok).ok()) << ok << ": " << prte::prun::check_map_by(ok).message();
    }
    prte::Status st = prte::prun::check_map_by("board");
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("not offered by this DVM"), std::string::npos) << st.message();
    EXPECT_FALSE(prte::prun::check_map_by("rankfile").ok());  // needs its FILE=
    EXPECT_FALSE(prte::prun::check_map_by("slot:ORDERED").ok());
    st = prte::prun::check_map_by("nodez");
    EXPECT_NE(st.message().find("unknown policy 'nodez'"), std::string::npos) << st.message();
}

// PRRTE's older placement options fold into --map-by / --bind-to with a note each.
TEST(PrunOptions, OlderPlacementSpellingsMapOntoTheCurrentOnes)
{
    auto r = parse_ok({"--nolocal", "--do-not-launch", "--cpus-per-rank", "2", "--use-hwthread-cpus", "a.out"});
    EXPECT_EQ(r.map_by, ":NOLOCAL:DONOTLAUNCH:HWTCPUS:PE=2");
    EXPECT_EQ(r.notes.size(), 4u);
    EXPECT_EQ(parse_ok({"--bynode", "a.out"}).map_by, "node");
    EXPECT_EQ(parse_ok({"--npersocket", "2", "a.out"}).map_by, "ppr:2:package");
    EXPECT_EQ(parse_ok({"--rankfile", "rf", "a.out"}).map_by, "rankfile:FILE=rf");
    EXPECT_EQ(parse_ok({"--bind-to-core", "a.out"}).bind_to, "core");
    EXPECT_EQ(parse_ok({"-c", "3", "a.out"}).apps[0].np, 3);  // PRRTE's -c is -n
    prte::prun::Request out;
    EXPECT_FALSE(prte::prun::parse({"--bynode", "--map-by", "package", "a.out"}, out).ok());
    EXPECT_FALSE(prte::prun::parse({"--map-by", "core:PE=2", "--bind-to", "package", "a.out"}, out).ok());
    EXPECT_FALSE(prte::prun::parse({"--rank-by", "nodes", "a.out"}, out).ok());
    EXPECT_EQ(parse_ok({"--rank-by", "package:span", "a.out"}).rank_by, "package:span");
}

TEST(PrunOptions, PerNodeOptionsMapAsPprOnNodes)
{
    EXPECT_EQ(parse_ok({"-N", "2", "a.out"}).map_by, "ppr:2:node");
    EXPECT_EQ(parse_ok({"--npernode", "3", "a.out"}).map_by, "ppr:3:node");
    EXPECT_EQ(parse_ok({"-npernode", "4", "a.out"}).map_by, "ppr:4:node");
    EXPECT_EQ(parse_ok({"--pernode", "a.out"}).map_by, "ppr:1:node");
    EXPECT_EQ(parse_ok({"-pernode", "a.out"}).map_by, "ppr:1:node");
    // -N's value is no program; the same policy twice is no conflict.
    Request r = parse_ok({"-N", "2", "-n", "4", "hostname", "-s"});
    EXPECT_EQ(r.apps.at(0).argv, (Words{"hostname", "-s"}));
    EXPECT_EQ(r.apps[0].np, 4);
    EXPECT_EQ(parse_ok({"--map-by", "ppr:1:node", "--pernode", "a.out"}).map_by, "ppr:1:node");

    EXPECT_NE(parse_error({"-N", "0", "a.out"}).find("-N/--npernode 0: expected a positive number"), std::string::npos);
    EXPECT_NE(parse_error({"-N", "x", "a.out"}).find("-N/--npernode x"), std::string::npos);
    EXPECT_NE(parse_error({"-N", "2", "--map-by", "slot", "a.out"}).find("-N 2 and --map-by slot cannot be combined"),
              std::string::npos);
    EXPECT_NE(parse_error({"-N", "2", "--pernode", "a.out"}).find("--pernode and -N 2 cannot be combined"),
              std::string::npos);
}

TEST(PrunOptions, DisplayAndReportBindings)
{
    Request r = parse_ok({"--display", "map", "a.out"});
    EXPECT_TRUE(r.reports.map);
    EXPECT_FALSE(r.reports.allocation);
    EXPECT_FALSE(r.reports.bindings);
    r = parse_ok({"--display", "allocation,MAP", "--report-bindings", "a.out", "--display", "x"});
    EXPECT_TRUE(r.reports.map);
    EXPECT_TRUE(r.reports.allocation);
    EXPECT_TRUE(r.reports.bindings);
    EXPECT_EQ(r.apps.at(0).argv, (Words{"a.out", "--display", "x"}));
    r = parse_ok({"--display", "map", "--display", "bind", "a.out"});
    EXPECT_TRUE(r.reports.map && r.reports.bindings && !r.reports.allocation);
    EXPECT_TRUE(r.notes.empty());
    EXPECT_FALSE(r.reports.topology);
    r = parse_ok({"--display", "map,topo", "a.out"});
    EXPECT_TRUE(r.reports.map && r.reports.topology);
    EXPECT_EQ(r.reports.topology_hosts, "");
    r = parse_ok({"--display", "TOPO=node1;node2", "a.out"});
    EXPECT_TRUE(r.reports.topology);
    EXPECT_EQ(r.reports.topology_hosts, "node1;node2");
    EXPECT_FALSE(r.reports.physical);
    r = parse_ok({"--display", "map,bind:PHYSICAL", "a.out"});
    EXPECT_TRUE(r.reports.map && r.reports.bindings && r.reports.physical);
    EXPECT_NE(parse_error({"--display", "map:devel", "a.out"})
                  .find("--display map:devel: unknown or unsupported qualifier 'devel' (physical, parseable)"),
              std::string::npos);
    EXPECT_NE(parse_error({"--display", "map,tpo", "a.out"})
                  .find("--display map,tpo: unknown or unsupported report 'tpo' (map, allocation, bind, topo[=host;host], cpus[=host;host])"),
              std::string::npos);
}

// MPMD: the first context's --map-by is the job's; a later context's is its own app's, checked as
// the DVM reads it (in place of the job's mapping words).
TEST(PrunOptions, EachAppMayCarryItsOwnMapBy)
{
    Request r = parse_ok({"-n", "2", "--map-by", "node", "a", ":", "-n", "2", "--map-by", "core:PE=2", "b", ":", "c"});
    ASSERT_EQ(r.apps.size(), 3u);
    EXPECT_EQ(r.map_by, "node");
    EXPECT_EQ(r.apps[0].map_by, "");
    EXPECT_EQ(r.apps[1].map_by, "core:PE=2");
    EXPECT_EQ(r.apps[2].map_by, "") << "an app without its own takes the job's";
    // Older spellings and -N fold into the app's own too.
    r = parse_ok({"a", ":", "-N", "1", "b", ":", "--bynode", "c"});
    EXPECT_EQ(r.map_by, "");
    EXPECT_EQ(r.apps[1].map_by, "ppr:1:node");
    EXPECT_EQ(r.apps[2].map_by, "node");
    EXPECT_NE(parse_error({"a", ":", "--map-by", "nosuch", "b"}).find("--map-by nosuch (app 1, b): unknown policy 'nosuch'"),
              std::string::npos);
    EXPECT_NE(parse_error({"a", ":", "--map-by", "core:DONOTLAUNCH", "b"})
                  .find("apply to the whole job: give them in the first app's --map-by"),
              std::string::npos);
    EXPECT_NE(parse_error({"--bind-to", "hwthread", "a", ":", "--map-by", "core:PE=2", "b"})
                  .find("--map-by core:PE=2 (app 1, b): PE=2 binds each process to 2 core(s)"),
              std::string::npos);
}

using Setting = std::pair<std::string, std::string>;
using Settings = std::vector<Setting>;

TEST(PrunMcaRouting, EachNameGoesToWhoeverReadsIt)
{
    unsetenv("OMPI_MCA_PREFIXES");
    Request r = parse_ok({"--mca", "btl", "self", "-mca", "ptl_base_verbose", "5", "--gmca", "plm_base_verbose", "2",
                          "--mca", "hwloc_base_binding_policy", "none", "--mca", "pmix_server_verbose", "1",
                          "--mca", "pmix_base_verbose", "3", "a.out"});
    EXPECT_EQ(r.ompi_mca, (Settings{{"btl", "self"}, {"hwloc_base_binding_policy", "none"}, {"pmix_base_verbose", "3"}}));
    EXPECT_EQ(r.pmix_mca, (Settings{{"ptl_base_verbose", "5"}}));
    EXPECT_EQ(r.mca, (Settings{{"plm_base_verbose", "2"}, {"hwloc_base_binding_policy", "none"},
                               {"pmix_server_verbose", "1"}}));
    EXPECT_TRUE(r.notes.empty());
}

TEST(PrunMcaRouting, ANameNobodyClaimsIsSaidOnceAndPassedNowhere)
{
    unsetenv("OMPI_MCA_PREFIXES");
    Request r = parse_ok({"--mca", "foo_bar", "1", "--mca", "foo_bar", "1", "a.out"});
    EXPECT_TRUE(r.ompi_mca.empty() && r.pmix_mca.empty() && r.mca.empty());
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("--mca foo_bar: no parameter of Open MPI 4.1, PMIx or prte"), std::string::npos);
    // OMPI_MCA_PREFIXES replaces the list of Open MPI's prefixes.
    setenv("OMPI_MCA_PREFIXES", "foo,baz_", 1);
    r = parse_ok({"--mca", "foo_bar", "1", "--mca", "btl", "self", "a.out"});
    unsetenv("OMPI_MCA_PREFIXES");
    EXPECT_EQ(r.ompi_mca, (Settings{{"foo_bar", "1"}}));
    EXPECT_EQ(r.notes.size(), 1u);  // btl is no longer Open MPI's
}

TEST(PrunMcaRouting, PersonalityPrteAndTheOneOwnerOptions)
{
    Request r = parse_ok({"--personality", "prte", "--mca", "btl", "self", "--mca", "gds", "hash", "--omca", "plm_x",
                          "1", "a.out"});
    EXPECT_EQ(r.mca, (Settings{{"btl", "self"}}));
    EXPECT_EQ(r.pmix_mca, (Settings{{"gds", "hash"}}));
    EXPECT_EQ(r.ompi_mca, (Settings{{"plm_x", "1"}}));
    EXPECT_NE(parse_error({"--personality", "mpich", "a.out"}).find("--personality mpich: expected ompi or prte"),
              std::string::npos);
    EXPECT_NE(parse_error({"--mca", "btl"}).find("--mca"), std::string::npos);
    EXPECT_NE(parse_error({"--omca", "a=b", "1", "a.out"}).find("--omca 'a=b': not a parameter name"), std::string::npos);
}

TEST(PrunMcaRouting, ParameterAndTuneFiles)
{
    std::string dir = std::filesystem::temp_directory_path() / ("prun-mca-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/params") << "# Open MPI's -am file\nbtl = tcp,self   # trailing comment\n\nptl_base_verbose=2\n";
    std::ofstream(dir + "/tune") << "-mca btl_tcp_if_include lo -x FOO=bar\n--mca plm_base_verbose 1\n";
    std::ofstream(dir + "/bad") << "-mca btl self\n--np 4\n";
    std::ofstream(dir + "/badparams") << "btl self\n";
    Request r = parse_ok({"-am", dir + "/params", "--tune", dir + "/tune", "a.out"});
    EXPECT_EQ(r.ompi_mca, (Settings{{"btl", "tcp,self"}, {"btl_tcp_if_include", "lo"}}));
    EXPECT_EQ(r.pmix_mca, (Settings{{"ptl_base_verbose", "2"}}));
    EXPECT_EQ(r.mca, (Settings{{"plm_base_verbose", "1"}}));
    EXPECT_EQ(env_words(r.apps.at(0)), (std::vector<std::string>{"FOO=bar"}));
    EXPECT_NE(parse_error({"--tune", dir + "/bad", "a.out"}).find(dir + "/bad:2: '--np'"), std::string::npos);
    EXPECT_NE(parse_error({"-am", dir + "/badparams", "a.out"}).find(dir + "/badparams:1: expected 'name = value'"),
              std::string::npos);
    EXPECT_NE(parse_error({"-am", dir + "/missing", "a.out"}).find("-am " + dir + "/missing: cannot read the file"),
              std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(PrunOptions, PmixmcaBecomesPmixMcaParameters)
{
    Request r = parse_ok({"--pmixmca", "ptl_base_verbose", "5", "--pmixmca", "gds", "hash", "--prtemca", "a", "b",
                          "a.out"});
    ASSERT_EQ(r.pmix_mca.size(), 2u);
    EXPECT_EQ(r.pmix_mca[0], (std::pair<std::string, std::string>{"ptl_base_verbose", "5"}));
    EXPECT_EQ(r.pmix_mca[1], (std::pair<std::string, std::string>{"gds", "hash"}));
    EXPECT_EQ(r.mca.size(), 1u);
    EXPECT_EQ(r.apps.at(0).command, "a.out");
    EXPECT_EQ(parse_ok({"-pmixmca", "x", "1", "a.out"}).pmix_mca.size(), 1u);
    EXPECT_NE(parse_error({"--pmixmca", "a=b", "1", "a.out"}).find("--pmixmca 'a=b': not a parameter name"),
              std::string::npos);
    parse_error({"--pmixmca", "onlyname"});
}

TEST(PrunOptions, OlderPrrteSpellingsAreAcceptedWithANote)
{
    Request r = parse_ok({"--tag-output", "--timestamp-output", "a.out"});
    EXPECT_TRUE(r.output.tag);
    EXPECT_TRUE(r.output.timestamp);
    ASSERT_EQ(r.notes.size(), 2u);
    EXPECT_EQ(r.notes[0], "--tag-output is PRRTE's older spelling of --output tag: accepted, but use --output tag");
    EXPECT_EQ(r.notes[1],
              "--timestamp-output is PRRTE's older spelling of --output timestamp: accepted, but use --output timestamp");
    r = parse_ok({"-tag-output", "--display-map", "--display-allocation", "--merge-stderr-to-stdout", "a.out"});
    EXPECT_TRUE(r.output.tag && r.output.merge_stderr && r.reports.map && r.reports.allocation);
    EXPECT_EQ(r.notes.size(), 4u);
    // One note per spelling, however many app contexts repeat it.
    r = parse_ok({"--tag-output", "a", ":", "--tag-output", "b"});
    EXPECT_EQ(r.notes.size(), 1u);
    EXPECT_TRUE(parse_ok({"--output", "tag", "a.out"}).notes.empty());
}

TEST(PrunOptions, HelpListsTheNewOptions)
{
    std::string help = prte::prun::usage();
    for (const char* option : {"--npernode", "--pernode", "--display", "--report-bindings", "--pmixmca", "--tag-output",
                               "--timestamp-output"}) {
        EXPECT_NE(help.find(option), std::string::npos) << option;
    }
    EXPECT_EQ(prte::prun::option_value_words("--display"), 1);
    EXPECT_EQ(prte::prun::option_value_words("--pmixmca"), 2);
    EXPECT_EQ(prte::prun::option_value_words("--pernode"), 0);
    std::string prterun = prte::prun::usage("prterun", "prterun: summary", "prterun footer");
    EXPECT_EQ(prterun.rfind("prterun: summary", 0), 0u);
    EXPECT_NE(prterun.find("prterun footer"), std::string::npos);
    EXPECT_NE(prterun.find("--npernode"), std::string::npos);
}

// ---- OutputWriter ----

class Pipe {
  public:
    Pipe()
    {
        int fds[2];
        EXPECT_EQ(pipe(fds), 0);
        read_ = fds[0];
        write_ = fds[1];
    }
    ~Pipe()
    {
        close_read();
        if (write_ >= 0) close(write_);
    }
    int writer() const { return write_; }
    void close_read()
    {
        if (read_ >= 0) close(read_);
        read_ = -1;
    }
    std::string drain()
    {
        close(write_);
        write_ = -1;
        std::string out;
        char buf[4096];
        ssize_t n;
        while ((n = read(read_, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
        return out;
    }

  private:
    int read_ = -1, write_ = -1;
};

TEST(OutputWriter, PlainOutputPassesThroughAsItComes)
{
    Pipe out, err;
    OutputWriter w({}, out.writer(), err.writer());
    w.deliver(0, Stream::out, "partial");
    w.deliver(1, Stream::err, "oops\n");
    w.deliver(0, Stream::out, " line\n");
    w.flush();
    EXPECT_EQ(out.drain(), "partial line\n");
    EXPECT_EQ(err.drain(), "oops\n");
}

TEST(OutputWriter, TagsEveryWholeLineAsPrrteDoes)
{
    Pipe out, err;
    OutputOptions o;
    o.tag = true;
    OutputWriter w(o, out.writer(), err.writer());
    w.set_job_label(prte::prun::job_label_of("prte-node-1234@3"));
    w.deliver(0, Stream::out, "a\nb");
    w.deliver(1, Stream::out, "x");
    w.deliver(0, Stream::out, "c\n");
    w.deliver(1, Stream::err, "e1\n");
    w.deliver(1, Stream::out, "\n");
    w.deliver(2, Stream::out, "no newline");
    w.flush();
    EXPECT_EQ(out.drain(),
              "[3,0]<stdout>: a\n[3,0]<stdout>: bc\n[3,1]<stdout>: x\n[3,2]<stdout>: no newline\n");
    EXPECT_EQ(err.drain(), "[3,1]<stderr>: e1\n");
}

// PRRTE's --output rank: PMIx's rank-only tag, with the stream; a tag word wins over it.
TEST(OutputWriter, RankTagsNameOnlyTheRank)
{
    Request r = parse_ok({"--output", "rank", "a.out"});
    EXPECT_TRUE(r.output.rank && !r.output.tag);
    Pipe out, err;
    OutputWriter w(r.output, out.writer(), err.writer());
    w.set_job_label("7");
    w.deliver(3, Stream::out, "a\n");
    w.deliver(3, Stream::err, "e\n");
    EXPECT_EQ(out.drain(), "[3]<stdout>: a\n");
    EXPECT_EQ(err.drain(), "[3]<stderr>: e\n");
    Pipe out2, err2;
    OutputOptions both = parse_ok({"--output", "rank,tag", "a.out"}).output;
    OutputWriter t(both, out2.writer(), err2.writer());
    t.set_job_label("7");
    t.deliver(3, Stream::out, "a\n");
    EXPECT_EQ(out2.drain(), "[7,3]<stdout>: a\n");
}

TEST(OutputWriter, MergeSendsStderrToStdout)
{
    Pipe out, err;
    OutputOptions o;
    o.tag = true;
    o.merge_stderr = true;
    OutputWriter w(o, out.writer(), err.writer());
    w.set_job_label("1");
    w.deliver(0, Stream::err, "bad\n");
    w.deliver(0, Stream::out, "good\n");
    EXPECT_EQ(out.drain(), "[1,0]<stderr>: bad\n[1,0]<stdout>: good\n");
    EXPECT_EQ(err.drain(), "");
}

TEST(OutputWriter, TimestampPrecedesTheTag)
{
    Pipe out, err;
    OutputOptions o;
    o.tag = o.timestamp = true;
    OutputWriter w(o, out.writer(), err.writer());
    w.set_clock([] { return std::string("T"); });
    w.set_job_label("5");
    w.deliver(4, Stream::out, "hi\n");
    EXPECT_EQ(out.drain(), "[T] [5,4]<stdout>: hi\n");
}

// PRRTE's --output tag-detailed, xml (and --xml) and --display cpus (issue 41, item 3).
TEST(PrunOptions, DetailedTagsXmlAndCpus)
{
    Request r = parse_ok({"--output", "tag-d", "a.out"});
    EXPECT_TRUE(r.output.tag && r.output.tag_detailed && !r.output.tag_fullname);
    r = parse_ok({"--output", "xml,tag-fullname", "a.out"});
    EXPECT_TRUE(r.output.xml && r.output.tag_fullname);
    r = parse_ok({"--xml", "a.out"});
    EXPECT_TRUE(r.output.xml);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "--xml is PRRTE's older spelling of --output xml: accepted, but use --output xml");
    r = parse_ok({"--display", "cpus", "a.out"});
    EXPECT_TRUE(r.reports.cpus);
    EXPECT_EQ(r.reports.cpus_hosts, "");
    r = parse_ok({"--display", "map,cpus=node1;node2:physical", "a.out"});
    EXPECT_TRUE(r.reports.cpus && r.reports.map && r.reports.physical);
    EXPECT_EQ(r.reports.cpus_hosts, "node1;node2");
    EXPECT_NE(parse_error({"-xml-file", "f", "a"}).find("use --output xml"), std::string::npos);
}

TEST(OutputWriter, DetailedTagsNameTheHostAndPidTheDvmGave)
{
    Pipe out, err;
    OutputOptions o;
    o.tag = o.tag_detailed = true;
    OutputWriter w(o, out.writer(), err.writer());
    w.set_job_label("2");
    prte::prun::ProcPlace place{"node3", 4242};
    w.deliver(1, Stream::out, "a\nb", {}, &place);
    w.deliver(1, Stream::out, "c\n");  // no place on this chunk: the last one named holds
    w.deliver(0, Stream::err, "e\n");  // never named: unknown, as PMIx writes it
    prte::prun::ProcPlace child{"node1", 7};
    w.deliver(0, Stream::out, "from child\n", "5", &child);
    EXPECT_EQ(out.drain(), "[2,1][node3:4242]<stdout>: a\n[2,1][node3:4242]<stdout>: bc\n"
                           "[5,0][node1:7]<stdout>: from child\n");
    EXPECT_EQ(err.drain(), "[2,0][unknown:unknown]<stderr>: e\n");
}

TEST(OutputWriter, XmlMakesEachLineAnElementInsideMpirun)
{
    Pipe out, err;
    OutputOptions o;
    o.xml = true;
    OutputWriter w(o, out.writer(), err.writer());
    w.begin_document();
    w.deliver(0, Stream::out, "a<b> & \"c\"\tend\nsec");
    w.deliver(1, Stream::err, "oops\n");
    w.deliver(0, Stream::out, "ond\n");
    w.deliver(2, Stream::out, "unfinished");
    w.flush();
    w.end_document();
    EXPECT_EQ(out.drain(), "<mpirun>\n"
                           "<stdout rank=\"0\">a&lt;b&gt; &amp; \"c\"&#009;end&#010;</stdout>\n"
                           "<stdout rank=\"0\">second&#010;</stdout>\n"
                           "<stdout rank=\"2\">unfinished</stdout>\n"
                           "</mpirun>\n");
    EXPECT_EQ(err.drain(), "<stderr rank=\"1\">oops&#010;</stderr>\n");

    Pipe out2, err2;
    o.tag = o.tag_detailed = o.timestamp = o.merge_stderr = true;
    OutputWriter t(o, out2.writer(), err2.writer());
    t.set_clock([] { return std::string("T"); });
    t.set_job_label("3");
    prte::prun::ProcPlace place{"n1", 9};
    t.deliver(0, Stream::err, "x\n", {}, &place);
    EXPECT_EQ(out2.drain(), "<stderr jobid=\"3\" rank=\"0\" host=\"n1\" pid=\"9\" timestamp=\"T\">x&#010;</stderr>\n");

    // Nothing of the document without xml.
    Pipe out3, err3;
    OutputWriter plain({}, out3.writer(), err3.writer());
    plain.begin_document();
    plain.deliver(0, Stream::out, "p\n");
    plain.end_document();
    EXPECT_EQ(out3.drain(), "p\n");
}

TEST(OutputWriter, AReaderThatWentAwayStopsTheWriting)
{
    signal(SIGPIPE, SIG_IGN);
    Pipe out, err;
    OutputWriter w({}, out.writer(), err.writer());
    out.close_read();
    w.deliver(0, Stream::out, "lost\n");
    EXPECT_TRUE(w.stdout_broken());
    w.deliver(0, Stream::err, "still here\n");
    EXPECT_EQ(err.drain(), "still here\n");
}

// Output to files (issue 31, item 4): PRRTE's --output dir=/file= and the older --output-filename.
TEST(PrunOptions, OutputToFiles)
{
    using prte::prun::FileOutput;
    Request d = parse_ok({"--output", "tag,dir=/tmp/o:nocopy", "-n", "12", "x"});
    EXPECT_TRUE(d.output.tag);
    EXPECT_EQ(d.output.files.kind, FileOutput::Kind::dir);
    EXPECT_EQ(d.output.files.path, "/tmp/o");
    EXPECT_FALSE(d.output.files.copy);
    EXPECT_TRUE(d.output.files.jobid);
    EXPECT_EQ(d.output.files.rank_digits, 2);  // ranks 00..11

    Request f = parse_ok({"--output", "file=out", "x"});
    EXPECT_EQ(f.output.files.kind, FileOutput::Kind::file);
    EXPECT_TRUE(f.output.files.copy);
    EXPECT_EQ(f.output.files.rank_digits, 1);  // the size is not known without -n

    Request old = parse_ok({"--output-filename", "o:nocopy,nojobid", "-n", "2", "x"});
    EXPECT_EQ(old.output.files.kind, FileOutput::Kind::dir);
    EXPECT_EQ(old.output.files.path, "o");
    EXPECT_FALSE(old.output.files.copy);
    EXPECT_FALSE(old.output.files.jobid);

    EXPECT_NE(parse_error({"--output", "dir=o:sometimes", "x"}).find("unknown qualifier 'sometimes' (nocopy, nojobid)"),
              std::string::npos);
    EXPECT_NE(parse_error({"--output", "file=", "x"}).find("expected a path"), std::string::npos);
}

TEST(OutputWriter, FilesTakeEachRanksOwnBytesInPrrtesLayout)
{
    char tmpl[] = "/tmp/prun-files-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    std::string dir = tmpl;
    Pipe out, err;
    OutputOptions o;
    o.tag = true;
    o.files.kind = prte::prun::FileOutput::Kind::dir;
    o.files.path = dir;
    o.files.rank_digits = 2;
    {
        OutputWriter w(o, out.writer(), err.writer());
        w.set_job_label("3");
        w.deliver(1, Stream::out, "one\n");
        w.deliver(1, Stream::err, "oops\n");
        w.deliver(0, Stream::out, "child\n", "4");  // a spawned job's: its own directory
        w.flush();
    }
    auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(slurp(dir + "/3/rank.01/stdout"), "one\n");  // untagged, as the process wrote it
    EXPECT_EQ(slurp(dir + "/3/rank.01/stderr"), "oops\n");
    EXPECT_EQ(slurp(dir + "/4/rank.00/stdout"), "child\n");
    EXPECT_EQ(out.drain(), "[3,1]<stdout>: one\n[4,0]<stdout>: child\n");  // copied to the terminal, tagged
    EXPECT_EQ(err.drain(), "[3,1]<stderr>: oops\n");
    std::filesystem::remove_all(dir);
}

TEST(OutputWriter, JobLabels)
{
    EXPECT_EQ(prte::prun::job_label_of("prte-host-12@1"), "1");
    EXPECT_EQ(prte::prun::job_label_of("plainspace"), "plainspace");
}

// mpirun's timeout options: --timeout wins over MPIEXEC_TIMEOUT, which applies without it.
TEST(PrunOptions, TimeoutOptionsAndMpiexecTimeout)
{
    Request r = parse_ok({"--timeout", "5", "--report-state-on-timeout", "--get-stack-traces", "--spawn-timeout", "9", "x"});
    EXPECT_EQ(r.timeout, 5);
    EXPECT_TRUE(r.report_state_on_timeout);
    EXPECT_TRUE(r.stack_traces_on_timeout);
    EXPECT_EQ(r.spawn_timeout, 9);
    ASSERT_TRUE(prte::prun::apply_mpiexec_timeout("60", r).ok());
    EXPECT_EQ(r.timeout, 5) << "--timeout wins over MPIEXEC_TIMEOUT";
    EXPECT_TRUE(r.notes.empty());

    // mpirun's single-dash spellings.
    r = parse_ok({"-report-state-on-timeout", "-get-stack-traces", "-spawn-timeout", "3", "x"});
    EXPECT_TRUE(r.report_state_on_timeout && r.stack_traces_on_timeout);
    EXPECT_EQ(r.spawn_timeout, 3);
    ASSERT_TRUE(prte::prun::apply_mpiexec_timeout("12", r).ok());
    EXPECT_EQ(r.timeout, 12);

    r = parse_ok({"x"});
    ASSERT_TRUE(prte::prun::apply_mpiexec_timeout(nullptr, r).ok());
    EXPECT_EQ(r.timeout, 0);
    ASSERT_TRUE(prte::prun::apply_mpiexec_timeout("0", r).ok());
    EXPECT_EQ(r.timeout, 0);
    prte::Status st = prte::prun::apply_mpiexec_timeout("soon", r);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("MPIEXEC_TIMEOUT=soon"), std::string::npos) << st.message();

    // A report asked for without any timeout is said to do nothing.
    r = parse_ok({"--get-stack-traces", "x"});
    ASSERT_TRUE(prte::prun::apply_mpiexec_timeout(nullptr, r).ok());
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("--get-stack-traces does nothing without --timeout"), std::string::npos) << r.notes[0];
}


// Issue 41 item 5: the names PRRTE and mpirun 4.1 users type, each doing what it says.
TEST(PrunOptions, EverydaySpellingsOfExistingOptions)
{
    Request r = parse_ok({"--n", "2", "-wd", "/tmp", "--machinefile", "hf", "--mapby", "slot", "--rankby", "slot",
                          "--bindto", "none", "-v", "a.out"});
    EXPECT_EQ(r.apps.at(0).np, 2);
    EXPECT_EQ(r.apps[0].wdir, "/tmp");
    EXPECT_EQ(r.apps[0].hostfile, "hf");
    EXPECT_EQ(r.map_by, "slot");
    EXPECT_EQ(r.rank_by, "slot");
    EXPECT_EQ(r.bind_to, "none");
    EXPECT_TRUE(r.verbose);
    r = parse_ok({"--oversubscribe", "-n", "1", "a.out"});
    EXPECT_EQ(r.map_by, ":OVERSUBSCRIBE");
    r = parse_ok({"--nooversubscribe", "a.out"});
    EXPECT_EQ(r.map_by, ":NOOVERSUBSCRIBE");
    EXPECT_EQ(parse_ok({"--ppr", "2:package", "a.out"}).map_by, "ppr:2:package");
    EXPECT_EQ(parse_ok({"--bycore", "a.out"}).map_by, "core");
    EXPECT_EQ(parse_ok({"--cpu-set", "0,1", "a.out"}).map_by, "pe-list=0,1");
    EXPECT_EQ(parse_ok({"--cpu-list", "0", "a.out"}).map_by, "pe-list=0");
    EXPECT_EQ(parse_ok({"-rf", "rf.txt", "a.out"}).map_by, "rankfile:FILE=rf.txt");
    EXPECT_TRUE(parse_ok({"-q", "--bycore", "a.out"}).quiet);
    EXPECT_EQ(parse_ok({"--pid", "42", "a.out"}).dvm, "pid:42");
    EXPECT_EQ(parse_ok({"--namespace", "prte-x", "a.out"}).dvm, "ns:prte-x");
    EXPECT_EQ(parse_ok({"--system-server-first", "a.out"}).dvm, "system-first");
    EXPECT_EQ(parse_ok({"--system-server-only", "a.out"}).dvm, "system");
    EXPECT_NE(parse_error({"--system-server-only", "--pid", "42", "a.out"}).find("each choose a DVM"), std::string::npos);
    EXPECT_NE(parse_error({"--system-server-first", "--dvm", "pid:3", "a.out"}).find("cannot be combined"), std::string::npos);
    r = parse_ok({"--num-connect-retries", "3", "--wait-to-connect", "2", "a.out"});
    EXPECT_EQ(r.connect_retries, 3);
    EXPECT_EQ(r.connect_wait, 2);
    EXPECT_EQ(parse_ok({"--report-pid", "-", "a.out"}).report_pid, "-");
    EXPECT_NE(parse_error({"--ppr", "2:package", "--map-by", "slot", "a.out"}).find("cannot be combined"), std::string::npos);
}

TEST(PrunOptions, RestartsOfFailedProcesses)
{
    EXPECT_EQ(parse_ok({"--max-restarts", "2", "a.out"}).max_restarts, 2);
    Request r = parse_ok({"--continuous", "a.out"});
    EXPECT_TRUE(r.continuous);
    EXPECT_EQ(r.max_restarts, -1);
    EXPECT_NE(parse_error({"--max-restarts", "-1", "a.out"}).find("--max-restarts -1: expected a number"), std::string::npos);
}

TEST(PrunOptions, AcceptedWithANoteOrRefusedWithAReason)
{
    Request r = parse_ok({"--allow-run-as-root", "--preload-binary", "--preload-files", "a,b", "a.out"});
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("never refuses to run as root"), std::string::npos) << r.notes[0];
    EXPECT_TRUE(r.apps[0].preload_binary);
    EXPECT_EQ(r.apps[0].preload_files, (std::vector<std::string>{"a", "b"}));
    EXPECT_NE(parse_error({"--xterm", "0", "a.out"}).find("needs an X display"), std::string::npos);
    EXPECT_NE(parse_error({"--report-uri", "-", "a.out"}).find("no PMIx server of its own"), std::string::npos);
    EXPECT_NE(parse_error({"--stdin", "0,1", "a.out"}).find("a list of ranks is not supported"), std::string::npos);
    r = parse_ok({"--display", "map-devel:parseable", "a.out"});
    EXPECT_TRUE(r.reports.map);
    EXPECT_TRUE(r.reports.bindings);
    EXPECT_EQ(r.notes.size(), 2u);
    r = parse_ok({"--output", "merge,tag:raw", "a.out"});
    EXPECT_TRUE(r.output.merge_stderr);
    EXPECT_TRUE(r.output.tag);
    EXPECT_TRUE(r.output.raw);
}

TEST(PrunOptions, EnvironmentOptionsKeepTheirOrder)
{
    Request r = parse_ok({"-x", "A", "--set-env", "B=1", "--prepend-env", "PATH[:]", "/opt/bin", "--unset-env", "C*",
                          "--append-env", "L[;]", "x", "-x", "D*", "a.out"});
    EXPECT_EQ(env_words(r.apps.at(0)),
              (Words{"A", "set B=1", "prepend PATH[:] /opt/bin", "unset C*", "append L[;] x", "D*"}));
    EXPECT_TRUE(parse_ok({"--fwd-environment", "a.out"}).forward_environment);
    EXPECT_NE(parse_error({"--set-env", "B", "a.out"}).find("expected NAME=value"), std::string::npos);
    EXPECT_NE(parse_error({"--prepend-env", "PATH", "/x", "a.out"}).find("expected NAME[c]"), std::string::npos);
    EXPECT_NE(parse_error({"--unset-env", "*", "a.out"}).find("expected NAME or PREFIX*"), std::string::npos);
}

TEST(PrunOptions, EnvironmentResolvesAgainstPrunsOwn)
{
    using prte::prun::EnvOption;
    using prte::prun::EnvSetting;
    std::vector<EnvOption> options = {{EnvOption::export_var, "APP_*", {}, ':'},
                                      {EnvOption::export_var, "HOME", {}, ':'},
                                      {EnvOption::prepend, "PATH", "/opt", ';'}};
    std::vector<EnvSetting> out;
    std::vector<std::string> notes;
    Words here = {"APP_A=1", "HOME=/h", "APP_B=2", "OTHER=3", "PMIX_RANK=4", "PMIX_MCA_x=5", "PWD=/w"};
    ASSERT_TRUE(prte::prun::resolve_environment(options, here, out, notes).ok());
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].name + "=" + out[0].value, "APP_A=1");
    EXPECT_EQ(out[1].name + "=" + out[1].value, "APP_B=2");
    EXPECT_EQ(out[2].name + "=" + out[2].value, "HOME=/h");
    EXPECT_EQ(out[3].kind, EnvSetting::prepend);
    EXPECT_EQ(out[3].separator, ';');
    out.clear();
    ASSERT_TRUE(prte::prun::resolve_environment({{EnvOption::forward_all, {}, {}, ':'}}, here, out, notes).ok());
    Words names;
    for (const EnvSetting& e : out) names.push_back(e.name);
    EXPECT_EQ(names, (Words{"APP_A", "HOME", "APP_B", "OTHER", "PMIX_MCA_x"}));
    out.clear();
    ASSERT_TRUE(prte::prun::resolve_environment({{EnvOption::export_var, "NOPE_*", {}, ':'}}, here, out, notes).ok());
    EXPECT_TRUE(out.empty());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_FALSE(prte::prun::resolve_environment({{EnvOption::export_var, "NOPE", {}, ':'}}, here, out, notes).ok());
}

TEST(PrunOptions, EnvironmentEditsTravelAndApply)
{
    using prte::runtime::EnvEdit;
    EnvEdit e{EnvEdit::prepend, "PATH", ';', "/a=b;c"};
    auto back = prte::runtime::decode_env_edit(prte::runtime::encode_env_edit(e));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->kind, EnvEdit::prepend);
    EXPECT_EQ(back->name, "PATH");
    EXPECT_EQ(back->separator, ';');
    EXPECT_EQ(back->value, "/a=b;c");
    EXPECT_FALSE(prte::runtime::decode_env_edit("PATH=/x").has_value());
    EXPECT_EQ(prte::runtime::edited_value(e, std::string("/x")), "/a=b;c;/x");
    EXPECT_EQ(prte::runtime::edited_value({EnvEdit::append, "P", ':', "z"}, std::string("y")), "y:z");
    EXPECT_EQ(prte::runtime::edited_value(e, std::nullopt), "/a=b;c");
}

TEST(PrunOptions, RuntimeOptions)
{
    Request r = parse_ok({"--runtime-options", "error-nonzero-status=false,recov", "a.out"});
    EXPECT_FALSE(r.error_nonzero_status);
    EXPECT_TRUE(r.recoverable);
    r = parse_ok({"--rtos", "ERROR-NONZERO,timeout=1:05,donotlaunch", "a.out"});
    EXPECT_TRUE(r.error_nonzero_status);
    EXPECT_EQ(r.timeout, 65);
    EXPECT_EQ(r.map_by, ":DONOTLAUNCH");
    EXPECT_NE(parse_error({"--rtos", "error-nonzero-status=maybe", "a.out"}).find("expected true or false"),
              std::string::npos);
    EXPECT_NE(parse_error({"--rtos", "bogus", "a.out"}).find("unknown option 'bogus'"), std::string::npos);
    EXPECT_NE(parse_error({"--rtos", "s", "a.out"}).find("could be any of"), std::string::npos);
    EXPECT_EQ(parse_ok({"--rtos", "autorestart,max-restarts=2", "a.out"}).max_restarts, 2);
    EXPECT_NE(parse_error({"--rtos", "autorestart", "a.out"}).find("max-restarts=N"), std::string::npos);
    EXPECT_NE(parse_error({"--rtos", "max-restarts=x", "a.out"}).find("expected max-restarts=N"), std::string::npos);
    EXPECT_EQ(parse_ok({"--rtos", "autorestart=false", "--max-restarts", "3", "a.out"}).max_restarts, -1);
    r = parse_ok({"--rtos", "continuous", "a.out"});
    EXPECT_TRUE(r.continuous);
    EXPECT_EQ(r.max_restarts, -1);
    EXPECT_NE(parse_error({"--rtos", "stop-in-init", "a.out"}).find("issue 42"), std::string::npos);
}

TEST(PrunOptions, AppfileGivesOneContextALine)
{
    std::string dir = std::filesystem::temp_directory_path() / ("prun-app-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/apps") << "# three contexts\n-n 1 a 'x y'\n\n-np 2 -x V=1 b\n  c -z\n";
    std::ofstream(dir + "/quote") << "a 'x\n";
    Request r = parse_ok({"--map-by", "slot", "-x", "W=2", "--app", dir + "/apps"});
    ASSERT_EQ(r.apps.size(), 3u);
    EXPECT_EQ(r.apps[0].argv, (Words{"a", "x y"}));
    EXPECT_EQ(r.apps[0].np, 1);
    EXPECT_EQ(r.apps[1].argv, (Words{"b"}));
    EXPECT_EQ(r.apps[1].np, 2);
    EXPECT_EQ(env_words(r.apps[1]), (Words{"W=2", "V=1"}));
    EXPECT_EQ(r.apps[2].argv, (Words{"c", "-z"}));
    EXPECT_EQ(env_words(r.apps[2]), (Words{"W=2"}));
    EXPECT_EQ(r.map_by, "slot");
    EXPECT_NE(parse_error({"--app", dir + "/apps", "prog"}).find("give every program in the file"), std::string::npos);
    EXPECT_NE(parse_error({"--app", dir + "/quote"}).find("line 1: a quote is not closed"), std::string::npos);
    EXPECT_NE(parse_error({"--app", dir + "/none"}).find("cannot read it"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(PrunOptions, HelpForOneOption)
{
    Request r = parse_ok({"--help", "map-by"});
    EXPECT_TRUE(r.help);
    EXPECT_EQ(r.help_topic, "map-by");
    std::string page;
    ASSERT_TRUE(prte::prun::option_help("prun", "map-by", page).ok());
    EXPECT_EQ(page.rfind("prun --map-by, --mapby POLICY[:QUALIFIER...]\n", 0), 0u) << page;
    EXPECT_NE(page.find("Where processes go"), std::string::npos);
    ASSERT_TRUE(prte::prun::option_help("prun", "--x", page).ok());
    EXPECT_NE(page.find("-x"), std::string::npos);
    EXPECT_FALSE(prte::prun::option_help("prun", "no-such", page).ok());
}

// Issue 41: PRRTE's and mpirun's rarer names (rare_options.h): each becomes the option it stands
// for, or is accepted with a note, or refused naming why; none is an unknown option, and none is
// misread as another (-cf as -c f, -xml-file as -x ml-file).
TEST(PrunOptions, RareNamesAreAliasesNotesOrRefusals)
{
    using prte::prun::FileOutput;
    Request r = parse_ok({"--x", "A=1", "--N", "2", "--bind-to-socket", "--display-topo", "--output-directory", "/tmp/o", "a"});
    ASSERT_EQ(r.apps.size(), 1u);
    EXPECT_EQ(env_words(r.apps[0]), (Words{"A=1"}));
    EXPECT_EQ(r.map_by, "ppr:2:node");
    EXPECT_EQ(r.bind_to, "package");
    EXPECT_TRUE(r.reports.topology);
    EXPECT_EQ(r.output.files.kind, FileOutput::Kind::dir);
    EXPECT_EQ(r.output.files.path, "/tmp/o");
    auto has_note = [](const Request& q, const std::string& text) {
        for (const std::string& n : q.notes) {
            if (n.find(text) != std::string::npos) return true;
        }
        return false;
    };
    EXPECT_TRUE(has_note(r, "--bind-to-socket is PRRTE's older spelling of --bind-to package"));
    r = parse_ok({"-display-devel-map", "-hnp", "file:/x/uri", "a"});
    EXPECT_TRUE(r.reports.map && r.reports.bindings);
    EXPECT_EQ(r.dvm_uri, "file:/x/uri");
    r = parse_ok({"--prefix", "/opt/x", "-cf", "carto", "-d", "a", "-cf"});
    ASSERT_EQ(r.apps.size(), 1u);
    EXPECT_TRUE(has_note(r, "--prefix /opt/x: describes the DVM"));
    EXPECT_TRUE(has_note(r, "--cf carto:"));
    EXPECT_TRUE(has_note(r, "-d:"));
    EXPECT_EQ(r.apps[0].np, 0);  // -cf was not read as -c f
    EXPECT_EQ(r.apps[0].argv, (Words{"a", "-cf"}));  // the program's own words are left alone
    EXPECT_EQ(parse_ok({"--gomca", "btl", "self", "a"}).ompi_mca.size(), 1u);
    for (const char* debugger : {"--stop-in-init", "--stop-on-exec", "--stop-in-app", "--output-proctable", "-tv"}) {
        EXPECT_NE(parse_error({debugger, "a"}).find("issue 42"), std::string::npos) << debugger;
    }
    EXPECT_NE(parse_error({"--debugger", "gdb", "a"}).find("--debugger: attaching a debugger"), std::string::npos);
    EXPECT_NE(parse_error({"-xml-file", "f", "a"}).find("--xml-file: XML output goes to prun"), std::string::npos);
    EXPECT_NE(parse_error({"--activate", "node1", "a"}).find("palloc -w NODES"), std::string::npos);
    EXPECT_TRUE(has_note(parse_ok({"--pset", "ocean", "a"}), "PMIX_PSET_NAME"));
    EXPECT_NE(parse_error({"--hnp"}).find("--hnp: expected 1 value"), std::string::npos);
    std::string page;
    ASSERT_TRUE(prte::prun::option_help("prun", "display-topo", page).ok());
    EXPECT_NE(page.find("PRRTE's older spelling of --display topo"), std::string::npos) << page;
    ASSERT_TRUE(prte::prun::option_help("prun", "x", page).ok());
    EXPECT_EQ(page.rfind("prun -x", 0), 0u) << page;  // -x itself, not --x
}

}  // namespace

// --preload-binary / --preload-files: prun reads what it sends (tools/prun/preload.h), naming each
// file where it lands, and refuses in one line what it cannot read or name.
TEST(PrunPreload, ReadsTheProgramAndTheFiles)
{
    char dir[] = "/tmp/prun-preload-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string d = dir;
    auto write = [&](const std::string& name, const std::string& text) {
        FILE* f = std::fopen((d + "/" + name).c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs(text.c_str(), f);
        std::fclose(f);
    };
    write("prog", "#!/bin/sh\n");
    ::chmod((d + "/prog").c_str(), 0750);
    write("data.txt", "42\n");
    Request r = parse_ok({"--preload-binary", "--preload-files", d + "/data.txt", d + "/prog"});
    ASSERT_TRUE(prte::prun::read_preloads(r));
    const auto& files = r.apps[0].preloads;
    ASSERT_EQ(files.size(), 2u);
    EXPECT_TRUE(files[0].binary);
    EXPECT_EQ(files[0].name, "prog");
    EXPECT_EQ(files[0].mode, 0750u);
    EXPECT_EQ(std::string(files[0].content.begin(), files[0].content.end()), "#!/bin/sh\n");
    EXPECT_FALSE(files[1].binary);
    EXPECT_EQ(files[1].name, "data.txt");  // an absolute path lands under its base name
    EXPECT_NE(files[1].inode, 0u);

    Request missing = parse_ok({"--preload-files", d + "/nope", "true"});
    prte::Status st = prte::prun::read_preloads(missing);
    EXPECT_EQ(st.message(), "--preload-files " + d + "/nope: cannot read '" + d + "/nope': No such file or directory");
    Request up = parse_ok({"--preload-files", "../x", "true"});
    EXPECT_NE(prte::prun::read_preloads(up).message().find("'..'"), std::string::npos);
    Request twice = parse_ok({"--preload-files", d + "/data.txt,./data.txt", "true"});
    EXPECT_NE(prte::prun::read_preloads(twice).message().find("two files would be written as 'data.txt'"), std::string::npos);
    ASSERT_EQ(::truncate((d + "/data.txt").c_str(), static_cast<off_t>(prte::runtime::kMaxPreloadBytes + 1)), 0);
    Request big = parse_ok({"--preload-files", d + "/data.txt", "true"});
    EXPECT_NE(prte::prun::read_preloads(big).message().find("over the 8 MiB a job may carry"), std::string::npos);
    std::filesystem::remove_all(d);
}
