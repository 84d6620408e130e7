// prterun: a DVM for one job. Starts a private prte, runs the job with prun, stops the DVM, and
// exits with the job's status: `prterun -n 4 ./app` is `prte & prun -n 4 ./app; pterm`.
//
// One-shot speed (issue 14): prte runs as prterun's own child in a session of its own (so ^C
// reaches prun, which ends the job, and not the DVM), prterun reads its "DVM ready" from a pipe
// rather than waiting for --daemonize's double fork, and stops it with SIGTERM and waitpid rather
// than starting pterm - a third program's start-up was a third of the whole.
//
// The three programs are this installation's own (found next to prterun), and they run with a
// private TMPDIR so the DVM it starts is the only one prun can find: prterun never attaches to, or
// disturbs, a DVM the user already has.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "prte_config.h"
#include "tools/prterun/signal_relay.h"
#include "tools/prun/prun_options.h"
#include "util/output.h"
#include "util/strings.h"

namespace {

namespace fs = std::filesystem;

// The directory of this program: installed, the tools sit side by side; in the build tree each
// has its own folder under src/tools.
std::string find_tool(const std::string& self, const std::string& name)
{
    fs::path dir = fs::path(self).parent_path();
    for (const fs::path& candidate : {dir / name, dir / ".." / name / name, dir / ".." / ".." / name / name}) {
        if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return {};
}

// Starts a program; its pid, or -1. `stdout_fd` >= 0 becomes its stdout, and `own_session` puts it
// in a session of its own (out of reach of the terminal's ^C).
pid_t start(const std::vector<std::string>& argv, int stdout_fd = -1, bool own_session = false)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        std::vector<char*> cargv;
        for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
        cargv.push_back(nullptr);
        if (own_session) setsid();
        signal(SIGINT, SIG_DFL);
        if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
        execv(cargv[0], cargv.data());
        prte::output::error("cannot run {}: {}", argv[0], std::strerror(errno));
        _exit(127);
    }
    return pid;
}

// Its exit status (128+N if killed by signal N).
int wait_for(pid_t pid)
{
    if (pid < 0) return 127;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

// The DVM, started in a session of its own with its stdout on a pipe: ready once it says so.
struct Dvm {
    pid_t pid = -1;
    int out = -1;  // read end of its stdout; kept open until it exits, so a late line finds a reader
};

// Starts prte; wait_until_ready() then waits for its "DVM ready" line.
bool start_dvm(const std::vector<std::string>& argv, Dvm& dvm)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    pid_t pid = start(argv, fds[1], /*own_session=*/true);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return false;
    }
    dvm.pid = pid;
    dvm.out = fds[0];
    return true;
}

// Waits for prte's "DVM ready" line (or its exit). Returns prte's exit status if it ended first
// (`dvm` is then closed), or 0.
int wait_until_ready(Dvm& dvm)
{
    std::string seen;
    char buf[512];
    while (seen.find("DVM ready") == std::string::npos) {
        ssize_t n = read(dvm.out, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {  // it exited (or closed stdout) without being ready
            close(dvm.out);
            int code = wait_for(dvm.pid);
            return code ? code : 1;
        }
        seen.append(buf, static_cast<size_t>(n));
    }
    // What prte printed before (--report-uri -, --report-pid -) is the user's.
    std::string before = seen.substr(0, seen.find("DVM ready"));
    if (!before.empty()) {
        std::fputs(before.c_str(), stdout);
        std::fflush(stdout);
    }
    return 0;
}

// One byte, or EOF: the writer is done either way.
void wait_for_word(int fd)
{
    char word;
    while (read(fd, &word, 1) < 0 && errno == EINTR) {
    }
    close(fd);
}

// SIGTERM is prte's orderly shutdown (its jobs ended, its daemons ordered out).
int stop_dvm(Dvm& dvm)
{
    kill(dvm.pid, SIGTERM);
    int status = 0;
    while (waitpid(dvm.pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(dvm.out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// PRRTE's prterun options that describe the DVM and not the job: given to prte only (prun would
// refuse them, or take --report-uri/--report-pid as its own), with how many words follow each.
// --tmpdir is prterun's own: the private directory is made under it.
int dvm_only_option(const std::string& option)
{
    static constexpr std::pair<const char*, int> kOptions[] = {
        {"--prefix", 1},        {"--noprefix", 0},         {"--launch-agent", 1},
        {"--debug-daemons", 0}, {"--debug-daemons-file", 0}, {"--leave-session-attached", 0},
        {"--report-uri", 1},    {"--report-pid", 1},       {"--tmpdir", 1},
        {"--default-hostfile", 1}, {"--keepalive", 1},     {"--set-sid", 0},
        {"--max-vm-size", 1},   {"--uniform-nodes", 0},    {"--hetero-nodes", 0},
        {"--pmix-prefix", 1},   {"--system-server", 0},    {"--log-file", 1}};
    for (const auto& [name, words] : kOptions) {
        if (option == name) return words;
    }
    return -1;
}

std::string self_path(const char* argv0)
{
    std::error_code ec;
    fs::path p = argv0;
    if (p.has_parent_path()) return fs::absolute(p, ec).string();
    const char* path = std::getenv("PATH");
    for (const auto& dir : prte::util::split(path ? path : "", ':', true)) {
        if (access((fs::path(dir) / p).c_str(), X_OK) == 0) return (fs::path(dir) / p).string();
    }
    return fs::read_symlink("/proc/self/exe", ec).string();
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("prterun");
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        // prun's options, from prun's own table: prterun passes them all to prun.
        std::string help = prte::prun::usage(
            "prterun",
            "prterun: run one job in a DVM of its own: starts the DVM (prte), runs the job (prun) and stops the DVM "
            "(pterm), exiting with the job's status.",
            "--host, --hostfile, --prtemca and a --mca naming a prte parameter also apply to the DVM. prterun's own DVM "
            "options, given to prte (see prte --help): --prefix, --noprefix, --launch-agent, --debug-daemons, "
            "--debug-daemons-file, --leave-session-attached, --report-uri, --report-pid, --default-hostfile, "
            "--keepalive, --set-sid, --max-vm-size, --uniform-nodes, --hetero-nodes, --pmix-prefix, --system-server, "
            "--log-file; --tmpdir DIR makes prterun's private directory under DIR. With --dvm pid:<n> (or any --dvm "
            "choice) the job runs in that DVM, as prun runs it; otherwise prterun never uses a DVM already running.");
        std::fputs(help.c_str(), args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::printf("prterun %s\n", PACKAGE_VERSION);
        return 0;
    }
    // After --help and --version, which must work wherever the binary is (help2man runs it in the
    // build tree, possibly before prte and prun are built).
    std::string self = self_path(argv[0]);
    std::string prte = find_tool(self, "prte"), prun = find_tool(self, "prun");
    if (prte.empty() || prun.empty()) {
        prte::output::error("cannot find prte and prun next to {}: is the installation complete?", self);
        return 1;
    }

    // The DVM gets the options that describe it; prun gets the rest.
    std::vector<std::string> prte_argv = {prte};
    std::vector<std::string> prun_args;
    std::string tmpdir;
    bool use_dvm = false;  // --dvm: an existing DVM runs the job (PRRTE's prterun --dvm)
    prte::prun::Personality personality = prte::prun::Personality::ompi;
    for (size_t i = 0; i + 1 < args.size(); ++i) {
        if ((args[i] == "--personality" || args[i] == "-personality") && args[i + 1] == "prte") {
            personality = prte::prun::Personality::prte;
        }
    }
    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!a.empty() && a[0] != '-') break;  // the program and its own arguments start here
        // PRRTE's single-dash spellings ("-host a,b") are prun's long options.
        std::string option = a.substr(0, a.find('='));
        if (option.size() > 2 && option[1] != '-' && prte::prun::option_value_words(option) == 0 &&
            (prte::prun::option_value_words("-" + option) > 0 || dvm_only_option("-" + option) >= 0)) {
            option = "-" + option;
        }
        // --hnp URI (mpirun's) is prun's --dvm-uri: that DVM runs the job, as with --dvm.
        if (option == "--dvm" || option == "--hnp") use_dvm = true;
        if (int own = dvm_only_option(option); own >= 0) {
            bool inline_value = a.find('=') != std::string::npos;
            if (own > 0 && !inline_value && i + 1 >= args.size()) {
                prte::output::error("{} needs a value (run 'prterun --help' for usage)", a);
                return 2;
            }
            std::string value = own == 0 ? std::string() : inline_value ? a.substr(a.find('=') + 1) : args[i + 1];
            if (option == "--tmpdir") {
                tmpdir = value;
            } else {
                prte_argv.push_back(option);
                if (own > 0) prte_argv.push_back(value);
            }
            if (own > 0 && !inline_value) ++i;
            continue;
        }
        prun_args.push_back(a);
        if (a.rfind("--host=", 0) == 0 || a.rfind("--hostfile=", 0) == 0) prte_argv.push_back(a);
        if (a.find('=') != std::string::npos) continue;  // "--np=2": the value is part of it
        int words = prte::prun::option_value_words(option);
        if (i + static_cast<size_t>(words) >= args.size()) {  // prun reports the missing value
            ++i;
            break;
        }
        // --mca: only a name that is prte's is the DVM's too (prte would warn of Open MPI's btl_...);
        // prun routes every one to the job's processes.
        bool dvm_param = option == "--prtemca" ||
                         ((option == "--mca" || option == "--gmca") &&
                          prte::prun::mca_owners(args[i + 1], personality, std::getenv("OMPI_MCA_PREFIXES")).prte);
        if (option == "--host" || option == "-H" || option == "--hostfile" || dvm_param) {
            prte_argv.push_back(option);
            prte_argv.insert(prte_argv.end(), args.begin() + static_cast<long>(i) + 1,
                             args.begin() + static_cast<long>(i) + 1 + words);
        }
        prun_args.insert(prun_args.end(), args.begin() + static_cast<long>(i) + 1,
                         args.begin() + static_cast<long>(i) + 1 + words);
        i += static_cast<size_t>(words);  // "-n 2", "--display map": the value is no program
    }
    prun_args.insert(prun_args.end(), args.begin() + static_cast<long>(std::min(i, args.size())), args.end());

    // --dvm: prun runs the job in that DVM; prterun starts none (its DVM options have nothing to
    // describe, and say so).
    if (use_dvm) {
        for (size_t k = 1; k < prte_argv.size(); ++k) {
            if (dvm_only_option(prte_argv[k]) >= 0) {
                prte::output::note("{}: ignored with --dvm: that DVM runs already", prte_argv[k]);
            }
        }
        std::vector<char*> cargv = {const_cast<char*>(prun.c_str())};
        for (auto& a : prun_args) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execv(prun.c_str(), cargv.data());
        prte::output::error("cannot run {}: {}", prun, std::strerror(errno));
        return 1;
    }

    const char* tmp = tmpdir.empty() ? std::getenv("TMPDIR") : tmpdir.c_str();
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/prterun.XXXXXX";
    if (!mkdtemp(pattern.data())) {
        prte::output::error("cannot create a private directory under {}: {}", tmp ? tmp : "/tmp", std::strerror(errno));
        return 1;
    }
    setenv("TMPDIR", pattern.c_str(), 1);
    // ^C reaches prun (same process group) which ends the job; prterun waits and cleans up.
    signal(SIGINT, SIG_IGN);
    // USR1 and the rest of prun's forwarded set go to prun, and on to the job (signal_relay.h).
    prte::prterun::catch_forwarded_signals(args);
    // prun may be gone before the DVM is ready (a usage error): our word to it then finds no reader.
    signal(SIGPIPE, SIG_IGN);

    // The DVM's start-up is the longest step: it starts first. prun starts next and waits for our
    // word on `ready` before it looks for the DVM: its own start-up (loading, option parsing)
    // overlaps the DVM's.
    Dvm dvm;
    bool dvm_started = start_dvm(prte_argv, dvm);
    int ready[2];
    if (pipe(ready) != 0) {
        prte::output::error("cannot create a pipe: {}", std::strerror(errno));
        return 1;
    }
    fcntl(ready[1], F_SETFD, FD_CLOEXEC);
    // prun says on `done` that it has left the DVM (PMIx finalized): stopping the DVM then overlaps
    // prun's own exit. EOF (prun died first) means the same.
    int done[2];
    if (pipe(done) != 0) {
        prte::output::error("cannot create a pipe: {}", std::strerror(errno));
        return 1;
    }
    fcntl(done[0], F_SETFD, FD_CLOEXEC);
    setenv("PRTE_PRTERUN_READY_FD", std::to_string(ready[0]).c_str(), 1);
    setenv("PRTE_PRTERUN_DONE_FD", std::to_string(done[1]).c_str(), 1);
    std::vector<std::string> prun_argv = {prun};
    prun_argv.insert(prun_argv.end(), prun_args.begin(), prun_args.end());
    pid_t prun_pid = start(prun_argv);
    if (prun_pid > 0) prte::prterun::relay_to(prun_pid);
    close(ready[0]);
    close(done[1]);
    unsetenv("PRTE_PRTERUN_READY_FD");
    unsetenv("PRTE_PRTERUN_DONE_FD");

    int status = dvm_started ? wait_until_ready(dvm) : -1;
    if (status == 0) {
        char go = 1;
        (void)!write(ready[1], &go, 1);
        close(ready[1]);
        wait_for_word(done[0]);
        prte::prterun::relay_to(0);  // prun's job is over; once reaped its pid may be another's
        int stopped = stop_dvm(dvm);
        status = wait_for(prun_pid);
        if (stopped != 0) prte::output::warning("the DVM exited with status {}", stopped);
    } else {
        close(ready[1]);  // prun sees EOF and leaves without a word
        close(done[0]);
        prte::prterun::relay_to(0);
        wait_for(prun_pid);
        prte::output::error("the DVM did not start (prte exited with status {})", status);
        status = status ? status : 1;
    }
    std::error_code ec;
    fs::remove_all(pattern, ec);
    return status;
}
