// The DVM registry: what publish writes, how stale entries of dead DVMs disappear, and how each
// selector (--dvm-uri, --dvm pid:/file:/uri:/ns:, none) resolves — including the ambiguity error.
#include "runtime/dvm_registry.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace {

namespace registry = prte::runtime::dvm_registry;
using prte::test::TempDir;

// Points TMPDIR at a private directory for the test, restoring it afterwards.
class DvmRegistry : public ::testing::Test {
  protected:
    void SetUp() override
    {
        const char* old = std::getenv("TMPDIR");
        had_tmpdir_ = old != nullptr;
        if (old) old_tmpdir_ = old;
        setenv("TMPDIR", tmp_.path().c_str(), 1);
    }
    void TearDown() override
    {
        registry::unpublish();
        for (pid_t child : children_) {
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
        }
        if (had_tmpdir_) {
            setenv("TMPDIR", old_tmpdir_.c_str(), 1);
        } else {
            unsetenv("TMPDIR");
        }
    }

    // Writes a registry file as another DVM would.
    std::string write_entry(pid_t pid, const std::string& uri, const std::string& nspace, int64_t started)
    {
        std::filesystem::create_directories(registry::directory());
        chmod(registry::directory().c_str(), 0700);
        char host[256] = {};
        gethostname(host, sizeof(host) - 1);
        std::string path = registry::directory() + "/dvm." + std::to_string(pid);
        std::ofstream(path) << "uri=" << uri << "\npid=" << pid << "\nnspace=" << nspace << "\nhost=" << host
                            << "\nstarted=" << started << "\n";
        return path;
    }

    // A live process that is not us: a child that sleeps until the test ends.
    pid_t sleeping_child()
    {
        pid_t pid = fork();
        if (pid == 0) {
            pause();
            _exit(0);
        }
        children_.push_back(pid);
        return pid;
    }

    // The pid of a process that has exited and been reaped.
    static pid_t dead_pid()
    {
        pid_t pid = fork();
        if (pid == 0) _exit(0);
        waitpid(pid, nullptr, 0);
        return pid;
    }

    TempDir tmp_;
    std::vector<pid_t> children_;
    bool had_tmpdir_ = false;
    std::string old_tmpdir_;
};

TEST_F(DvmRegistry, DirectoryFollowsTmpdir)
{
    EXPECT_EQ(registry::directory(), tmp_.path() + "/prte." + std::to_string(getuid()));
}

TEST_F(DvmRegistry, PublishWritesEveryFieldPrivately)
{
    ASSERT_TRUE(registry::publish("ns.0;tcp4://127.0.0.1:5000", "prte-dvm@0").ok());
    std::string path = registry::directory() + "/dvm." + std::to_string(getpid());
    ASSERT_TRUE(std::filesystem::exists(path));

    struct stat st {};
    ASSERT_EQ(stat(registry::directory().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);

    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    registry::Entry entry;
    ASSERT_TRUE(registry::parse(text, path, entry).ok());
    EXPECT_EQ(entry.uri, "ns.0;tcp4://127.0.0.1:5000");
    EXPECT_EQ(entry.pid, getpid());
    EXPECT_EQ(entry.nspace, "prte-dvm@0");
    EXPECT_FALSE(entry.host.empty());
    EXPECT_LE(std::abs(entry.started - static_cast<int64_t>(time(nullptr))), 5);

    // No temporary file is left beside it.
    int files = 0;
    for (const auto& f : std::filesystem::directory_iterator(registry::directory())) {
        (void)f;
        ++files;
    }
    EXPECT_EQ(files, 1);

    registry::unpublish();
    EXPECT_FALSE(std::filesystem::exists(path));
    registry::unpublish();  // twice is harmless
}

TEST_F(DvmRegistry, PublishRefusesADirectoryThatIsNotADirectory)
{
    std::ofstream(registry::directory()) << "in the way\n";
    prte::Status st = registry::publish("uri", "ns");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("not a directory owned by this user"), std::string::npos) << st.message();
}

TEST_F(DvmRegistry, StaleEntryOfADeadPidIsRemoved)
{
    std::string stale = write_entry(dead_pid(), "dead.0;tcp4://127.0.0.1:1", "dead", time(nullptr));
    EXPECT_TRUE(registry::list().empty());
    EXPECT_FALSE(std::filesystem::exists(stale)) << "a dead DVM's file must be deleted";
}

TEST_F(DvmRegistry, EntryOfAReusedPidIsStale)
{
    // Our own pid, but the file claims a DVM published long before this process started.
    std::string stale = write_entry(getpid(), "old.0;tcp4://127.0.0.1:1", "old", 1000000000);
    EXPECT_TRUE(registry::list().empty());
    EXPECT_FALSE(std::filesystem::exists(stale));
}

TEST_F(DvmRegistry, DamagedFileIsRemoved)
{
    std::filesystem::create_directories(registry::directory());
    std::string path = registry::directory() + "/dvm.12345";
    std::ofstream(path) << "garbage\n";
    EXPECT_TRUE(registry::list().empty());
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(DvmRegistry, NoDvmIsAOneLineErrorSayingWhatToDo)
{
    registry::Entry entry;
    prte::Status st = registry::locate({}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "no DVM is running for this user: start one with 'prte --daemonize' (or use prterun)");
}

TEST_F(DvmRegistry, TheSingleLiveDvmIsChosen)
{
    write_entry(dead_pid(), "dead.0;tcp4://127.0.0.1:1", "dead", time(nullptr));
    ASSERT_TRUE(registry::publish("live.0;tcp4://127.0.0.1:2", "live").ok());
    registry::Entry entry;
    prte::Status st = registry::locate({}, entry);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(entry.pid, getpid());
    EXPECT_EQ(entry.uri, "live.0;tcp4://127.0.0.1:2");
    EXPECT_EQ(entry.nspace, "live");
}

TEST_F(DvmRegistry, TwoLiveDvmsAreAmbiguousAndBothListed)
{
    ASSERT_TRUE(registry::publish("mine.0;tcp4://127.0.0.1:2", "mine").ok());
    pid_t other = sleeping_child();
    write_entry(other, "other.0;tcp4://127.0.0.1:3", "other", time(nullptr));

    registry::Entry entry;
    prte::Status st = registry::locate({}, entry);
    ASSERT_FALSE(st.ok());
    const std::string& m = st.message();
    std::string first_line = m.substr(0, m.find('\n'));
    EXPECT_EQ(first_line, "2 DVMs are running for this user: choose one with --dvm pid:<n>");
    EXPECT_NE(m.find("pid " + std::to_string(getpid())), std::string::npos) << m;
    EXPECT_NE(m.find("pid " + std::to_string(other)), std::string::npos) << m;
    EXPECT_NE(m.find("mine.0;tcp4://127.0.0.1:2"), std::string::npos) << m;
    EXPECT_NE(m.find("other.0;tcp4://127.0.0.1:3"), std::string::npos) << m;
    EXPECT_NE(m.find("started "), std::string::npos) << m;

    // Choosing by pid resolves it.
    ASSERT_TRUE(registry::locate({"", "pid:" + std::to_string(other)}, entry).ok());
    EXPECT_EQ(entry.uri, "other.0;tcp4://127.0.0.1:3");
    EXPECT_EQ(entry.nspace, "other");
    ASSERT_TRUE(registry::locate({"", std::to_string(getpid())}, entry).ok());
    EXPECT_EQ(entry.nspace, "mine");
    ASSERT_TRUE(registry::locate({"", "ns:other"}, entry).ok());
    EXPECT_EQ(entry.pid, other);
}

TEST_F(DvmRegistry, UnknownPidListsTheRunningOnes)
{
    ASSERT_TRUE(registry::publish("mine.0;tcp4://127.0.0.1:2", "mine").ok());
    registry::Entry entry;
    prte::Status st = registry::locate({"", "pid:" + std::to_string(dead_pid())}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("is running for this user; running:\n  pid " + std::to_string(getpid())),
              std::string::npos)
        << st.message();
}

TEST_F(DvmRegistry, DvmUriGivenDirectlyOrInAFile)
{
    registry::Entry entry;
    ASSERT_TRUE(registry::locate({"ns9.0;tcp4://127.0.0.1:9", ""}, entry).ok());
    EXPECT_EQ(entry.uri, "ns9.0;tcp4://127.0.0.1:9");
    EXPECT_EQ(entry.nspace, "ns9");
    EXPECT_EQ(entry.pid, 0);

    std::string file = tmp_.write("uri.txt", "ns8.0;tcp4://127.0.0.1:8\n");
    ASSERT_TRUE(registry::locate({"file:" + file, ""}, entry).ok());
    EXPECT_EQ(entry.uri, "ns8.0;tcp4://127.0.0.1:8");
    ASSERT_TRUE(registry::locate({"", "file:" + file}, entry).ok());
    EXPECT_EQ(entry.uri, "ns8.0;tcp4://127.0.0.1:8");
    ASSERT_TRUE(registry::locate({"", "uri:ns7.0;tcp4://127.0.0.1:7"}, entry).ok());
    EXPECT_EQ(entry.nspace, "ns7");

    prte::Status st = registry::locate({"file:" + tmp_.path("missing"), ""}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("--dvm-uri: cannot read"), std::string::npos) << st.message();
    st = registry::locate({"file:" + tmp_.write("empty", "\n"), ""}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("holds no DVM URI"), std::string::npos) << st.message();
}

// Issue 14, item 7: reading went through an istreambuf_iterator, and libstdc++'s filebuf throws
// from underflow when read() fails - a directory (EISDIR) here, a /proc/<pid>/stat whose process
// had just exited (ESRCH) in pterm - so the tool died with SIGABRT instead of saying what was wrong.
TEST_F(DvmRegistry, AFileThatCannotBeReadIsAOneLineErrorNotAnAbort)
{
    registry::Entry entry;
    prte::Status st = registry::locate({"file:" + tmp_.path(), ""}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("cannot read " + tmp_.path() + ": Is a directory"), std::string::npos) << st.message();
    st = registry::locate({"", "file:" + tmp_.path()}, entry);
    ASSERT_FALSE(st.ok());
}

TEST_F(DvmRegistry, AUriKnownToTheRegistryGetsItsPidAndNamespace)
{
    ASSERT_TRUE(registry::publish("reg.0;tcp4://127.0.0.1:2", "prte-reg@0").ok());
    registry::Entry entry;
    ASSERT_TRUE(registry::locate({"reg.0;tcp4://127.0.0.1:2", ""}, entry).ok());
    EXPECT_EQ(entry.pid, getpid());
    EXPECT_EQ(entry.nspace, "prte-reg@0");
}

TEST_F(DvmRegistry, BadSelectorsAreOneLineErrors)
{
    registry::Entry entry;
    for (const registry::Selector& s : {registry::Selector{"", "pid:abc"}, registry::Selector{"", "bogus:1"},
                                        registry::Selector{"u", "pid:1"}}) {
        prte::Status st = registry::locate(s, entry);
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.message().find('\n'), std::string::npos) << st.message();
    }
}

// prte --system-server marks its entry; --dvm system takes only such a DVM, system-first prefers
// it, search takes the oldest of any.
TEST_F(DvmRegistry, SystemServerSelectors)
{
    pid_t other = sleeping_child();
    write_entry(other, "other.0;tcp4://127.0.0.1:3", "other", time(nullptr));
    registry::Entry entry;
    prte::Status st = registry::locate({"", "system"}, entry);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("--system-server"), std::string::npos) << st.message();
    ASSERT_TRUE(registry::locate({"", "system-first"}, entry).ok());
    EXPECT_EQ(entry.pid, other);
    ASSERT_TRUE(registry::locate({"", "search"}, entry).ok());
    EXPECT_EQ(entry.pid, other);

    ASSERT_TRUE(registry::publish("sys.0;tcp4://127.0.0.1:4", "sys", {}, {}, true).ok());
    for (const char* which : {"system", "system-first"}) {
        st = registry::locate({"", which}, entry);
        ASSERT_TRUE(st.ok()) << which << ": " << st.message();
        EXPECT_EQ(entry.pid, getpid()) << which;
        EXPECT_TRUE(entry.system_server) << which;
    }
}

TEST(DvmRegistryUri, NamespaceIsTakenFromTheUri)
{
    EXPECT_EQ(registry::nspace_from_uri("prte-host-12@0.0;tcp4://127.0.0.1:5000"), "prte-host-12@0");
    EXPECT_EQ(registry::nspace_from_uri("tcp4://127.0.0.1:5000"), "");
    EXPECT_EQ(registry::nspace_from_uri("noranks;tcp4://x"), "");
}

}  // namespace
