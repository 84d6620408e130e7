// pstat: a running DVM at a glance - its nodes (state, slots in use, idle for, lender), its jobs
// (running, waiting for nodes and why, parked and on which campaign) and the campaigns in
// progress - from the master's answer to the query key prte.dvm.status (pmix/attributes.h).
//
//   pstat              a table
//   pstat --json       one JSON object: {"autoscale":..,"nodes":[..],"jobs":[..],"campaigns":[..]}
//
// Exit status: 0; 1 when no DVM is found or it does not answer (one line says why); 2 for a usage
// error.
#include <signal.h>

#include <pmix_tool.h>

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prte_config.h"
#include "runtime/dvm_registry.h"
#include "tools/cli_parse.h"
#include "tools/prun/tool_connection.h"
#include "util/output.h"

namespace {

namespace registry = prte::runtime::dvm_registry;

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'pstat --help' for usage)", message);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("pstat");
    signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string dvm_uri;
    std::string dvm;
    pid_t pid = 0;
    bool json = false;
    bool version = false;
    CLI::App app{"pstat: show a running DVM's nodes, jobs and size changes in progress", "pstat"};
    app.add_option("--dvm-uri,--uri", dvm_uri, "The DVM: its URI, or file:<path> holding it")->type_name("URI");
    app.add_option("--dvm", dvm, "The DVM: pid:<n>, file:<path>, uri:<uri> or ns:<namespace>")->type_name("SELECTOR");
    app.add_option("--pid", pid, "The DVM's pid")->type_name("PID");
    app.add_flag("--json", json, "Print one JSON object instead of the table (for scripts)");
    app.add_flag("-V,--version", version, "Show the version");
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;
    if (version) {
        std::printf("pstat %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (pid > 0 && dvm.empty()) dvm = fmt::format("pid:{}", pid);

    registry::Entry entry;
    if (prte::Status st = registry::locate({dvm_uri, dvm}, entry); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    prte::tools::ToolConnection connection;
    if (prte::Status st = connection.connect(entry, false); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    std::string text = prte::tools::query_string(json ? "prte.dvm.status.json" : "prte.dvm.status", rc);
    if (text.empty()) {
        prte::output::error("the DVM did not say how it is ({}): is it a prte of this version?",
                            prte::tools::status_text(rc));
        return 1;
    }
    std::fputs(text.c_str(), stdout);
    return 0;
}
