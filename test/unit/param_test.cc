// The parameter registry: types, precedence of every source, provenance, and bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mca/base/param.h"
#include "temp_dir.h"

using prte::mca::ParamRegistry;
using prte::mca::ParamSource;

using prte::test::TempDir;

TEST(ParamTest, DefaultValueAndTypes)
{
    ParamRegistry r;
    auto& i = r.register_int({"ras", "base", "verbose"}, 3, "verbosity");
    auto& b = r.register_bool({"prte", "", "elastic_mode"}, false, "elastic");
    auto& s = r.register_string({"plm", "ssh", "agent"}, "ssh", "agent");
    EXPECT_EQ(i.full_name(), "ras_base_verbose");
    EXPECT_EQ(b.full_name(), "prte_elastic_mode");
    EXPECT_EQ(s.full_name(), "plm_ssh_agent");
    EXPECT_EQ(i.as_int(), 3);
    EXPECT_FALSE(b.as_bool());
    EXPECT_EQ(s.as_string(), "ssh");
    EXPECT_EQ(i.origin().source, ParamSource::default_value);
    EXPECT_TRUE(r.errors().empty());
}

TEST(ParamTest, EachSourceOverridesTheOneBelow)
{
    TempDir dir;
    std::string system = dir.write("system.conf", "x_y_z = 1\n");
    std::string user = dir.write("user.conf", "# comment\n\nx_y_z = 2\n");
    std::string env_entry = "PRTE_MCA_x_y_z=3";
    char* env[] = {env_entry.data(), nullptr};

    ParamRegistry r;
    auto& p = r.register_int({"x", "y", "z"}, 0, "test");
    EXPECT_EQ(p.as_int(), 0);
    ASSERT_TRUE(r.load_file(system, ParamSource::system_file).ok());
    EXPECT_EQ(p.as_int(), 1);
    EXPECT_EQ(p.origin().source, ParamSource::system_file);
    EXPECT_EQ(p.origin().where, system + ":1");
    ASSERT_TRUE(r.load_file(user, ParamSource::user_file).ok());
    EXPECT_EQ(p.as_int(), 2);
    EXPECT_EQ(p.origin().where, user + ":3");
    r.load_environment(env);
    EXPECT_EQ(p.as_int(), 3);
    EXPECT_EQ(p.origin().source, ParamSource::environment);
    EXPECT_EQ(p.origin().describe(), "environment PRTE_MCA_x_y_z");
    r.set("x_y_z", "4", {ParamSource::command_line, "--prtemca x_y_z"});
    EXPECT_EQ(p.as_int(), 4);
    EXPECT_EQ(p.origin().source, ParamSource::command_line);
}

TEST(ParamTest, PrecedenceHoldsWhateverOrderSourcesArrive)
{
    ParamRegistry r;
    r.set("a_b", "cmd", {ParamSource::command_line, ""});
    r.set("a_b", "env", {ParamSource::environment, ""});
    r.set("a_b", "user", {ParamSource::user_file, ""});
    // Registered after the settings arrived: the highest source still wins.
    auto& p = r.register_string({"a", "", "b"}, "default", "test");
    EXPECT_EQ(p.as_string(), "cmd");
    EXPECT_EQ(p.origin().source, ParamSource::command_line);
}

TEST(ParamTest, StandardSourcesReadSysconfdirAndHome)
{
    TempDir dir;
    dir.write("prte-mca-params.conf", "s_t_u = from-system\ns_t_v = from-system\n");
    std::filesystem::create_directories(dir.path() + "/home/.prte");
    dir.write("home/.prte/mca-params.conf", "s_t_v = from-user\n");
    std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
    setenv("PRTE_SYSCONFDIR", dir.path().c_str(), 1);
    setenv("HOME", (dir.path() + "/home").c_str(), 1);
    char* env[] = {nullptr};
    ParamRegistry r;
    prte::Status st = r.load_standard_sources(env);
    setenv("HOME", old_home.c_str(), 1);
    unsetenv("PRTE_SYSCONFDIR");
    ASSERT_TRUE(st.ok()) << st.message();
    auto& u = r.register_string({"s", "t", "u"}, "d", "test");
    auto& v = r.register_string({"s", "t", "v"}, "d", "test");
    EXPECT_EQ(u.as_string(), "from-system");
    EXPECT_EQ(u.origin().source, ParamSource::system_file);
    EXPECT_EQ(v.as_string(), "from-user");
    EXPECT_EQ(v.origin().source, ParamSource::user_file);
    EXPECT_EQ(v.origin().where, dir.path() + "/home/.prte/mca-params.conf:1");
}

TEST(ParamTest, MalformedParamFileNamesFileAndLine)
{
    TempDir dir;
    std::string f = dir.write("bad.conf", "a_b = 1\nthis line has no equals sign\n");
    ParamRegistry r;
    prte::Status st = r.load_file(f, ParamSource::user_file);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), f + ":2: expected 'name = value', found 'this line has no equals sign'");
    std::string g = dir.write("bad2.conf", "bad-name = 1\n");
    st = r.load_file(g, ParamSource::user_file);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(g + ":1:"), std::string::npos);
}

TEST(ParamTest, MissingParamFileIsNotAnError)
{
    ParamRegistry r;
    EXPECT_TRUE(r.load_file("/nonexistent/prte-mca-params.conf", ParamSource::system_file).ok());
}

TEST(ParamTest, BadValueIsReportedAndTheNextSourceUsed)
{
    ParamRegistry r;
    r.set("ras_base_verbose", "2", {ParamSource::environment, "PRTE_MCA_ras_base_verbose"});
    r.set("ras_base_verbose", "lots", {ParamSource::command_line, "--prtemca ras_base_verbose"});
    auto& p = r.register_int({"ras", "base", "verbose"}, 0, "verbosity");
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "bad value 'lots' for parameter ras_base_verbose (from command line --prtemca "
                             "ras_base_verbose): expected an integer");
    EXPECT_EQ(p.as_int(), 2);
    EXPECT_EQ(p.origin().source, ParamSource::environment);
}

// Issue 14, item 6: `--prtemca rml_radix 0` and `-1` used to start a DVM silently.
TEST(ParamTest, IntegerOutsideItsRangeIsReportedAndTheNextSourceUsed)
{
    ParamRegistry r;
    r.set("rml_radix", "8", {ParamSource::environment, "PRTE_MCA_rml_radix"});
    r.set("rml_radix", "0", {ParamSource::command_line, "--prtemca rml_radix"});
    auto& p = r.register_int({"rml", "", "radix"}, 64, "width", {1, 1024});
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "bad value '0' for parameter rml_radix (from command line --prtemca rml_radix): "
                             "expected an integer from 1 to 1024");
    EXPECT_EQ(p.as_int(), 8);
    EXPECT_EQ(p.origin().source, ParamSource::environment);

    r.clear_errors();
    r.set("rml_radix", "-1", {ParamSource::command_line, "--prtemca rml_radix"});
    r.set("rml_radix", "1025", {ParamSource::environment, "PRTE_MCA_rml_radix"});
    ASSERT_FALSE(r.errors().empty());
    EXPECT_NE(r.errors().back().find("bad value '1025' for parameter rml_radix"), std::string::npos)
        << r.errors().back();
    EXPECT_EQ(p.as_int(), 64);  // nothing valid left: the default
}

TEST(ParamTest, RangeBoundsAreIncludedAndOneSidedRangesSaySo)
{
    ParamRegistry r;
    auto& p = r.register_int({"a", "", "b"}, 1, "test", {1, 4});
    r.set("a_b", "4", {ParamSource::command_line, ""});
    EXPECT_EQ(p.as_int(), 4);
    r.set("a_b", "1", {ParamSource::command_line, ""});
    EXPECT_EQ(p.as_int(), 1);
    EXPECT_TRUE(r.errors().empty());
    EXPECT_EQ(p.range().describe(), "from 1 to 4");

    auto& v = r.register_int({"c", "base", "verbose"}, 0, "test", {.min = 0});
    EXPECT_EQ(v.range().describe(), "at least 0");
    r.set("c_base_verbose", "-3", {ParamSource::command_line, "--prtemca c_base_verbose"});
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_NE(r.errors()[0].find("expected an integer at least 0"), std::string::npos) << r.errors()[0];

    auto& u = r.register_int({"d", "", "e"}, 0, "test");
    EXPECT_FALSE(u.range().bounded());
    r.set("d_e", "-9000000000", {ParamSource::command_line, ""});
    EXPECT_EQ(u.as_int(), -9000000000);
}

TEST(ParamTest, DefaultOutsideItsRangeIsAnError)
{
    ParamRegistry r;
    r.register_int({"a", "", "b"}, 0, "test", {1, 4});
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "default value '0' of parameter a_b is invalid: expected an integer from 1 to 4");
}

TEST(ParamTest, BooleansAcceptCommonSpellings)
{
    ParamRegistry r;
    auto& p = r.register_bool({"b", "", "flag"}, false, "flag");
    for (const char* yes : {"1", "true", "yes", "on", "TRUE"}) {
        r.set("b_flag", yes, {ParamSource::command_line, ""});
        EXPECT_TRUE(p.as_bool()) << yes;
        EXPECT_EQ(p.value_text(), "true");
    }
    r.set("b_flag", "0", {ParamSource::command_line, ""});
    EXPECT_FALSE(p.as_bool());
    r.set("b_flag", "maybe", {ParamSource::command_line, ""});
    EXPECT_EQ(r.errors().size(), 1u);
    EXPECT_NE(r.errors()[0].find("expected a boolean"), std::string::npos);
}

TEST(ParamTest, UnknownEnumValueIsAnError)
{
    ParamRegistry r;
    r.set("prte_set_policy", "sockets", {ParamSource::command_line, "--prtemca prte_set_policy"});
    auto& p = r.register_enum({"prte", "", "set_policy"}, "cores", {"cores", "hwthreads", "packages"}, "how");
    EXPECT_EQ(p.as_string(), "cores");
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "bad value 'sockets' for parameter prte_set_policy (from command line --prtemca "
                             "prte_set_policy): expected one of: cores, hwthreads, packages");
}

TEST(ParamTest, ValidatorRejectsValue)
{
    ParamRegistry r;
    r.set("v_w", "nope", {ParamSource::environment, "PRTE_MCA_v_w"});
    auto& p = r.register_string({"v", "", "w"}, "ok", "test", [](const std::string& v) -> std::optional<std::string> {
        if (v == "nope") return "nope is not allowed";
        return std::nullopt;
    });
    EXPECT_EQ(p.as_string(), "ok");
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_NE(r.errors()[0].find("nope is not allowed"), std::string::npos);
}

TEST(ParamTest, EnvironmentIgnoresOtherVariables)
{
    std::string a = "PRTE_MCA_q_r=5", b = "PATH=/bin", c = "PRTE_MCA_=x", d = "PRTE_MCA_noequals";
    char* env[] = {a.data(), b.data(), c.data(), d.data(), nullptr};
    ParamRegistry r;
    r.load_environment(env);
    auto& p = r.register_int({"q", "", "r"}, 0, "test");
    EXPECT_EQ(p.as_int(), 5);
    auto unmatched = r.unmatched_settings();
    EXPECT_TRUE(unmatched.empty());
}

TEST(ParamTest, UnmatchedSettingsAreListed)
{
    ParamRegistry r;
    r.set("ras_hots_file", "x", {ParamSource::command_line, "--prtemca ras_hots_file"});
    auto unmatched = r.unmatched_settings();
    ASSERT_EQ(unmatched.size(), 1u);
    EXPECT_EQ(unmatched[0].first, "ras_hots_file");
    EXPECT_EQ(r.unmatched_warnings(),
              std::vector<std::string>{"unknown parameter 'ras_hots_file' (from command line --prtemca ras_hots_file) "
                                       "is ignored; 'prte_info --param all all' lists every parameter"});
}

TEST(ParamTest, ExplicitSettingsCarryTheWinningValueForDaemons)
{
    ParamRegistry r;
    r.set("a_b", "env", {ParamSource::environment, ""});
    r.set("a_b", "cmd", {ParamSource::command_line, ""});
    r.set("c_d", "file", {ParamSource::user_file, ""});
    auto settings = r.explicit_settings();
    ASSERT_EQ(settings.size(), 2u);
    EXPECT_EQ(settings[0], (std::pair<std::string, std::string>{"a_b", "cmd"}));
    EXPECT_EQ(settings[1], (std::pair<std::string, std::string>{"c_d", "file"}));
}

TEST(ParamTest, RegisteringAgainWithTheSameTypeReturnsTheFirst)
{
    // A framework opened twice registers its parameters twice: that is not an error.
    ParamRegistry r;
    auto& first = r.register_int({"ras", "base", "verbose"}, 3, "verbosity");
    auto& again = r.register_int({"ras", "base", "verbose"}, 7, "verbosity");
    EXPECT_EQ(&first, &again);
    EXPECT_EQ(again.as_int(), 3);
    EXPECT_TRUE(r.errors().empty());
}

TEST(ParamTest, RegisteringAgainWithAnotherTypeIsAnError)
{
    ParamRegistry r;
    auto& first = r.register_int({"ras", "base", "verbose"}, 3, "verbosity");
    auto& again = r.register_string({"ras", "base", "verbose"}, "high", "verbosity");
    EXPECT_EQ(&first, &again);
    EXPECT_EQ(again.type(), prte::mca::ParamType::integer);
    EXPECT_EQ(again.as_int(), 3);
    ASSERT_EQ(r.errors().size(), 1u);
    EXPECT_EQ(r.errors()[0], "parameter ras_base_verbose is registered twice with different types (int, then "
                             "string): the second registration is refused");
    r.register_bool({"ras", "base", "verbose"}, true, "verbosity");
    r.register_enum({"ras", "base", "verbose"}, "a", {"a"}, "verbosity");
    EXPECT_EQ(r.errors().size(), 3u);
}
