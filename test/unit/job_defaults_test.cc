// prte's DVM-wide job defaults (runtime/job_defaults.h): what prte's --timeout, -x,
// --runtime-options and --display become, and how a job's own settings win over them.
#include "runtime/job_defaults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prte::runtime::JobDefaults;

TEST(JobDefaults, AJobWithoutItsOwnTakesTheDvms)
{
    JobDefaults d;
    d.timeout_seconds = 30;
    d.env = {"FOO=dvm"};
    d.reports.map = true;
    d.recoverable = true;
    prte::runtime::Job job;
    job.apps.resize(2);
    job.apps[1].env = {"FOO=job"};
    prte::runtime::apply_job_defaults(d, job);
    EXPECT_EQ(job.timeout_seconds, 30);
    EXPECT_TRUE(job.reports.map);
    EXPECT_TRUE(job.recoverable);
    ASSERT_EQ(job.apps[0].env, std::vector<std::string>{"FOO=dvm"});
    // The DVM's first: the job's own setting of the same name, later, wins.
    EXPECT_EQ(job.apps[1].env, (std::vector<std::string>{"FOO=dvm", "FOO=job"}));
}

TEST(JobDefaults, AJobsOwnTimeoutWins)
{
    JobDefaults d;
    d.timeout_seconds = 30;
    prte::runtime::Job job;
    job.timeout_seconds = 5;
    prte::runtime::apply_job_defaults(d, job);
    EXPECT_EQ(job.timeout_seconds, 5);
}

TEST(JobDefaults, RuntimeOptionsThatAreDefaultsAndThoseThatAreNot)
{
    JobDefaults d;
    ASSERT_TRUE(prte::runtime::parse_runtime_defaults("timeout=7,recoverable,get-stack-traces=true", d).ok());
    EXPECT_EQ(d.timeout_seconds, 7);
    EXPECT_TRUE(d.recoverable);
    EXPECT_TRUE(d.timeout_stack_traces);
    prte::Status st = prte::runtime::parse_runtime_defaults("error-nonzero-status", d);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("prun --runtime-options error-nonzero-status"), std::string::npos) << st.message();
    EXPECT_FALSE(prte::runtime::parse_runtime_defaults("timeout=soon", d).ok());
}

// prte --runtime-options autorestart / max-restarts / continuous: read as prun reads them, and
// given to a job that asks for no restarts of its own.
TEST(JobDefaults, RestartsAreDvmWideDefaults)
{
    JobDefaults d;
    ASSERT_TRUE(prte::runtime::parse_runtime_defaults("autorestart,max-restarts=2", d).ok());
    EXPECT_EQ(d.max_restarts, 2);
    EXPECT_FALSE(d.continuous);
    prte::runtime::Job plain;
    prte::runtime::apply_job_defaults(d, plain);
    EXPECT_EQ(plain.max_restarts, 2);
    prte::runtime::Job own;
    own.max_restarts = 5;
    prte::runtime::apply_job_defaults(d, own);
    EXPECT_EQ(own.max_restarts, 5) << "a job's own limit wins";

    JobDefaults c;
    ASSERT_TRUE(prte::runtime::parse_runtime_defaults("continuous", c).ok());
    EXPECT_TRUE(c.continuous);
    EXPECT_EQ(c.max_restarts, -1) << "continuous alone restarts without limit";
    JobDefaults off;
    ASSERT_TRUE(prte::runtime::parse_runtime_defaults("max-restarts=3,autorestart=false", off).ok());
    EXPECT_EQ(off.max_restarts, 0);

    JobDefaults bad;
    prte::Status st = prte::runtime::parse_runtime_defaults("autorestart", bad);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("max-restarts=N"), std::string::npos) << st.message();
    EXPECT_FALSE(prte::runtime::parse_runtime_defaults("max-restarts=-1", bad).ok());
}

TEST(JobDefaults, DisplayWords)
{
    JobDefaults d;
    ASSERT_TRUE(prte::runtime::parse_display_defaults("map,allocation,bind,topo=n1;n2", d).ok());
    EXPECT_TRUE(d.reports.map && d.reports.allocation && d.reports.bindings && d.reports.topology);
    EXPECT_EQ(d.reports.topology_hosts, (std::vector<std::string>{"n1", "n2"}));
    ASSERT_TRUE(prte::runtime::parse_display_defaults("cpus=n3", d).ok());
    EXPECT_TRUE(d.reports.cpus);
    EXPECT_EQ(d.reports.cpus_hosts, (std::vector<std::string>{"n3"}));
    EXPECT_FALSE(prte::runtime::parse_display_defaults("colours", d).ok());
}

TEST(JobDefaults, ExportedVariables)
{
    std::string a = "FOO=1", b = "FOOBAR=2", c = "OTHER=3";
    char* env[] = {a.data(), b.data(), c.data(), nullptr};
    JobDefaults d;
    ASSERT_TRUE(prte::runtime::add_exported_variable("FOO", env, d).ok());
    ASSERT_TRUE(prte::runtime::add_exported_variable("FOO*", env, d).ok());
    ASSERT_TRUE(prte::runtime::add_exported_variable("NEW=x", env, d).ok());
    EXPECT_EQ(d.env, (std::vector<std::string>{"FOO=1", "FOO=1", "FOOBAR=2", "NEW=x"}));
    prte::Status st = prte::runtime::add_exported_variable("MISSING", env, d);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("MISSING"), std::string::npos);
}

}  // namespace
