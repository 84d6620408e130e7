#include "mca/plm/base/plm_messages.h"

#include <csignal>
#include <cstring>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "rml/buffer.h"
#include "rml/preload_codec.h"
#include "runtime/states.h"

namespace prte::plm::msg {
namespace {

// Every decoder ends here: the first error the reader met (bytes that do not parse or a value out
// of range, named by message and field), or bytes left over after the last field.
Status finish(rml::Reader& r)
{
    r.expect_end();
    if (!r.ok()) return {Errc::bad_file, r.error()};
    return {};
}

// A daemon's URI lists one address per interface it listens on.
constexpr size_t kMaxUri = 4096;

// A daemon's rank as a message may carry it: below the most daemons a DVM can have.
runtime::Rank daemon_rank(rml::Reader& r, const char* what)
{
    runtime::Rank rank = r.u32();
    if (r.ok() && rank >= rml::kMaxDaemons) {
        r.fail(fmt::format("{} {} is beyond the {} daemons a DVM may have", what, rank, rml::kMaxDaemons));
    }
    return rank;
}

// A signal number kill(2) accepts (0: none).
int32_t signal_number(rml::Reader& r, const char* what)
{
    int32_t sig = r.i32();
    if (r.ok() && (sig < 0 || sig > SIGRTMAX)) r.fail(fmt::format("{} {} is not a signal", what, sig));
    return sig;
}

// A state the process state machine names (runtime/states.h): any other integer would index its
// table of callbacks as a state nobody defined. undef is never reported.
runtime::ProcState proc_state(rml::Reader& r)
{
    int32_t value = r.i32();
    auto state = static_cast<runtime::ProcState>(value);
    if (r.ok() && (state == runtime::ProcState::undef ||
                   std::strcmp(runtime::to_string(state), "PRTE_PROC_STATE_UNKNOWN") == 0)) {
        r.fail(fmt::format("{} is not a process state", value));
        return runtime::ProcState::undef;
    }
    return state;
}

}  // namespace

rml::Payload encode(const DaemonReport& d)
{
    rml::Writer w;
    w.u32(d.rank).str(d.node_name).str(d.uri);
    w.i32(d.topology.packages).i32(d.topology.numa_domains).i32(d.topology.cores).i32(d.topology.hwthreads);
    w.str(d.topology_xml).str(d.machine);
    return w.take();
}

Status decode(const rml::Payload& in, DaemonReport& d)
{
    rml::Reader r(in, "daemon report");
    d.rank = daemon_rank(r, "daemon");
    d.node_name = r.name("node name");
    if (r.ok() && d.node_name.empty()) r.fail("no node name");
    d.uri = r.name("URI", kMaxUri);
    for (int32_t* count : {&d.topology.packages, &d.topology.numa_domains, &d.topology.cores, &d.topology.hwthreads}) {
        *count = r.i32();
        if (r.ok() && *count < 0) r.fail(fmt::format("a negative count ({}) in the node's topology", *count));
    }
    d.topology_xml = r.str();
    d.machine = r.name("machine", 320);  // a host name (255 at most), a space, a boot id
    return finish(r);
}

std::string topology_xml_to_send(std::string xml)
{
    // hwloc writes each info on a line of its own and escapes quotes in values (&quot;), so the
    // attribute ends at the first "/> after it.
    constexpr std::string_view kHostName = "<info name=\"HostName\" value=\"";
    size_t at = xml.find(kHostName);
    if (at == std::string::npos) return xml;
    size_t end = xml.find("\"/>", at + kHostName.size());
    if (end == std::string::npos) return xml;
    size_t line_start = xml.rfind('\n', at);
    size_t line_end = xml.find('\n', end);
    // The whole line, indentation and newline included, when it holds nothing else.
    bool own_line = line_start != std::string::npos && line_end != std::string::npos &&
                    xml.find_first_not_of(" \t", line_start + 1) == at && line_end == end + 3;
    if (own_line) {
        xml.erase(line_start + 1, line_end - line_start);
    } else {
        xml.erase(at, end + 3 - at);
    }
    return xml;
}

rml::Payload encode(const Wireup& wu)
{
    rml::Writer w;
    w.u32(wu.size).u32(static_cast<uint32_t>(wu.daemons.size()));
    for (const auto& d : wu.daemons) w.u32(d.rank).str(d.node_name).str(d.uri).i32(d.slots).u8(d.allocated ? 1 : 0);
    w.u32(static_cast<uint32_t>(wu.departed.size()));
    for (auto r : wu.departed) w.u32(r);
    return w.take();
}

// The rank span sizes every daemon's routing tree and the lists below index by rank: each is
// bounded before it is used, and every rank is in the span and named once.
Status decode(const rml::Payload& in, Wireup& wu)
{
    rml::Reader r(in, "wireup");
    wu.size = r.u32();
    if (r.ok() && (wu.size == 0 || wu.size > rml::kMaxDaemons)) {
        r.fail(fmt::format("a DVM of {} daemons (1 to {} allowed)", wu.size, rml::kMaxDaemons));
    }
    std::set<runtime::Rank> named;
    auto in_span = [&](runtime::Rank rank, const char* what) {
        if (!r.ok()) return;
        if (rank >= wu.size) {
            r.fail(fmt::format("{} {} is beyond the DVM's {} ranks", what, rank, wu.size));
        } else if (!named.insert(rank).second) {
            r.fail(fmt::format("daemon {} is named twice", rank));
        }
    };
    uint32_t n = r.count("daemons");
    if (r.ok() && n > wu.size) r.fail(fmt::format("{} daemons in a DVM of {}", n, wu.size));
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        WireupEntry e;
        e.rank = r.u32();
        in_span(e.rank, "daemon");
        e.node_name = r.name("node name");
        if (r.ok() && e.node_name.empty()) r.fail(fmt::format("daemon {} has no node name", e.rank));
        e.uri = r.name("URI", kMaxUri);
        e.slots = r.i32();
        if (r.ok() && e.slots < 0) r.fail(fmt::format("daemon {}'s node has {} slots", e.rank, e.slots));
        uint8_t allocated = r.u8();
        if (r.ok() && allocated > 1) r.fail(fmt::format("{} is not a yes or no", allocated));
        e.allocated = allocated != 0;
        wu.daemons.push_back(std::move(e));
    }
    uint32_t gone = r.count("departed daemons");
    if (r.ok() && gone > wu.size) r.fail(fmt::format("{} departed daemons in a DVM of {}", gone, wu.size));
    for (uint32_t i = 0; i < gone && r.ok(); ++i) {
        runtime::Rank rank = r.u32();
        in_span(rank, "departed daemon");
        wu.departed.push_back(rank);
    }
    return finish(r);
}

rml::Payload encode(const DaemonCommand& c)
{
    rml::Writer w;
    w.u8(static_cast<uint8_t>(c.command)).str(c.nspace).i32(c.signal);
    if (c.command == Command::shrink || c.command == Command::restart_procs) {
        w.u32(static_cast<uint32_t>(c.targets.size()));
        for (auto r : c.targets) w.u32(r);
    }
    return w.take();
}

Status decode(const rml::Payload& in, DaemonCommand& c)
{
    rml::Reader r(in, "daemon command");
    uint8_t cmd = r.u8();
    if (r.ok() && (cmd < static_cast<uint8_t>(Command::exit) || cmd > static_cast<uint8_t>(Command::restart_procs))) {
        r.fail(fmt::format("unknown command {}", cmd));
    }
    c.command = static_cast<Command>(cmd);
    c.nspace = r.name("namespace", PMIX_MAX_NSLEN);
    c.signal = signal_number(r, "signal");
    if (r.ok() && c.command == Command::shrink) {
        uint32_t n = r.count("shrink targets");
        for (uint32_t i = 0; i < n && r.ok(); ++i) c.targets.push_back(daemon_rank(r, "shrink target"));
    }
    if (r.ok() && c.command == Command::restart_procs) {
        uint32_t n = r.count("ranks to restart");
        for (uint32_t i = 0; i < n && r.ok(); ++i) {
            uint32_t rank = r.u32();
            if (r.ok() && rank >= PMIX_RANK_VALID) r.fail(fmt::format("rank to restart {} is not a process's rank", rank));
            c.targets.push_back(rank);
        }
    }
    return finish(r);
}

rml::Payload encode_job(const runtime::Job& job, bool with_preload)
{
    rml::Writer w;
    w.str(job.nspace).u32(static_cast<uint32_t>(job.apps.size()));
    for (const auto& app : job.apps) {
        w.i32(app.index).str(app.executable).strings(app.argv).strings(app.env).str(app.working_dir).i32(app.num_procs);
        w.u32(with_preload ? static_cast<uint32_t>(app.preload.size()) : 0);
        if (with_preload) {
            for (const runtime::PreloadFile& file : app.preload) w.bytes(rml::encode_preload(file));
        }
    }
    w.u8(static_cast<uint8_t>(job.mapping.bind_to));
    w.u8(static_cast<uint8_t>((job.mapping.bind_overload_allowed ? 1 : 0) | (job.mapping.bind_if_supported ? 2 : 0)));
    // The policies, for what the processes are told (PMIx); each process's CPUs come with it below.
    w.u8(static_cast<uint8_t>(job.mapping.by)).u8(static_cast<uint8_t>(job.mapping.ppr_object));
    w.u8(static_cast<uint8_t>(job.stdin_target.kind)).u32(job.stdin_target.rank);
    w.u8(job.reports.bindings ? 1 : 0);  // the only report a daemon makes (--report-bindings)
    w.u8(static_cast<uint8_t>(job.mpi));  // what each process is given to find its peers (prun --mpi)
    // The process that spawned it, when that is a process of a job (PMIX_PARENT_ID for the
    // children, wherever they run); empty for a job a tool spawned.
    bool spawned_by_job = job.originator && !job.is_daemon_job && job.originator->nspace[0] != '\0' &&
                          job.originator->rank < PMIX_RANK_VALID;
    w.str(spawned_by_job ? std::string(job.originator->nspace) : std::string());
    w.u32(spawned_by_job ? job.originator->rank : 0);
    w.u32(static_cast<uint32_t>(job.procs.size()));
    for (const auto& p : job.procs) {
        w.u32(p->rank).i32(p->app_index).str(p->node ? p->node->name : std::string()).i32(p->local_rank).i32(p->node_rank);
        // Where the master's placement bound it (rmaps/base): the daemon only applies it.
        w.str(p->cpuset).str(p->binding);
    }
    return w.take();
}

Status decode_job(const rml::Payload& in, runtime::NodePool& pool, runtime::JobPtr& out)
{
    rml::Reader r(in, "launch message");
    auto job = std::make_shared<runtime::Job>();
    job->nspace = r.name("namespace", PMIX_MAX_NSLEN);
    if (r.ok() && job->nspace.empty()) r.fail("no namespace");
    uint32_t napps = r.count("apps");
    for (uint32_t i = 0; i < napps && r.ok(); ++i) {
        runtime::AppContext app;
        app.index = r.i32();
        if (r.ok() && app.index < 0) r.fail(fmt::format("app index {}", app.index));
        app.executable = r.str();
        app.argv = r.strings();
        app.env = r.strings();
        app.working_dir = r.str();
        app.num_procs = r.i32();
        if (r.ok() && app.num_procs < 0) r.fail(fmt::format("app {} has {} processes", app.index, app.num_procs));
        uint32_t npreload = r.count("preloaded files");
        uint64_t preload_bytes = 0;
        for (uint32_t k = 0; k < npreload && r.ok(); ++k) {
            runtime::PreloadFile file;
            if (Status st = rml::decode_preload(r.bytes(), file); !st && r.ok()) r.fail(st.message());
            preload_bytes += file.content.size();
            if (r.ok() && preload_bytes > runtime::kMaxPreloadBytes) {
                r.fail(fmt::format("app {} preloads more than {} bytes", app.index, runtime::kMaxPreloadBytes));
            }
            app.preload.push_back(std::move(file));
        }
        job->apps.push_back(std::move(app));
    }
    uint8_t bind = r.u8();
    if (r.ok() && bind > static_cast<uint8_t>(runtime::BindTo::l3cache)) r.fail(fmt::format("unknown binding {}", bind));
    job->mapping.bind_to = static_cast<runtime::BindTo>(bind);
    uint8_t bind_flags = r.u8();
    if (r.ok() && bind_flags > 3) r.fail(fmt::format("unknown binding qualifiers {:#x}", bind_flags));
    job->mapping.bind_overload_allowed = (bind_flags & 1) != 0;
    job->mapping.bind_if_supported = (bind_flags & 2) != 0;
    uint8_t map_by = r.u8();
    uint8_t ppr_object = r.u8();
    if (r.ok() && (map_by > static_cast<uint8_t>(runtime::MapBy::pe_list) ||
                   ppr_object > static_cast<uint8_t>(runtime::MapBy::pe_list))) {
        r.fail(fmt::format("unknown mapping policy {} (ppr object {})", map_by, ppr_object));
    }
    job->mapping.by = static_cast<runtime::MapBy>(map_by);
    job->mapping.ppr_object = static_cast<runtime::MapBy>(ppr_object);
    uint8_t stdin_kind = r.u8();
    if (r.ok() && stdin_kind > static_cast<uint8_t>(runtime::StdinTarget::Kind::all)) {
        r.fail(fmt::format("unknown stdin target {}", stdin_kind));
    }
    job->stdin_target.kind = static_cast<runtime::StdinTarget::Kind>(stdin_kind);
    job->stdin_target.rank = r.u32();
    uint8_t report_bindings = r.u8();
    if (r.ok() && report_bindings > 1) r.fail(fmt::format("report-bindings flag {}", report_bindings));
    job->reports.bindings = report_bindings == 1;
    uint8_t mpi = r.u8();
    if (r.ok() && mpi > static_cast<uint8_t>(runtime::MpiInterface::none)) r.fail(fmt::format("unknown --mpi {}", mpi));
    job->mpi = static_cast<runtime::MpiInterface>(mpi);
    std::string parent = r.name("parent namespace", PMIX_MAX_NSLEN);
    uint32_t parent_rank = r.u32();
    if (r.ok() && !parent.empty()) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, parent.c_str(), parent_rank);
        job->originator = proc;
    }
    uint32_t nprocs = r.count("processes");
    for (uint32_t i = 0; i < nprocs && r.ok(); ++i) {
        auto proc = std::make_unique<runtime::Proc>();
        proc->rank = r.u32();
        if (r.ok() && proc->rank != i) r.fail(fmt::format("process {} comes in place {}", proc->rank, i));
        proc->app_index = r.i32();
        if (r.ok() && (proc->app_index < 0 || static_cast<size_t>(proc->app_index) >= napps)) {
            r.fail(fmt::format("rank {} belongs to app {} of {}", proc->rank, proc->app_index, napps));
        }
        std::string node = r.name("node name");
        proc->node = r.ok() ? pool.find(node) : nullptr;
        if (r.ok() && !proc->node) r.fail(fmt::format("rank {} is placed on unknown node '{}'", proc->rank, node));
        proc->local_rank = r.i32();
        proc->node_rank = r.i32();
        if (r.ok() && (proc->local_rank < 0 || proc->node_rank < 0)) {
            r.fail(fmt::format("rank {} has local rank {} and node rank {}", proc->rank, proc->local_rank, proc->node_rank));
        }
        proc->cpuset = r.str();
        proc->binding = r.str();
        if (r.ok() && proc->cpuset.find_first_not_of("0123456789,-") != std::string::npos) {
            r.fail(fmt::format("rank {} has CPU list '{}'", proc->rank, proc->cpuset));
        }
        job->procs.push_back(std::move(proc));
    }
    if (Status st = finish(r); !st) return st;
    out = std::move(job);
    return {};
}

rml::Payload encode(const ProcUpdate& u)
{
    rml::Writer w;
    w.str(u.nspace).u32(u.rank).i32(static_cast<int32_t>(u.state)).i32(u.pid).i32(u.exit_code).i32(u.term_signal).str(
        u.message);
    return w.take();
}

Status decode(const rml::Payload& in, ProcUpdate& u)
{
    rml::Reader r(in, "process update");
    u.nspace = r.name("namespace", PMIX_MAX_NSLEN);
    u.rank = r.u32();
    u.state = proc_state(r);
    u.pid = r.i32();
    if (r.ok() && u.pid < 0) r.fail(fmt::format("pid {}", u.pid));
    u.exit_code = r.i32();
    u.term_signal = signal_number(r, "terminating signal");
    u.message = r.str();
    return finish(r);
}

rml::Payload encode(const Output& o)
{
    rml::Writer w;
    w.str(o.nspace).u32(o.rank).u32(o.channel).bytes(o.data);
    return w.take();
}

Status decode(const rml::Payload& in, Output& o)
{
    rml::Reader r(in, "output");
    o.nspace = r.name("namespace", PMIX_MAX_NSLEN);
    o.rank = r.u32();
    uint32_t channel = r.u32();
    // One of the channels a process writes to (a daemon forwards each chunk on its own channel).
    if (r.ok() && channel != PMIX_FWD_STDOUT_CHANNEL && channel != PMIX_FWD_STDERR_CHANNEL &&
        channel != PMIX_FWD_STDDIAG_CHANNEL) {
        r.fail(fmt::format("{:#x} is not an output channel", channel));
    }
    o.channel = static_cast<pmix_iof_channel_t>(channel);
    o.data = r.bytes();
    return finish(r);
}

rml::Payload encode_ranks(const std::vector<runtime::Rank>& ranks)
{
    rml::Writer w;
    w.u32(static_cast<uint32_t>(ranks.size()));
    for (auto r : ranks) w.u32(r);
    return w.take();
}

Status decode_ranks(const rml::Payload& in, std::vector<runtime::Rank>& out)
{
    rml::Reader r(in, "daemon list");
    uint32_t n = r.count("daemons");
    for (uint32_t i = 0; i < n && r.ok(); ++i) out.push_back(daemon_rank(r, "daemon"));
    return finish(r);
}

rml::Payload encode(const StackTraces& t)
{
    rml::Writer w;
    w.str(t.nspace).u32(t.daemon).str(t.node.node).str(t.node.note);
    w.u32(static_cast<uint32_t>(t.node.traces.size()));
    for (const auto& trace : t.node.traces) w.u32(trace.rank).i32(trace.pid).str(trace.text);
    return w.take();
}

Status decode(const rml::Payload& in, StackTraces& out)
{
    rml::Reader r(in, "stack traces");
    out = {};
    out.nspace = r.name("namespace", PMIX_MAX_NSLEN);
    out.daemon = daemon_rank(r, "daemon");
    out.node.node = r.name("node name");
    if (r.ok() && out.node.node.empty()) r.fail("no node name");
    out.node.note = r.str();
    // Each trace packs at least a rank, a pid and a string.
    uint32_t n = r.count("stack traces", 3);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        runtime::StackTrace trace;
        trace.rank = r.u32();
        trace.pid = r.i32();
        if (r.ok() && trace.pid <= 0) r.fail(fmt::format("rank {} has pid {}", trace.rank, trace.pid));
        trace.text = r.str();
        out.node.traces.push_back(std::move(trace));
    }
    return finish(r);
}

rml::Payload encode(const Silence& s)
{
    rml::Writer w;
    w.u32(s.rank);
    w.u64(s.silent_ms);
    return w.take();
}

Status decode(const rml::Payload& in, Silence& out)
{
    rml::Reader r(in, "daemon silence");
    out.rank = daemon_rank(r, "daemon");
    out.silent_ms = r.u64();
    return finish(r);
}

}  // namespace prte::plm::msg
