// The runtime's settings as plain values. The parameters behind them (prte_node_name,
// prte_elastic_*, prte_autoscale*, prte_queue, prte_admission_*, prte_daemon_exit_timeout, prte_daemon_heartbeat_timeout, prte_stack_trace_*, the test-only prte_test_*) are registered and read by
// the program wiring (program/core_params.h); the runtime never sees the parameter registry.
#pragma once

#include <chrono>
#include <string>

namespace prte::runtime {

struct Settings {
    // This process's node; empty: the hostname. The local-node test-bed names each daemon's node.
    std::string node_name;
    // prte_elastic_mode: the DVM may grow and shrink while it runs.
    bool elastic_mode = false;
    // prte_elastic_leave_timeout: how long a daemon named by a shrink waits for its connections
    // to close before it leaves anyway.
    std::chrono::milliseconds elastic_leave_timeout{2000};
    // prte_autoscale (needs elastic_mode): jobs that do not fit wait while the DVM borrows nodes
    // for them, and idle borrowed nodes go back (src/elastic/autoscaler.h).
    bool autoscale = false;
    // prte_autoscale_max_nodes: the most nodes it may borrow at once; 0: the lender's limit.
    int autoscale_max_nodes = 0;
    // prte_autoscale_min_nodes: borrowed nodes kept however long they are idle.
    int autoscale_min_nodes = 0;
    // prte_autoscale_idle_timeout: how long a borrowed node may stay idle before it goes back.
    std::chrono::seconds autoscale_idle_timeout{60};
    // prte_autoscale_batch_ms: how long jobs that do not fit gather before their one shared grow.
    std::chrono::milliseconds autoscale_batch{20};
    // prte_queue: every job whose mapping fails only because other jobs hold the slots waits for
    // them in the DVM's queue (src/elastic/job_queue.h); off, only jobs submitted with prun --queue do.
    bool queue = false;
    // prte_admission_order: the order in which jobs that wait (in the queue, or for the
    // autoscaler's nodes) are admitted: strict arrival order, or backfill (a later job that fits
    // now runs first); prte_admission_max_passes: in backfill, how many later jobs may pass a
    // waiting one before the jobs behind it wait too (starvation is bounded).
    bool admission_strict = false;
    int admission_max_passes = 8;
    // prte_daemon_exit_timeout: from a daemon's order to exit, or its loss of the master, to its end
    // (prted's exit watchdog).
    std::chrono::seconds daemon_exit_timeout{5};
    // prte_daemon_heartbeat_timeout, resolved: after this long without a word from a daemon it is
    // declared lost (rml/heartbeat.h); 0: no heartbeat. By default 30 s in elastic mode, else off.
    std::chrono::seconds daemon_heartbeat_timeout{0};
    // prte_log_file: where the master writes its messages once the DVM is ready (prte --log-file).
    std::string log_file;
    // prte_debug_daemons_file: each daemon's lines to a file of its own beside the log (or in the
    // session directory) instead of into the master's log (prte --debug-daemons-file).
    bool debug_daemons_file = false;
    // prte_stack_trace_debugger: the gdb a daemon runs on its processes for prun --get-stack-traces
    // (a name looked up in PATH, or a path); prte_stack_trace_timeout: how long each may take
    // before it is killed, so that a debugger that hangs cannot keep a timed-out job alive.
    std::string stack_trace_debugger = "gdb";
    std::chrono::seconds stack_trace_timeout{10};
    // Testing only: prte_test_hold_launch, prte_test_wedge_on_sigusr2, prte_test_fail_shrink_order,
    // prte_test_answer_tools_after_hangup.
    bool test_hold_launch = false;
    int64_t test_answer_tools_after_hangup = 0;
    bool test_fail_shrink_order = false;
    bool test_wedge_on_sigusr2 = false;

    // The master's wait for its daemons to exit: theirs, plus a margin for the news of their exit
    // to travel back, so that a daemon ended by its own watchdog is not reported as one that did
    // not answer.
    std::chrono::seconds master_teardown_timeout() const { return daemon_exit_timeout + std::chrono::seconds(2); }
};

}  // namespace prte::runtime
