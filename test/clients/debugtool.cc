// debugtool: what a parallel debugger or tool asks of the DVM through PMIx (issue 42), one
// subcommand each. Prints lines the tests grep; exits 1 with a one-line error when PMIx fails.
//
//   debugtool query URI KEY[,KEY...] [--nspace NS] [--group ID] [--pset NAME]
//       one PMIx_Query_info naming every KEY (a PMIx key string, or a short name: DEBUG_SUPPORT,
//       SPAWN_SUPPORT, NAMESPACES, PROC_TABLE, LOCAL_PROC_TABLE, NUM_GROUPS, GROUP_NAMES,
//       GROUP_MEMBERSHIP, PSET_MEMBERSHIP, NUM_PSETS, JOB_STATUS); prints "status <PMIx status>",
//       then one line per returned info: "info <key> <value>" (a string, a number, "a,b" for an
//       array of strings or of procs "ns:rank"), and for a proc table one line per process:
//       "proc <nspace> <rank> host <h> exe <e> pid <p> state <PMIx state>".
//   debugtool events URI UNTIL_FILE
//       registers for PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END and
//       PMIX_READY_FOR_DEBUG, prints
//       "ready", then "event <name> <nspace>" for each; once UNTIL_FILE exists it makes one more
//       round trip to the DVM (events sent before its answer have arrived) and exits.
//   debugtool hold-group ID UNTIL_FILE        (a job's process, not a tool)
//       constructs group ID over its whole job, prints "grouped rank R", waits for UNTIL_FILE,
//       destructs the group and finalizes.
//   debugtool app FILE                        (a job's process, not a tool)
//       PMIx_Init (where PMIx 4.2.2 holds it with PMIX_DEBUG_STOP_IN_INIT), appends "rank R past
//       init" to FILE; with PMIX_DEBUG_STOP_IN_APP for its rank it raises PMIX_READY_FOR_DEBUG
//       (PMIX_BREAKPOINT "debugtool-app") and waits for PMIX_DEBUGGER_RELEASE; then appends "rank R
//       done" and finalizes.
//   debugtool launch URI init|app NP FILE GO1 GO2 [TIMEOUT]
//       spawns NP x "debugtool app FILE" with that stop point (and PMIX_TIMEOUT seconds), prints
//       "spawned NS", "started NS" for each PMIX_EVENT_JOB_START, "ready NS breakpoint B" for each
//       PMIX_READY_FOR_DEBUG; once
//       GO1 exists releases rank 0 alone ("released 0"), once GO2 exists every rank ("released
//       all"); prints "ended NS status S" at the job's end and "ready-events N".
//   debugtool release URI NSPACE
//       sends PMIX_DEBUGGER_RELEASE to every process of NSPACE and exits.
#include <pmix_tool.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "client_util.h"

namespace {

const char* program = "debugtool";

const std::map<std::string, const char*>& short_keys()
{
    static const std::map<std::string, const char*> keys = {
        {"DEBUG_SUPPORT", PMIX_QUERY_DEBUG_SUPPORT},   {"SPAWN_SUPPORT", PMIX_QUERY_SPAWN_SUPPORT},
        {"NAMESPACES", PMIX_QUERY_NAMESPACES},         {"PROC_TABLE", PMIX_QUERY_PROC_TABLE},
        {"LOCAL_PROC_TABLE", PMIX_QUERY_LOCAL_PROC_TABLE}, {"NUM_GROUPS", PMIX_QUERY_NUM_GROUPS},
        {"GROUP_NAMES", PMIX_QUERY_GROUP_NAMES},       {"GROUP_MEMBERSHIP", PMIX_QUERY_GROUP_MEMBERSHIP},
        {"PSET_MEMBERSHIP", PMIX_QUERY_PSET_MEMBERSHIP}, {"NUM_PSETS", PMIX_QUERY_NUM_PSETS},
        {"JOB_STATUS", PMIX_QUERY_JOB_STATUS},
    };
    return keys;
}

void connect_tool(const char* uri)
{
    pmix_info_t info[1];
    PMIx_Info_load(&info[0], PMIX_SERVER_URI, uri, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, 1);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "cannot connect to %s: %s", uri, PMIx_Error_string(rc));
}

std::string proc_list(const pmix_proc_t* procs, size_t n)
{
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        if (!out.empty()) out += ",";
        out += std::string(procs[i].nspace) + ":" + std::to_string(procs[i].rank);
    }
    return out;
}

void print_info(const pmix_info_t& info)
{
    const pmix_value_t& v = info.value;
    int64_t number;
    if (v.type == PMIX_STRING) {
        std::printf("info %s %s\n", info.key, v.data.string ? v.data.string : "");
    } else if (v.type == PMIX_STATUS) {
        std::printf("info %s %s\n", info.key, PMIx_Error_string(v.data.status));
    } else if (prte_test::value_to_integer(&v, number)) {
        std::printf("info %s %lld\n", info.key, static_cast<long long>(number));
    } else if (v.type == PMIX_DATA_ARRAY && v.data.darray) {
        const pmix_data_array_t* a = v.data.darray;
        if (a->type == PMIX_STRING) {
            std::string joined;
            for (size_t i = 0; i < a->size; ++i) joined += (i ? "," : "") + std::string(static_cast<char**>(a->array)[i]);
            std::printf("info %s %s\n", info.key, joined.c_str());
        } else if (a->type == PMIX_PROC) {
            std::printf("info %s %s\n", info.key, proc_list(static_cast<pmix_proc_t*>(a->array), a->size).c_str());
        } else if (a->type == PMIX_PROC_INFO) {
            std::printf("info %s %zu process(es)\n", info.key, a->size);
            const auto* p = static_cast<const pmix_proc_info_t*>(a->array);
            for (size_t i = 0; i < a->size; ++i) {
                std::printf("proc %s %u host %s exe %s pid %d state %s\n", p[i].proc.nspace, p[i].proc.rank,
                            p[i].hostname ? p[i].hostname : "-", p[i].executable_name ? p[i].executable_name : "-",
                            static_cast<int>(p[i].pid), PMIx_Proc_state_string(p[i].state));
            }
        } else {
            std::printf("info %s array of type %s\n", info.key, PMIx_Data_type_string(a->type));
        }
    } else {
        std::printf("info %s type %s\n", info.key, PMIx_Data_type_string(v.type));
    }
}

int query(int argc, char** argv)
{
    if (argc < 4) prte_test::fail(program, "usage: debugtool query URI KEY[,KEY...] [--nspace NS] [--group ID] [--pset NAME]");
    connect_tool(argv[2]);
    pmix_query_t* q;
    PMIX_QUERY_CREATE(q, 1);
    pmix_status_t rc;
    std::stringstream keys(argv[3]);
    for (std::string key; std::getline(keys, key, ',');) {
        auto it = short_keys().find(key);
        PMIX_ARGV_APPEND(rc, q->keys, it == short_keys().end() ? key.c_str() : it->second);
    }
    std::vector<std::pair<const char*, const char*>> quals;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--nspace") == 0) quals.emplace_back(PMIX_NSPACE, argv[i + 1]);
        else if (std::strcmp(argv[i], "--group") == 0) quals.emplace_back(PMIX_GROUP_ID, argv[i + 1]);
        else if (std::strcmp(argv[i], "--pset") == 0) quals.emplace_back(PMIX_PSET_NAME, argv[i + 1]);
        else prte_test::fail(program, "unknown qualifier %s", argv[i]);
    }
    if (!quals.empty()) {
        PMIX_INFO_CREATE(q->qualifiers, quals.size());
        q->nqual = quals.size();
        for (size_t i = 0; i < quals.size(); ++i) PMIx_Info_load(&q->qualifiers[i], quals[i].first, quals[i].second, PMIX_STRING);
    }
    pmix_info_t* results = nullptr;
    size_t n = 0;
    rc = PMIx_Query_info(q, 1, &results, &n);
    std::printf("status %s\n", PMIx_Error_string(rc));
    for (size_t i = 0; i < n; ++i) print_info(results[i]);
    std::fflush(stdout);
    PMIx_tool_finalize();
    return 0;
}

// One round trip to the DVM: it answers after sending every event it raised before.
void round_trip()
{
    pmix_query_t* q;
    PMIX_QUERY_CREATE(q, 1);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, q->keys, PMIX_QUERY_NAMESPACES);
    (void) rc;
    pmix_info_t* results = nullptr;
    size_t n = 0;
    (void) PMIx_Query_info(q, 1, &results, &n);
}

std::mutex& print_lock()
{
    static std::mutex lock;
    return lock;
}

void on_job_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                  pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string nspace = "?";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            nspace = info[i].value.data.proc->nspace;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING && nspace == "?") {
            nspace = info[i].value.data.string;
        }
    }
    if (nspace == "?" && source) nspace = source->nspace;
    const char* name = status == PMIX_EVENT_JOB_START     ? "JOB_START"
                       : status == PMIX_LAUNCH_COMPLETE   ? "LAUNCH_COMPLETE"
                       : status == PMIX_EVENT_JOB_END     ? "JOB_END"
                       : status == PMIX_READY_FOR_DEBUG   ? "READY_FOR_DEBUG"
                                                          : PMIx_Error_string(status);
    {
        std::lock_guard<std::mutex> hold(print_lock());
        std::printf("event %s %s\n", name, nspace.c_str());
        std::fflush(stdout);
    }
    if (cbfunc) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void registered(pmix_status_t status, size_t, void* cbdata)
{
    *static_cast<std::atomic<int>*>(cbdata) = status == PMIX_SUCCESS ? 1 : -1;
}

int events(int argc, char** argv)
{
    if (argc != 4) prte_test::fail(program, "usage: debugtool events URI UNTIL_FILE");
    connect_tool(argv[2]);
    pmix_status_t codes[] = {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END, PMIX_READY_FOR_DEBUG};
    std::atomic<int> done{0};
    PMIx_Register_event_handler(codes, 4, nullptr, 0, on_job_event, registered, &done);
    while (done == 0) usleep(1000);
    if (done < 0) prte_test::fail(program, "cannot register for the job events");
    {
        std::lock_guard<std::mutex> hold(print_lock());
        std::printf("ready\n");
        std::fflush(stdout);
    }
    while (access(argv[3], F_OK) != 0) usleep(20000);
    round_trip();
    PMIx_tool_finalize();
    return 0;
}

int hold_group(int argc, char** argv)
{
    if (argc != 4) prte_test::fail(program, "usage: debugtool hold-group ID UNTIL_FILE");
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Init: %s", PMIx_Error_string(rc));
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t* results = nullptr;
    size_t n = 0;
    rc = PMIx_Group_construct(argv[2], &all, 1, nullptr, 0, &results, &n);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Group_construct: %s", PMIx_Error_string(rc));
    std::printf("grouped rank %u\n", me.rank);
    std::fflush(stdout);
    while (access(argv[3], F_OK) != 0) usleep(20000);
    rc = PMIx_Group_destruct(argv[2], nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Group_destruct: %s", PMIx_Error_string(rc));
    PMIx_Finalize(nullptr, 0);
    return 0;
}

void append_line(const char* file, const std::string& line)
{
    FILE* f = std::fopen(file, "a");
    if (!f) prte_test::fail(program, "cannot open %s", file);
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
}

std::atomic<bool>& app_released()
{
    static std::atomic<bool> released{false};
    return released;
}

void on_release(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t[], size_t, pmix_info_t[], size_t,
                pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    app_released() = true;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

int app(int argc, char** argv)
{
    if (argc != 3) prte_test::fail(program, "usage: debugtool app FILE");
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Init: %s", PMIx_Error_string(rc));
    append_line(argv[2], "rank " + std::to_string(me.rank) + " past init");
    pmix_value_t* val = nullptr;
    if (PMIx_Get(&me, PMIX_DEBUG_STOP_IN_APP, nullptr, 0, &val) == PMIX_SUCCESS) {
        PMIX_VALUE_RELEASE(val);
        pmix_status_t code = PMIX_DEBUGGER_RELEASE;
        std::atomic<int> done{0};
        PMIx_Register_event_handler(&code, 1, nullptr, 0, on_release, registered, &done);
        while (done == 0) usleep(1000);
        pmix_info_t info[2];
        PMIx_Info_load(&info[0], PMIX_EVENT_NON_DEFAULT, nullptr, PMIX_BOOL);
        PMIx_Info_load(&info[1], PMIX_BREAKPOINT, "debugtool-app", PMIX_STRING);
        PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &me, PMIX_RANGE_RM, info, 2, nullptr, nullptr);
        while (!app_released()) usleep(1000);
    }
    append_line(argv[2], "rank " + std::to_string(me.rank) + " done");
    PMIx_Finalize(nullptr, 0);
    return 0;
}

void send_release(const char* nspace, pmix_rank_t rank)
{
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, nspace, rank);
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_EVENT_CUSTOM_RANGE, &target, PMIX_PROC);
    PMIx_Info_load(&info[1], PMIX_EVENT_NON_DEFAULT, nullptr, PMIX_BOOL);
    pmix_status_t rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM, info, 2, nullptr, nullptr);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        prte_test::fail(program, "cannot send PMIX_DEBUGGER_RELEASE: %s", PMIx_Error_string(rc));
    }
}

// What the event handler saw, by namespace: the events may come before PMIx_Spawn returns.
struct LaunchState {
    std::mutex lock;
    std::map<std::string, int> ready_events;
    std::map<std::string, bool> ended;
};

LaunchState& launch_state()
{
    static LaunchState state;
    return state;
}

void on_launch_event(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                     pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string nspace, breakpoint = "-";
    int term = 0;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            nspace = info[i].value.data.proc->nspace;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING) {
            breakpoint = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS)) {
            term = info[i].value.data.status;
        }
    }
    LaunchState& st = launch_state();
    {
        std::lock_guard<std::mutex> hold(st.lock);
        if (status == PMIX_READY_FOR_DEBUG) {
            std::printf("ready %s breakpoint %s\n", nspace.c_str(), breakpoint.c_str());
            st.ready_events[nspace]++;
        } else if (status == PMIX_EVENT_JOB_START) {
            std::printf("started %s\n", nspace.c_str());
        } else if (status == PMIX_EVENT_JOB_END) {
            std::printf("ended %s status %d\n", nspace.c_str(), term);
            st.ended[nspace] = true;
        }
        std::fflush(stdout);
    }
    if (cbfunc) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

int launch(int argc, char** argv)
{
    if (argc != 8 && argc != 9) prte_test::fail(program, "usage: debugtool launch URI init|app NP FILE GO1 GO2 [TIMEOUT]");
    std::string mode = argv[3];
    if (mode != "init" && mode != "app") prte_test::fail(program, "unknown stop point %s", argv[3]);
    connect_tool(argv[2]);
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END, PMIX_EVENT_JOB_START};
    std::atomic<int> done{0};
    PMIx_Register_event_handler(codes, 3, nullptr, 0, on_launch_event, registered, &done);
    while (done == 0) usleep(1000);
    if (done < 0) prte_test::fail(program, "cannot register for PMIX_READY_FOR_DEBUG");

    pmix_app_t* apps;
    PMIX_APP_CREATE(apps, 1);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) prte_test::fail(program, "cannot find my own executable");
    self[n] = '\0';
    apps[0].cmd = strdup(self);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, apps[0].argv, self);
    PMIX_ARGV_APPEND(rc, apps[0].argv, "app");
    PMIX_ARGV_APPEND(rc, apps[0].argv, argv[5]);
    apps[0].maxprocs = std::atoi(argv[4]);
    pmix_info_t job[3];
    size_t njob = 0;
    PMIx_Info_load(&job[njob++], mode == "init" ? PMIX_DEBUG_STOP_IN_INIT : PMIX_DEBUG_STOP_IN_APP, nullptr, PMIX_BOOL);
    PMIx_Info_load(&job[njob++], PMIX_NOTIFY_COMPLETION, nullptr, PMIX_BOOL);
    int timeout = argc == 9 ? std::atoi(argv[8]) : 0;
    if (timeout > 0) PMIx_Info_load(&job[njob++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    char nspace[PMIX_MAX_NSLEN + 1] = {0};
    rc = PMIx_Spawn(job, njob, apps, 1, nspace);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Spawn: %s", PMIx_Error_string(rc));
    auto ended = [&] {
        std::lock_guard<std::mutex> hold(launch_state().lock);
        return launch_state().ended[nspace];
    };
    {
        std::lock_guard<std::mutex> hold(launch_state().lock);
        std::printf("spawned %s\n", nspace);
        std::fflush(stdout);
    }
    while (access(argv[6], F_OK) != 0 && !ended()) usleep(20000);
    send_release(nspace, 0);
    {
        std::lock_guard<std::mutex> hold(launch_state().lock);
        std::printf("released 0\n");
        std::fflush(stdout);
    }
    while (access(argv[7], F_OK) != 0 && !ended()) usleep(20000);
    send_release(nspace, PMIX_RANK_WILDCARD);
    {
        std::lock_guard<std::mutex> hold(launch_state().lock);
        std::printf("released all\n");
        std::fflush(stdout);
    }
    while (!ended()) usleep(20000);
    {
        std::lock_guard<std::mutex> hold(launch_state().lock);
        std::printf("ready-events %d\n", launch_state().ready_events[nspace]);
    }
    std::fflush(stdout);
    PMIx_tool_finalize();
    return 0;
}

int release(int argc, char** argv)
{
    if (argc != 4) prte_test::fail(program, "usage: debugtool release URI NSPACE");
    connect_tool(argv[2]);
    send_release(argv[3], PMIX_RANK_WILDCARD);
    // So that the event has left before the connection closes.
    round_trip();
    std::printf("released %s\n", argv[3]);
    PMIx_tool_finalize();
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::string what = argc > 1 ? argv[1] : "";
    if (what == "query") return query(argc, argv);
    if (what == "events") return events(argc, argv);
    if (what == "hold-group") return hold_group(argc, argv);
    if (what == "app") return app(argc, argv);
    if (what == "launch") return launch(argc, argv);
    if (what == "release") return release(argc, argv);
    prte_test::fail(program, "usage: debugtool query|events|hold-group|app|launch|release ... (see the top of debugtool.cc)");
}
