// prun: runs a job in a running DVM. Finds the DVM (dvm_registry), connects to it as a PMIx tool,
// spawns the job, relays its output (and prun's stdin to rank 0), and exits with the job's status.
//
// Exit status: the job's (the first non-zero exit code, or non-zero when a process was killed or
// the job failed to start: 127 executable not found, 126 not executable); 130/143 when ^C or
// SIGTERM ended the job; 110 when --timeout or --spawn-timeout ended it; 141 when prun's stdout reader went away ("prun ... | head"), after
// ending the job; 1 when the DVM cannot be found or reached, or went away; 2 for a usage error.
//
// This file only wires the parts together, in the order they are needed:
//   command_line       argv -> Request, or an early exit (usage error, --help, --version)
//   signals            ^C / SIGTERM / SIGHUP counted, --forward-signals queued, both waking the
//                      main loop
//   job_events         what PMIx's threads report to the main thread
//   prterun_handshake  when prterun started us alongside its DVM
//   job_control        the job's life: connect (dvm_session), spawn (spawn_request), output
//                      (output_relay), stdin (stdin_forwarder), the end (exit_status)
#include <chrono>
#include <memory>
#include <thread>
#include <optional>

#include "runtime/dvm_registry.h"
#include "tools/prun/command_line.h"
#include "tools/prun/dvm_session.h"
#include "tools/prun/job_control.h"
#include "tools/prun/job_events.h"
#include "tools/prun/prterun_handshake.h"
#include "tools/prun/signals.h"
#include "util/output.h"
#include "util/status.h"

int main(int argc, char** argv)
{
    using namespace prte;
    output::set_program_name("prun");
    prun::signals::install();

    prun::Request request;
    if (std::optional<int> exit_now = prun::read_command_line(argc, argv, request)) return *exit_now;
    output::VerboseStream trace("prun");
    if (request.verbose) trace.set_level(1);
    prun::signals::forward(request.forward_signals);

    prun::JobEvents events;
    if (Status st = events.open_wake_pipe(); !st) {
        output::error("{}", st.message());
        return 1;
    }
    prun::signals::wake_through(events.wake_write_fd());
    auto run = std::make_unique<prun::Run>(request, events, trace);

    // Started by prterun alongside its DVM, so that our own start-up overlaps the DVM's: PMIx's
    // set-up too, then wait for its word that the DVM is ready.
    prun::PrterunHandshake prterun = prun::PrterunHandshake::from_environment();
    if (prterun.must_wait_for_ready()) {
        if (Status st = run->start_pmix_early(); !st) {
            output::error("{}", st.message());
            return 1;
        }
        if (!prterun.wait_for_ready()) return 1;
    }

    if (Status st = prun::report_pid(request.report_pid); !st) {
        output::error("{}", st.message());
        return 1;
    }
    runtime::dvm_registry::Entry dvm;
    // --num-connect-retries more tries, --wait-to-connect seconds apart: for a script that starts
    // prte and prun together.
    Status found = runtime::dvm_registry::locate({request.dvm_uri, request.dvm}, dvm);
    for (int retry = 0; !found && retry < request.connect_retries && prun::signals::count() == 0; ++retry) {
        trace(1, "no DVM yet ({}): trying again in {} s", found.message(), request.connect_wait);
        std::this_thread::sleep_for(std::chrono::seconds(request.connect_wait));
        found = runtime::dvm_registry::locate({request.dvm_uri, request.dvm}, dvm);
    }
    if (!found) {
        output::error("{}", found.message());
        return 1;
    }
    trace(1, "using the DVM {}", runtime::dvm_registry::describe(dvm));

    int status = run->execute(dvm);
    prun::exit_soon_in_any_case(status);
    run.reset();  // disconnects from the DVM
    prterun.say_done();
    return status;
}
