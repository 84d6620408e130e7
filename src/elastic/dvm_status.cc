// What pstat shows (the query key prte.dvm.status, pmix/query.cc): the DVM's nodes (state, slots
// in use, idle for, lender), its jobs (running, waiting for nodes and why, parked and on which
// campaign) and its campaigns in progress, as a table or as JSON. Built on the master's progress
// thread from the runtime's state and the autoscaler's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "elastic/campaign_engine.h"
#include "util/strings.h"

namespace prte::elastic {
namespace {

using runtime::JobState;

std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

struct NodeRow {
    std::string name, state, lender;
    int slots = 0, in_use = 0;
    std::optional<double> idle_s;  // borrowed nodes only
};

struct JobRow {
    std::string nspace, status, why;
    size_t procs = 0;
};

struct CampaignRow {
    uint64_t id = 0;
    std::string kind, alloc_id;
    std::vector<std::string> nodes;
    double age_s = 0;
};

// What pstat shows, gathered once; the two renderings below only format it.
struct DvmView {
    bool autoscale = false;
    std::vector<NodeRow> nodes;
    std::vector<JobRow> jobs;
    std::vector<CampaignRow> campaigns;
};

std::vector<NodeRow> gather_nodes(const runtime::NodePool& pool, const Autoscaler& autoscaler)
{
    const auto borrowed = autoscaler.borrowed_idle();
    std::vector<NodeRow> nodes;
    for (const runtime::Node* node : pool.nodes()) {
        if (!node->daemon_launched && node->state == runtime::NodeState::down) continue;  // given back
        NodeRow row{node->name, runtime::to_string(node->state), {}, node->slots, node->slots_inuse, {}};
        if (node->daemon == 0) {
            row.lender = "master";
        } else if (node->alloc_id.empty()) {
            row.lender = "initial";
        } else {
            row.lender = fmt::format("{} {}{}", node->ras_component.empty() ? "?" : node->ras_component,
                                     node->alloc_id, borrowed.count(node->name) ? " (autoscale)" : "");
        }
        if (auto it = borrowed.find(node->name); it != borrowed.end()) row.idle_s = it->second;
        if (autoscaler.releasing().count(node->name)) row.state = "leaving";
        nodes.push_back(std::move(row));
    }
    return nodes;
}

// Every live job but the daemons': why it waits (its Job::waiting, in the words of what holds
// it: the autoscaler, the queue, the fence's campaigns), running, or on its way.
std::vector<JobRow> gather_jobs(const std::vector<runtime::JobPtr>& all, const Autoscaler& autoscaler,
                                const JobQueue& queue, runtime::ElasticState& state)
{
    std::map<std::string, std::string> detail;
    for (const auto& w : autoscaler.waiting()) detail[w.nspace] = w.reason;
    const auto in_queue = queue.waiting();
    size_t place = 0;
    for (const auto& w : in_queue) {
        detail[w.nspace] =
            fmt::format("{} of {} in the queue, for {:.1f} s: {}", ++place, in_queue.size(), w.waiting_s, w.reason);
    }
    for (const auto* held : {&state.held_at_map(), &state.held_at_launch()}) {
        for (const auto& p : *held) detail[p.job->nspace] = fmt::format("on campaign(s) {}", fmt::join(p.waiting_on, ","));
    }
    std::vector<JobRow> jobs;
    for (const auto& job : all) {
        if (job->is_daemon_job || !runtime::is_alive(job->state)) continue;
        JobRow row{job->nspace, {}, {}, job->num_procs()};
        switch (job->waiting) {
        case runtime::WaitReason::none: break;
        case runtime::WaitReason::fence_at_map:
        case runtime::WaitReason::fence_at_launch: row.status = "parked"; break;
        case runtime::WaitReason::autoscaler_turn:
        case runtime::WaitReason::autoscaler_nodes: row.status = "waiting"; break;
        case runtime::WaitReason::test_hold: row.status = "held"; break;
        case runtime::WaitReason::queue: row.status = "queued"; break;
        }
        if (job->waits()) {
            auto it = detail.find(job->nspace);
            row.why = it != detail.end() ? it->second : runtime::to_string(job->waiting);
        } else if (auto it = detail.find(job->nspace); it != detail.end()) {
            row.status = "waiting";  // the autoscaler's job mapping now (its turn)
            row.why = it->second;
        } else if (job->state == JobState::running) {
            row.status = "running";
        } else {
            row.status = "starting";
            row.why = runtime::to_string(job->state);
        }
        jobs.push_back(std::move(row));
    }
    return jobs;
}

std::vector<CampaignRow> gather_campaigns(runtime::ElasticState& state)
{
    std::vector<CampaignRow> campaigns;
    for (const auto& [id, c] : state.grows()) {
        campaigns.push_back({id, "grow", c.alloc_id, c.target_nodes, elapsed_ms(c.started) / 1000});
    }
    for (const auto& [id, c] : state.shrinks()) {
        campaigns.push_back({id, "shrink", c.alloc_id, c.target_nodes, elapsed_ms(c.started) / 1000});
    }
    return campaigns;
}

std::string render_json(const DvmView& view)
{
    std::string out = "{\"autoscale\":" + std::string(view.autoscale ? "true" : "false") + ",\"nodes\":[";
    for (size_t i = 0; i < view.nodes.size(); ++i) {
        const auto& n = view.nodes[i];
        out += fmt::format("{}{{\"name\":{},\"state\":{},\"slots\":{},\"slots_in_use\":{},\"idle_s\":{},\"lender\":{}}}",
                           i ? "," : "", json_string(n.name), json_string(n.state), n.slots, n.in_use,
                           n.idle_s ? fmt::format("{:.1f}", *n.idle_s) : "null", json_string(n.lender));
    }
    out += "],\"jobs\":[";
    for (size_t i = 0; i < view.jobs.size(); ++i) {
        const auto& j = view.jobs[i];
        out += fmt::format("{}{{\"nspace\":{},\"status\":{},\"procs\":{},\"why\":{}}}", i ? "," : "",
                           json_string(j.nspace), json_string(j.status), j.procs, json_string(j.why));
    }
    out += "],\"campaigns\":[";
    for (size_t i = 0; i < view.campaigns.size(); ++i) {
        const auto& c = view.campaigns[i];
        std::vector<std::string> names;
        for (const auto& n : c.nodes) names.push_back(json_string(n));
        out += fmt::format("{}{{\"id\":{},\"kind\":{},\"alloc_id\":{},\"nodes\":[{}],\"age_s\":{:.1f}}}", i ? "," : "",
                           c.id, json_string(c.kind), json_string(c.alloc_id), util::join(names, ","), c.age_s);
    }
    return out + "]}\n";
}

std::string render_table(const DvmView& view)
{
    std::string out = fmt::format("nodes: {}{}\n", view.nodes.size(), view.autoscale ? " (autoscaling)" : "");
    out += fmt::format("  {:<16} {:<10} {:>5} {:>6} {:>9}  {}\n", "NODE", "STATE", "SLOTS", "IN USE", "IDLE FOR",
                       "LENDER");
    for (const auto& n : view.nodes) {
        std::string idle = !n.idle_s ? "-" : *n.idle_s == 0 ? "busy" : fmt::format("{:.1f} s", *n.idle_s);
        out += fmt::format("  {:<16} {:<10} {:>5} {:>6} {:>9}  {}\n", n.name, n.state, n.slots, n.in_use, idle, n.lender);
    }
    out += fmt::format("jobs: {}\n", view.jobs.size());
    for (const auto& j : view.jobs) {
        out += fmt::format("  {:<24} {:<9} {:>5} proc(s){}\n", j.nspace, j.status, j.procs, j.why.empty() ? "" : "  " + j.why);
    }
    out += fmt::format("campaigns in progress: {}\n", view.campaigns.size());
    for (const auto& c : view.campaigns) {
        out += fmt::format("  campaign {} ({}, {}): node(s) {}, for {:.1f} s\n", c.id, c.kind, c.alloc_id,
                           util::join(c.nodes, ", "), c.age_s);
    }
    return out;
}

}  // namespace

std::string CampaignEngine::dvm_status(bool json) const
{
    DvmView view;
    view.autoscale = autoscaler_.enabled();
    view.nodes = gather_nodes(std::as_const(rt_.pool()), autoscaler_);
    view.jobs = gather_jobs(rt_.jobs().all(), autoscaler_, queue_, state_);
    view.campaigns = gather_campaigns(state_);
    return json ? render_json(view) : render_table(view);
}

}  // namespace prte::elastic
