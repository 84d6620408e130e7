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
        std::printf("usage: prterun [prun options] <program> [arguments]\n"
                    "Starts a DVM for one job (prte), runs it (prun), and stops the DVM (pterm).\n"
                    "--host, --hostfile and --prtemca also apply to the DVM. See prun --help.\n");
        return args.empty() ? 2 : 0;
    }

    // The DVM gets the options that describe it; prun gets everything.
    std::vector<std::string> prte_argv = {prte, "--daemonize"};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "--host" || a == "-H" || a == "--hostfile") && i + 1 < args.size()) {
            prte_argv.insert(prte_argv.end(), {a, args[i + 1]});
        } else if ((a == "--prtemca" || a == "--mca") && i + 2 < args.size()) {
            prte_argv.insert(prte_argv.end(), {a, args[i + 1], args[i + 2]});
        } else if (!a.empty() && a[0] != '-') {
            break;  // the program and its own arguments start here
        }
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
