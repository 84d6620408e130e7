#include "mca/plm/base/plm_messages.h"

#include <fmt/format.h>

#include "rml/buffer.h"

namespace prte::plm::msg {
namespace {

Status finish(const rml::Reader& r)
{
    if (!r.ok()) return {Errc::bad_file, r.error()};
    return {};
}

}  // namespace

rml::Payload encode(const DaemonReport& d)
{
    rml::Writer w;
    w.u32(d.rank).str(d.node_name).str(d.uri);
    w.i32(d.topology.packages).i32(d.topology.numa_domains).i32(d.topology.cores).i32(d.topology.hwthreads);
    return w.take();
}

Status decode(const rml::Payload& in, DaemonReport& d)
{
    rml::Reader r(in, "daemon report");
    d.rank = r.u32();
    d.node_name = r.str();
    d.uri = r.str();
    d.topology.packages = r.i32();
    d.topology.numa_domains = r.i32();
    d.topology.cores = r.i32();
    d.topology.hwthreads = r.i32();
    return finish(r);
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

Status decode(const rml::Payload& in, Wireup& wu)
{
    rml::Reader r(in, "wireup");
    wu.size = r.u32();
    uint32_t n = r.u32();
    if (r.ok() && n > wu.size) return {Errc::bad_file, fmt::format("wireup: {} daemons in a DVM of {}", n, wu.size)};
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        WireupEntry e;
        e.rank = r.u32();
        e.node_name = r.str();
        e.uri = r.str();
        e.slots = r.i32();
        e.allocated = r.u8() != 0;
        if (r.ok() && e.rank >= wu.size) return {Errc::bad_file, fmt::format("wireup: daemon {} beyond the DVM's {} ranks", e.rank, wu.size)};
        wu.daemons.push_back(std::move(e));
    }
    uint32_t gone = r.u32();
    if (r.ok() && gone > wu.size) return {Errc::bad_file, fmt::format("wireup: {} departed daemons in a DVM of {}", gone, wu.size)};
    for (uint32_t i = 0; i < gone && r.ok(); ++i) {
        runtime::Rank rank = r.u32();
        if (r.ok() && rank >= wu.size) return {Errc::bad_file, fmt::format("wireup: departed daemon {} beyond the DVM's {} ranks", rank, wu.size)};
        wu.departed.push_back(rank);
    }
    return finish(r);
}

rml::Payload encode(const DaemonCommand& c)
{
    rml::Writer w;
    w.u8(static_cast<uint8_t>(c.command)).str(c.nspace).i32(c.signal);
    if (c.command == Command::shrink) {
        w.u32(static_cast<uint32_t>(c.targets.size()));
        for (auto r : c.targets) w.u32(r);
    }
    return w.take();
}

Status decode(const rml::Payload& in, DaemonCommand& c)
{
    rml::Reader r(in, "daemon command");
    uint8_t cmd = r.u8();
    c.nspace = r.str();
    c.signal = r.i32();
    if (r.ok() && (cmd < 1 || cmd > 5)) return {Errc::bad_file, fmt::format("daemon command: unknown command {}", cmd)};
    c.command = static_cast<Command>(cmd);
    if (r.ok() && c.command == Command::shrink) {
        uint32_t n = r.u32();
        if (r.ok() && n > in.size()) return {Errc::bad_file, "daemon command: absurd shrink target count"};
        for (uint32_t i = 0; i < n && r.ok(); ++i) c.targets.push_back(r.u32());
    }
    return finish(r);
}

rml::Payload encode_job(const runtime::Job& job)
{
    rml::Writer w;
    w.str(job.nspace).u32(static_cast<uint32_t>(job.apps.size()));
    for (const auto& app : job.apps) {
        w.i32(app.index).str(app.executable).strings(app.argv).strings(app.env).str(app.working_dir).i32(app.num_procs);
    }
    w.u8(static_cast<uint8_t>(job.mapping.bind_to));
    w.u8(static_cast<uint8_t>(job.stdin_target.kind)).u32(job.stdin_target.rank);
    w.u8(job.reports.bindings ? 1 : 0);  // the only report a daemon makes (--report-bindings)
    w.u32(static_cast<uint32_t>(job.procs.size()));
    for (const auto& p : job.procs) {
        w.u32(p->rank).i32(p->app_index).str(p->node ? p->node->name : std::string()).i32(p->local_rank).i32(p->node_rank);
    }
    return w.take();
}

Status decode_job(const rml::Payload& in, runtime::NodePool& pool, runtime::JobPtr& out)
{
    rml::Reader r(in, "launch message");
    auto job = std::make_shared<runtime::Job>();
    job->nspace = r.str();
    uint32_t napps = r.u32();
    if (r.ok() && napps > in.size()) return {Errc::bad_file, "launch message: absurd number of apps"};
    for (uint32_t i = 0; i < napps && r.ok(); ++i) {
        runtime::AppContext app;
        app.index = r.i32();
        app.executable = r.str();
        app.argv = r.strings();
        app.env = r.strings();
        app.working_dir = r.str();
        app.num_procs = r.i32();
        job->apps.push_back(std::move(app));
    }
    uint8_t bind = r.u8();
    uint8_t stdin_kind = r.u8();
    job->stdin_target.rank = r.u32();
    uint8_t report_bindings = r.u8();
    uint32_t nprocs = r.u32();
    if (r.ok() && (bind > static_cast<uint8_t>(runtime::BindTo::package) || stdin_kind > 2 || report_bindings > 1 ||
                   nprocs > in.size())) {
        return {Errc::bad_file, "launch message: a value out of range"};
    }
    job->mapping.bind_to = static_cast<runtime::BindTo>(bind);
    job->stdin_target.kind = static_cast<runtime::StdinTarget::Kind>(stdin_kind);
    job->reports.bindings = report_bindings == 1;
    for (uint32_t i = 0; i < nprocs && r.ok(); ++i) {
        auto proc = std::make_unique<runtime::Proc>();
        proc->rank = r.u32();
        proc->app_index = r.i32();
        std::string node = r.str();
        proc->local_rank = r.i32();
        proc->node_rank = r.i32();
        if (!r.ok()) break;
        proc->node = pool.find(node);
        if (!proc->node || proc->rank != i || proc->app_index < 0 || static_cast<size_t>(proc->app_index) >= napps) {
            return {Errc::bad_file, fmt::format("launch message for {}: rank {} is placed on unknown node '{}' or app {}",
                                                job->nspace, proc->rank, node, proc->app_index)};
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
    u.nspace = r.str();
    u.rank = r.u32();
    u.state = static_cast<runtime::ProcState>(r.i32());
    u.pid = r.i32();
    u.exit_code = r.i32();
    u.term_signal = r.i32();
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
    o.nspace = r.str();
    o.rank = r.u32();
    o.channel = static_cast<pmix_iof_channel_t>(r.u32());
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
    uint32_t n = r.u32();
    if (r.ok() && n > in.size()) return {Errc::bad_file, "daemon list: absurd length"};
    for (uint32_t i = 0; i < n && r.ok(); ++i) out.push_back(r.u32());
    return finish(r);
}

}  // namespace prte::plm::msg
