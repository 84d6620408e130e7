// The translation of a PMIx spawn request (apps + job info) into a runtime job: what prun and
// MPI_Comm_spawn send must come out as the apps, mapping, output options and timeout the launch
// path reads, and what we do not support must be said, not silently dropped.
#include <gtest/gtest.h>
#include <pmix.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "pmix/attributes.h"
#include "pmix/spawn_translate.h"

namespace {

using prte::Errc;
using prte::runtime::BindTo;
using prte::runtime::Job;
using prte::runtime::MapBy;
using prte::runtime::RankBy;

// Owns the PMIx structures a test builds, the way the PMIx library would hand them to us.
class Request {
  public:
    ~Request()
    {
        for (auto& info : job_info_) PMIX_INFO_DESTRUCT(&info);
        for (auto& app : apps_) {
            PMIX_ARGV_FREE(app.argv);
            PMIX_ARGV_FREE(app.env);
            free(app.cmd);
            free(app.cwd);
            if (app.info) PMIX_INFO_FREE(app.info, app.ninfo);
        }
    }

    pmix_app_t& app(const std::string& cmd, std::vector<std::string> argv, int maxprocs)
    {
        apps_.emplace_back();
        pmix_app_t& a = apps_.back();
        std::memset(&a, 0, sizeof(a));
        a.cmd = strdup(cmd.c_str());
        for (const auto& arg : argv) argv_append(a.argv, arg);
        a.maxprocs = maxprocs;
        return a;
    }

    static void argv_append(char**& argv, const std::string& text)
    {
        int rc = PMIX_SUCCESS;
        PMIX_ARGV_APPEND(rc, argv, text.c_str());
        ASSERT_EQ(rc, PMIX_SUCCESS);
    }

    template <typename T>
    void job(const char* key, const T& value, pmix_data_type_t type)
    {
        job_info_.emplace_back();
        PMIX_INFO_CONSTRUCT(&job_info_.back());
        PMIx_Info_load(&job_info_.back(), key, &value, type);
    }
    void job_string(const char* key, const std::string& value)
    {
        job_info_.emplace_back();
        PMIX_INFO_CONSTRUCT(&job_info_.back());
        PMIx_Info_load(&job_info_.back(), key, value.c_str(), PMIX_STRING);
    }
    void job_flag(const char* key, bool value) { job(key, value, PMIX_BOOL); }

    // App-level directives, set once per app (PMIx hands an array).
    static void app_info(pmix_app_t& a, const std::vector<std::pair<const char*, std::string>>& strings)
    {
        a.ninfo = strings.size();
        PMIX_INFO_CREATE(a.info, a.ninfo);
        for (size_t i = 0; i < strings.size(); ++i) {
            PMIx_Info_load(&a.info[i], strings[i].first, strings[i].second.c_str(), PMIX_STRING);
        }
    }

    prte::Status translate(Job& out, std::vector<std::string>& notes)
    {
        return prte::pmix::translate_spawn(job_info_.empty() ? nullptr : job_info_.data(), job_info_.size(),
                                           apps_.empty() ? nullptr : apps_.data(), apps_.size(), out, notes);
    }

  private:
    std::vector<pmix_info_t> job_info_;
    std::vector<pmix_app_t> apps_;
};

bool mentions(const std::vector<std::string>& notes, const std::string& text)
{
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(PmixSpawnTranslate, AppsCarryCommandArgvEnvCwdAndCount)
{
    Request r;
    pmix_app_t& a = r.app("/bin/hostname", {"hostname", "-s"}, 4);
    Request::argv_append(a.env, "FOO=bar");
    a.cwd = strdup("/tmp");
    r.app("./b.out", {}, 0);

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    ASSERT_EQ(job.apps.size(), 2u);
    EXPECT_EQ(job.apps[0].index, 0);
    EXPECT_EQ(job.apps[0].executable, "/bin/hostname");
    EXPECT_EQ(job.apps[0].argv, (std::vector<std::string>{"hostname", "-s"}));
    EXPECT_EQ(job.apps[0].env, (std::vector<std::string>{"FOO=bar"}));
    EXPECT_EQ(job.apps[0].working_dir, "/tmp");
    EXPECT_EQ(job.apps[0].num_procs, 4);
    // No argv: the command is argv[0]; no count: one per slot.
    EXPECT_EQ(job.apps[1].index, 1);
    EXPECT_EQ(job.apps[1].argv, (std::vector<std::string>{"./b.out"}));
    EXPECT_EQ(job.apps[1].num_procs, 0);
    EXPECT_TRUE(notes.empty());
}

TEST(PmixSpawnTranslate, RefusesRequestsWithoutACommand)
{
    Job job;
    std::vector<std::string> notes;
    Request none;
    EXPECT_EQ(none.translate(job, notes).code(), Errc::bad_param);

    Request empty;
    empty.app("", {}, 1);
    prte::Status st = empty.translate(job, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find("no command"), std::string::npos) << st.message();

    Request negative;
    negative.app("/bin/true", {}, -2);
    EXPECT_EQ(negative.translate(job, notes).code(), Errc::bad_param);
}

TEST(PmixSpawnTranslate, MappingRankingAndBinding)
{
    Request r;
    r.app("/bin/true", {}, 2);
    r.job_string(PMIX_MAPBY, "package:OVERSUBSCRIBE:SPAN");
    r.job_string(PMIX_RANKBY, "fill");
    r.job_string(PMIX_BINDTO, "socket:overload-allowed");

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.mapping.by, MapBy::package);
    EXPECT_EQ(job.mapping.oversubscribe, std::optional<bool>(true));
    EXPECT_EQ(job.mapping.span, 1);
    EXPECT_EQ(job.mapping.rank_by, RankBy::fill);
    EXPECT_EQ(job.mapping.bind_to, BindTo::package);
    EXPECT_TRUE(job.mapping.bind_overload_allowed);
    EXPECT_FALSE(job.mapping.bind_if_supported);
    EXPECT_FALSE(job.reports.bindings);
}

// Qualifiers are taken or refused, never ignored (issue 25): the binding's, PRRTE's mapping ones this
// DVM does not offer, and ranking qualifiers.
TEST(PmixSpawnTranslate, QualifiersAreTakenOrRefusedNeverIgnored)
{
    Request taken;
    taken.app("/bin/true", {}, 1);
    taken.job_string(PMIX_BINDTO, "l2cache:if-supported,report");
    taken.job_string(PMIX_MAPBY, "core:NOINHERIT");
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(taken.translate(job, notes).ok());
    EXPECT_EQ(job.mapping.bind_to, BindTo::l2cache);
    EXPECT_TRUE(job.mapping.bind_if_supported);
    EXPECT_TRUE(job.reports.bindings);
    EXPECT_EQ(job.mapping.inherit, std::optional<bool>(false));

    // PRRTE's qualifiers, all taken now, and shortened words (PRRTE's "L3").
    Request prrte;
    prrte.app("/bin/true", {}, 1);
    prrte.job_string(PMIX_MAPBY, "L3:PE=2:HWTCPUS:NOLOCAL:DONOTLAUNCH");
    prrte.job_string(PMIX_RANKBY, "pack:SPAN");
    Job all;
    ASSERT_TRUE(prrte.translate(all, notes).ok());
    EXPECT_EQ(all.mapping.by, MapBy::l3cache);
    EXPECT_EQ(all.mapping.pes_per_proc, 2);
    EXPECT_TRUE(all.mapping.hwtcpus && all.mapping.nolocal && all.mapping.donotlaunch && all.mapping.rank_span);
    EXPECT_EQ(all.mapping.rank_by, RankBy::package);

    for (const auto& [key, value, why] : std::vector<std::tuple<const char*, std::string, std::string>>{
             {PMIX_BINDTO, "core:sometimes",
              "unknown qualifier 'sometimes' (valid: overload-allowed, if-supported, report)"},
             {PMIX_MAPBY, "slot:PE=0", "PE=0: expected a positive number of CPUs per process"},
             {PMIX_MAPBY, "slot:FOO", "unknown qualifier 'FOO'"},
             {PMIX_MAPBY, "node:SPAN", "SPAN applies to mapping by an object"},
             {PMIX_MAPBY, "board", "PRRTE's 'board' policy is not offered by this DVM"},
             {PMIX_RANKBY, "slot:span", "qualifier 'span' applies only to ranking by an object"}}) {
        Request r;
        r.app("/bin/true", {}, 1);
        r.job_string(key, value);
        Job refused;
        prte::Status st = r.translate(refused, notes);
        EXPECT_EQ(st.code(), Errc::bad_param) << key << "=" << value;
        EXPECT_NE(st.message().find(why), std::string::npos) << st.message();
    }
}

TEST(PmixSpawnTranslate, PprInMapByOrOnItsOwn)
{
    Job a;
    std::vector<std::string> notes;
    Request r1;
    r1.app("/bin/true", {}, 4);
    r1.job_string(PMIX_MAPBY, "ppr:2:node:nooversubscribe");
    ASSERT_TRUE(r1.translate(a, notes).ok());
    EXPECT_EQ(a.mapping.by, MapBy::ppr);
    EXPECT_EQ(a.mapping.ppr_count, 2);
    EXPECT_EQ(a.mapping.ppr_object, MapBy::node);
    EXPECT_EQ(a.mapping.oversubscribe, std::optional<bool>(false));

    Job b;
    Request r2;
    r2.app("/bin/true", {}, 4);
    r2.job_string(PMIX_PPR, "3:package");
    ASSERT_TRUE(r2.translate(b, notes).ok());
    EXPECT_EQ(b.mapping.by, MapBy::ppr);
    EXPECT_EQ(b.mapping.ppr_count, 3);
    EXPECT_EQ(b.mapping.ppr_object, MapBy::package);
}

TEST(PmixSpawnTranslate, UnknownPoliciesAreErrorsNamingTheValue)
{
    for (const auto& [key, value] : std::vector<std::pair<const char*, std::string>>{
             {PMIX_MAPBY, "diagonal"}, {PMIX_MAPBY, "ppr:x:node"}, {PMIX_MAPBY, "ppr:2"},
             {PMIX_RANKBY, "random"}, {PMIX_BINDTO, "l4cache"}, {PMIX_BINDTO, "board"}}) {
        Request r;
        r.app("/bin/true", {}, 1);
        r.job_string(key, value);
        Job job;
        std::vector<std::string> notes;
        prte::Status st = r.translate(job, notes);
        EXPECT_EQ(st.code(), Errc::bad_param) << key << "=" << value;
        EXPECT_NE(st.message().find(value), std::string::npos) << st.message();
    }
}

TEST(PmixSpawnTranslate, OutputOptionsAndTimeout)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job_flag(PMIX_TAG_OUTPUT, true);
    r.job_flag(PMIX_IOF_TIMESTAMP_OUTPUT, true);
    r.job_flag(PMIX_MERGE_STDERR_STDOUT, true);
    r.job(PMIX_TIMEOUT, 30, PMIX_INT);
    r.job_flag(PMIX_FWD_STDOUT, true);
    r.job_flag(PMIX_FWD_STDERR, true);
    r.job_flag(PMIX_REQUESTOR_IS_TOOL, true);

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(job.output.tag);
    EXPECT_TRUE(job.output.timestamp);
    EXPECT_TRUE(job.output.merge_stderr);
    EXPECT_EQ(job.timeout_seconds, 30);
    EXPECT_TRUE(notes.empty()) << "forwarding and the requester marker are accepted quietly: " << notes.front();

    Request r2;
    r2.app("/bin/true", {}, 1);
    uint32_t minutes = 120;
    r2.job(PMIX_JOB_TIMEOUT, minutes, PMIX_UINT32);
    Job job2;
    ASSERT_TRUE(r2.translate(job2, notes).ok());
    EXPECT_EQ(job2.timeout_seconds, 120);

    Request bad;
    bad.app("/bin/true", {}, 1);
    bad.job(PMIX_TIMEOUT, -5, PMIX_INT);
    Job job3;
    EXPECT_EQ(bad.translate(job3, notes).code(), Errc::bad_param);
}

// prun --spawn-timeout, --report-state-on-timeout and --get-stack-traces.
TEST(PmixSpawnTranslate, SpawnTimeoutAndTimeoutReports)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job(PMIX_TIMEOUT, 30, PMIX_INT);
    r.job(PMIX_SPAWN_TIMEOUT, 5, PMIX_INT);
    r.job_flag(PMIX_TIMEOUT_REPORT_STATE, true);
    r.job_flag(PMIX_TIMEOUT_STACKTRACES, true);
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.spawn_timeout_seconds, 5);
    EXPECT_TRUE(job.timeout_report_state);
    EXPECT_TRUE(job.timeout_stack_traces);
    EXPECT_TRUE(notes.empty()) << notes.front();

    Request plain;
    plain.app("/bin/true", {}, 1);
    Job none;
    ASSERT_TRUE(plain.translate(none, notes).ok());
    EXPECT_EQ(none.spawn_timeout_seconds, 0);
    EXPECT_FALSE(none.timeout_report_state);
    EXPECT_FALSE(none.timeout_stack_traces);

    Request bad;
    bad.app("/bin/true", {}, 1);
    bad.job(PMIX_SPAWN_TIMEOUT, -1, PMIX_INT);
    Job job3;
    prte::Status st = bad.translate(job3, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find(PMIX_SPAWN_TIMEOUT), std::string::npos) << st.message();
}

// prun --display map,allocation and --report-bindings.
// prun --enable-recovery: a process's failure does not end the job (errmgr dvm).
TEST(PmixSpawnTranslate, RecoverableJobsAreMarked)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job_flag(PMIX_JOB_RECOVERABLE, true);
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(job.recoverable);
    EXPECT_TRUE(notes.empty());

    Request plain;
    plain.app("/bin/true", {}, 1);
    Job job2;
    ASSERT_TRUE(plain.translate(job2, notes).ok());
    EXPECT_FALSE(job2.recoverable);
}

TEST(PmixSpawnTranslate, DisplayAndBindingReports)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job_flag(PMIX_DISPLAY_MAP, true);
    r.job_flag(PMIX_DISPLAY_ALLOCATION, false);
    r.job_flag(PMIX_REPORT_BINDINGS, true);
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(job.reports.map);
    EXPECT_FALSE(job.reports.allocation);
    EXPECT_TRUE(job.reports.bindings);
    EXPECT_TRUE(notes.empty()) << notes.front();

    Request none;
    none.app("/bin/true", {}, 1);
    Job plain;
    ASSERT_TRUE(none.translate(plain, notes).ok());
    EXPECT_FALSE(plain.reports.map || plain.reports.allocation || plain.reports.bindings);

    Request bad;
    bad.app("/bin/true", {}, 1);
    bad.job_string(PMIX_DISPLAY_MAP, "yes please");
    Job job3;
    EXPECT_EQ(bad.translate(job3, notes).code(), Errc::bad_param);
}

// PMIX_NO_PROCS_ON_HEAD and PMIX_CPUS_PER_PROC: the standard's spellings of :NOLOCAL and :PE=n.
TEST(PmixSpawnTranslate, StandardSpellingsOfNolocalAndPe)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job_flag(PMIX_NO_PROCS_ON_HEAD, true);
    r.job(PMIX_CPUS_PER_PROC, uint32_t{2}, PMIX_UINT32);
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(job.mapping.nolocal);
    EXPECT_EQ(job.mapping.pes_per_proc, 2);
    EXPECT_TRUE(notes.empty()) << notes.front();

    Request bad;
    bad.app("/bin/true", {}, 1);
    bad.job(PMIX_CPUS_PER_PROC, uint32_t{0}, PMIX_UINT32);
    Job refused;
    prte::Status st = bad.translate(refused, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find(PMIX_CPUS_PER_PROC " must be a positive number of CPUs"), std::string::npos) << st.message();
}

TEST(PmixSpawnTranslate, DisplayTopologyNamesHostsOrEveryNode)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job_string(PMIX_DISPLAY_TOPOLOGY, "n1,n2;n3");
    r.job_flag(prte::pmix::kReportPhysicalCpus, true);
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(job.reports.topology);
    EXPECT_EQ(job.reports.topology_hosts, (std::vector<std::string>{"n1", "n2", "n3"}));
    EXPECT_TRUE(job.reports.physical);
    EXPECT_TRUE(notes.empty());

    Request all;
    all.app("/bin/true", {}, 1);
    all.job_string(PMIX_DISPLAY_TOPOLOGY, "*");
    Job every;
    ASSERT_TRUE(all.translate(every, notes).ok());
    EXPECT_TRUE(every.reports.topology);
    EXPECT_TRUE(every.reports.topology_hosts.empty());
}

// PMIX_MAPBY in an app's own info: that app's policy (MPMD), read against the job's once the job's
// directives are known; a bad one is refused naming the app.
TEST(PmixSpawnTranslate, AnAppsOwnMapByIsKeptAndChecked)
{
    Request r;
    r.app("/bin/a", {}, 2);
    pmix_app_t& b = r.app("/bin/b", {}, 2);
    Request::app_info(b, {{PMIX_MAPBY, "core:PE=2"}});
    r.job_string(PMIX_MAPBY, "node");
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.mapping.by, MapBy::node);
    EXPECT_EQ(job.apps[0].map_by, "");
    EXPECT_EQ(job.apps[1].map_by, "core:PE=2");
    EXPECT_TRUE(notes.empty()) << notes.front();

    Request bad;
    bad.app("/bin/a", {}, 1);
    pmix_app_t& c = bad.app("/bin/c", {}, 1);
    Request::app_info(c, {{PMIX_MAPBY, "core:PE=2"}});
    bad.job_string(PMIX_BINDTO, "hwthread");
    Job refused;
    prte::Status st = bad.translate(refused, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find("app 1 directive " PMIX_MAPBY " core:PE=2: PE=2 binds each process"), std::string::npos)
        << st.message();
}

TEST(PmixSpawnTranslate, JobHostsAreDefaultsAppHostsWin)
{
    Request r;
    r.app("/bin/a", {}, 1);
    pmix_app_t& b = r.app("/bin/b", {}, 1);
    Request::app_info(b, {{PMIX_HOST, "n3"}, {PMIX_WDIR, "/work"}});
    r.job_string(PMIX_HOST, "n1, n2:4");
    r.job_string(PMIX_HOSTFILE, "/etc/hosts.prte");
    r.job_string(PMIX_ADD_HOST, "n9");

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.apps[0].hosts, (std::vector<std::string>{"n1", "n2:4"}));
    EXPECT_EQ(job.apps[0].hostfile, "/etc/hosts.prte");
    EXPECT_EQ(job.apps[0].add_hosts, (std::vector<std::string>{"n9"}));
    EXPECT_EQ(job.apps[1].hosts, (std::vector<std::string>{"n3"}));
    EXPECT_EQ(job.apps[1].hostfile, "/etc/hosts.prte");
    EXPECT_EQ(job.apps[1].working_dir, "/work");
}

// A bracket's commas belong to its entry: "n[1,3]" is one entry for the mapper to expand.
TEST(PmixSpawnTranslate, HostListKeepsBracketsWhole)
{
    Request r;
    r.app("/bin/a", {}, 1);
    r.job_string(PMIX_HOST, "a, n[1,3]:2 ,b");
    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.apps[0].hosts, (std::vector<std::string>{"a", "n[1,3]:2", "b"}));
}

TEST(PmixSpawnTranslate, SetEnvarAppliesToEveryAppBeforeItsOwn)
{
    Request r;
    pmix_app_t& a = r.app("/bin/a", {}, 1);
    Request::argv_append(a.env, "X=app");
    pmix_envar_t envar;
    envar.envar = const_cast<char*>("X");
    envar.value = const_cast<char*>("job");
    envar.separator = ':';
    r.job(PMIX_SET_ENVAR, envar, PMIX_ENVAR);

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_EQ(job.apps[0].env, (std::vector<std::string>{"X=job", "X=app"}));
}

TEST(PmixSpawnTranslate, UnknownDirectivesAreIgnoredWithANote)
{
    Request r;
    pmix_app_t& a = r.app("/bin/true", {}, 1);
    Request::app_info(a, {{PMIX_PREFIX, "/opt/x"}});
    r.job_flag(PMIX_DISPLAY_MAP_DETAILED, true);  // --display map-devel: not offered
    r.job_string("vendor.custom.key", "x");

    Job job;
    std::vector<std::string> notes;
    ASSERT_TRUE(r.translate(job, notes).ok());
    EXPECT_TRUE(mentions(notes, PMIX_DISPLAY_MAP_DETAILED));
    EXPECT_TRUE(mentions(notes, "vendor.custom.key"));
    EXPECT_TRUE(mentions(notes, PMIX_PREFIX));
}

// Who reads the spawner's stdin: nobody unless asked, so a spawner that never forwards any
// leaves no process waiting on a pipe nobody writes to.
TEST(PmixSpawnTranslate, StdinTargetFollowsTheRequest)
{
    using Kind = prte::runtime::StdinTarget::Kind;
    auto target_of = [](const std::function<void(Request&)>& fill) {
        Request r;
        r.app("/bin/cat", {}, 4);
        fill(r);
        Job job;
        std::vector<std::string> notes;
        prte::Status st = r.translate(job, notes);
        EXPECT_TRUE(st.ok()) << st.message();
        EXPECT_TRUE(notes.empty()) << notes.front();
        return job.stdin_target;
    };
    EXPECT_EQ(target_of([](Request&) {}).kind, Kind::none);
    EXPECT_EQ(target_of([](Request& r) { r.job_string(PMIX_STDIN_TGT, "none"); }).kind, Kind::none);
    EXPECT_EQ(target_of([](Request& r) { r.job_string(PMIX_STDIN_TGT, "all"); }).kind, Kind::all);
    auto three = target_of([](Request& r) { r.job_string(PMIX_STDIN_TGT, "3"); });
    EXPECT_EQ(three.kind, Kind::rank);
    EXPECT_EQ(three.rank, 3u);
    auto zero = target_of([](Request& r) { r.job_flag(PMIX_FWD_STDIN, true); });
    EXPECT_EQ(zero.kind, Kind::rank);
    EXPECT_EQ(zero.rank, 0u);
    EXPECT_EQ(target_of([](Request& r) {
                  r.job_flag(PMIX_FWD_STDIN, false);
                  r.job_string(PMIX_STDIN_TGT, "all");
              }).kind,
              Kind::none);
    pmix_proc_t wildcard;
    PMIX_LOAD_PROCID(&wildcard, "ns", PMIX_RANK_WILDCARD);
    EXPECT_EQ(target_of([&](Request& r) { r.job(PMIX_STDIN_TGT, wildcard, PMIX_PROC); }).kind, Kind::all);
    pmix_rank_t two = 2;
    EXPECT_EQ(target_of([&](Request& r) { r.job(PMIX_STDIN_TGT, two, PMIX_PROC_RANK); }).rank, 2u);

    Request bad;
    bad.app("/bin/cat", {}, 1);
    bad.job_string(PMIX_STDIN_TGT, "some");
    Job job;
    std::vector<std::string> notes;
    prte::Status st = bad.translate(job, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find(PMIX_STDIN_TGT), std::string::npos) << st.message();
}

TEST(PmixSpawnTranslate, WrongValueTypesAreErrors)
{
    Request r;
    r.app("/bin/true", {}, 1);
    r.job(PMIX_MAPBY, 3, PMIX_INT);
    Job job;
    std::vector<std::string> notes;
    prte::Status st = r.translate(job, notes);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find(PMIX_MAPBY), std::string::npos) << st.message();
}

// prun --max-restarts N (PMIX_MAX_RESTARTS) and --continuous (PMIX_JOB_CONTINUOUS): continuous
// without a limit restarts without one (-1).
TEST(PmixSpawnTranslate, RestartsOfFailedProcesses)
{
    auto restarts = [](auto fill) {
        Request r;
        r.app("/bin/true", {}, 1);
        fill(r);
        Job job;
        std::vector<std::string> notes;
        EXPECT_TRUE(r.translate(job, notes).ok());
        return std::make_pair(job.max_restarts, job.continuous);
    };
    uint32_t two = 2;
    EXPECT_EQ(restarts([](Request&) {}), std::make_pair(0, false));
    EXPECT_EQ(restarts([&](Request& r) { r.job(PMIX_MAX_RESTARTS, two, PMIX_UINT32); }), std::make_pair(2, false));
    EXPECT_EQ(restarts([](Request& r) { r.job_flag(PMIX_JOB_CONTINUOUS, true); }), std::make_pair(-1, true));
    EXPECT_EQ(restarts([&](Request& r) {
                  r.job_flag(PMIX_JOB_CONTINUOUS, true);
                  r.job(PMIX_MAX_RESTARTS, two, PMIX_UINT32);
              }),
              std::make_pair(2, true));
}

TEST(PmixSpawnTranslate, SupportedDirectivesAreListed)
{
    std::string list = prte::pmix::supported_spawn_directives();
    EXPECT_NE(list.find(PMIX_MAPBY), std::string::npos);
    EXPECT_NE(list.find(PMIX_FWD_STDOUT), std::string::npos);
}

}  // namespace
