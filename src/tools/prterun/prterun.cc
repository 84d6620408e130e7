// prterun: a DVM for one job. Starts a private prte, runs the job with prun, stops the DVM with
// pterm, and exits with the job's status: `prterun -n 4 ./app` is `prte & prun -n 4 ./app; pterm`.
//
// The three programs are this installation's own (found next to prterun), and they run with a
// private TMPDIR so the DVM it starts is the only one prun can find: prterun never attaches to, or
// disturbs, a DVM the user already has.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "prte_config.h"
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

// Runs a program and returns its exit status (128+N if killed by signal N). `quiet_stdout` hides
// what it prints on stdout (prte's "DVM ready" is not the job's output).
int run(const std::vector<std::string>& argv, bool quiet_stdout = false)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        std::vector<char*> cargv;
        for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
        cargv.push_back(nullptr);
        signal(SIGINT, SIG_DFL);
        if (quiet_stdout) {
            int null_fd = open("/dev/null", O_WRONLY);
            if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
        }
        execv(cargv[0], cargv.data());
        prte::output::error("cannot run {}: {}", argv[0], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
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
    std::string self = self_path(argv[0]);
    std::string prte = find_tool(self, "prte"), prun = find_tool(self, "prun"), pterm = find_tool(self, "pterm");
    if (prte.empty() || prun.empty() || pterm.empty()) {
        prte::output::error("cannot find prte, prun and pterm next to {}: is the installation complete?", self);
        return 1;
    }
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        // prun's options, from prun's own table: prterun passes them all to prun.
        std::string help = prte::prun::usage(
            "prterun",
            "prterun: run one job in a DVM of its own: starts the DVM (prte), runs the job (prun) and stops the DVM "
            "(pterm), exiting with the job's status.\n"
            "  prterun [options] <program> [arguments] [: [options] <program> [arguments] ...]",
            "--host, --hostfile and --prtemca also apply to the DVM; prterun never uses a DVM already running.");
        std::fputs(help.c_str(), args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::printf("prterun %s\n", PACKAGE_VERSION);
        return 0;
    }

    // The DVM gets the options that describe it; prun gets everything.
    std::vector<std::string> prte_argv = {prte, "--daemonize"};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!a.empty() && a[0] != '-') break;  // the program and its own arguments start here
        if (a.rfind("--host=", 0) == 0 || a.rfind("--hostfile=", 0) == 0) prte_argv.push_back(a);
        if (a.find('=') != std::string::npos) continue;  // "--np=2": the value is part of it
        // PRRTE's single-dash spellings ("-host a,b") are prun's long options.
        std::string option = a;
        if (a.size() > 2 && a[1] != '-' && prte::prun::option_value_words(a) == 0 &&
            prte::prun::option_value_words("-" + a) > 0) {
            option = "-" + a;
        }
        int words = prte::prun::option_value_words(option);
        if (i + static_cast<size_t>(words) >= args.size()) break;  // prun reports the missing value
        if (option == "--host" || option == "-H" || option == "--hostfile" || option == "--prtemca" ||
            option == "--mca") {
            prte_argv.push_back(option);
            prte_argv.insert(prte_argv.end(), args.begin() + static_cast<long>(i) + 1,
                             args.begin() + static_cast<long>(i) + 1 + words);
        }
        i += static_cast<size_t>(words);  // "-n 2", "--display map": the value is no program
    }

    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/prterun.XXXXXX";
    if (!mkdtemp(pattern.data())) {
        prte::output::error("cannot create a private directory under {}: {}", tmp ? tmp : "/tmp", std::strerror(errno));
        return 1;
    }
    setenv("TMPDIR", pattern.c_str(), 1);
    // ^C reaches prun (same process group) which ends the job; prterun waits and cleans up.
    signal(SIGINT, SIG_IGN);

    int status = run(prte_argv, /*quiet_stdout=*/true);
    if (status == 0) {
        std::vector<std::string> prun_argv = {prun};
        prun_argv.insert(prun_argv.end(), args.begin(), args.end());
        status = run(prun_argv);
        int stopped = run({pterm}, /*quiet_stdout=*/true);
        if (stopped != 0) prte::output::warning("pterm exited with status {}", stopped);
    } else {
        prte::output::error("the DVM did not start (prte exited with status {})", status);
        status = status ? status : 1;
    }
    std::error_code ec;
    fs::remove_all(pattern, ec);
    return status;
}
