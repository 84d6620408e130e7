#include "mca/base/framework.h"

#include <algorithm>

#include <fmt/format.h>

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "util/strings.h"

namespace prte::mca {

SelectionList SelectionList::parse(const std::string& text, std::string* error)
{
    SelectionList list;
    std::string_view body = util::trim(text);
    if (!body.empty() && body.front() == '^') {
        list.exclude = true;
        body.remove_prefix(1);
    }
    for (auto& raw : util::split(body, ',')) {
        std::string name(util::trim(raw));
        if (name.empty()) continue;
        if (name.front() == '^') {
            if (error) *error = "'^' may only start the list (\"^a,b\" excludes both a and b)";
            return {};
        }
        list.names.push_back(name);
    }
    if (list.exclude && list.names.empty() && error) *error = "'^' must be followed by component names";
    return list;
}

bool SelectionList::allows(const std::string& name) const
{
    if (names.empty()) return true;
    bool listed = std::find(names.begin(), names.end(), name) != names.end();
    return exclude ? !listed : listed;
}

Framework::Framework(std::string name, uint32_t interface_version, SelectMode mode, std::string description)
    : name_(std::move(name)),
      interface_version_(interface_version),
      mode_(mode),
      description_(std::move(description)),
      verbose_(name_)
{
}

Framework::~Framework() = default;

void Framework::register_params(ParamRegistry& registry)
{
    registry.register_string(
        {name_, "", ""}, "",
        fmt::format("Which {} components to use: a comma-separated include list (\"a,b\") or exclude list "
                    "(\"^a,b\"); empty means all. {}",
                    name_, mode_ == SelectMode::multi ? "Every available listed component is used, in priority order."
                                                      : "The available one with the highest priority is used."));
    Param& v = registry.register_int(
        {name_, "base", "verbose"}, 0,
        fmt::format("Verbosity of the {} framework (0 silent, 5 progress, 10 details)", name_), {.min = 0});
    verbose_.set_level(static_cast<int>(v.as_int()));
    register_base_params(registry);
}

Status Framework::check_selection(const ParamRegistry& registry, const ComponentRepository& repository) const
{
    const Param* p = registry.find(name_);
    if (!p) return {};
    std::string error;
    SelectionList list = SelectionList::parse(p->as_string(), &error);
    if (!error.empty()) {
        return {Errc::bad_param, fmt::format("bad value '{}' for parameter {} (from {}): {}", p->as_string(), name_,
                                             p->origin().describe(), error)};
    }
    std::vector<std::string> known = repository.names(name_);
    for (const auto& n : list.names) {
        if (std::find(known.begin(), known.end(), n) == known.end()) {
            return {Errc::not_found,
                    fmt::format("unknown {} component '{}' in parameter {} (from {}); available: {}", name_, n, name_,
                                p->origin().describe(), known.empty() ? "none" : util::join(known, ", "))};
        }
    }
    return {};
}

Status Framework::open(ParamRegistry& registry, ComponentRepository& repository)
{
    if (open_) return {};
    register_params(registry);
    if (Status st = check_selection(registry, repository); !st) return st;
    std::string ignored;
    SelectionList list = SelectionList::parse(registry.find(name_)->as_string(), &ignored);

    repository.load(name_, interface_version_);
    // Asking by name for a component that cannot be loaded is an error here. Other refused files
    // are only reported (runtime::report_load_failures), so one bad .so cannot take the runtime down.
    if (!list.exclude) {
        for (const auto& wanted : list.names) {
            if (const LoadFailure* failure = repository.failure_for(name_, wanted)) {
                return {Errc::refused, failure->describe()};
            }
        }
    }
    for (const LoadedComponent* lc : repository.load(name_, interface_version_)) {
        Candidate c;
        c.descriptor = lc->descriptor;
        c.path = lc->file.path;
        if (!list.allows(lc->file.name)) {
            c.status = list.exclude ? "excluded by the selection list" : "not in the selection list";
            verbose_(5, "component {} {}", lc->file.name, c.status);
            candidates_.push_back(std::move(c));
            continue;
        }
        if (lc->descriptor->register_params) lc->descriptor->register_params(registry);
        std::string why;
        if (lc->descriptor->open && !lc->descriptor->open(why)) {
            c.status = "open failed: " + (why.empty() ? std::string("no reason given") : why);
            verbose_(5, "component {} {}", lc->file.name, c.status);
        } else {
            c.opened = true;
            verbose_(10, "component {} opened from {}", lc->file.name, lc->file.path);
        }
        candidates_.push_back(std::move(c));
    }
    open_ = true;
    return {};
}

Status Framework::select(const QueryContext& context)
{
    selected_.clear();
    std::vector<std::string> unavailable;
    for (auto& c : candidates_) {
        if (!c.opened) continue;
        QueryResult result;
        c.descriptor->query(context, result);
        if (result.priority < 0 || !result.module) {
            c.status = "not available: " + (result.reason.empty() ? std::string("no reason given") : result.reason);
            unavailable.push_back(fmt::format("{} ({})", c.descriptor->name, c.status));
            verbose_(5, "component {} {}", c.descriptor->name, c.status);
            continue;
        }
        if (!accepts(*result.module)) {
            c.status = fmt::format("refused: its module is not a {} module", name_);
            unavailable.push_back(fmt::format("{} ({})", c.descriptor->name, c.status));
            output::warning("component {} ({}) {}", c.descriptor->name, c.path, c.status);
            continue;
        }
        verbose_(5, "component {} available with priority {}", c.descriptor->name, result.priority);
        selected_.push_back({c.descriptor, result.priority, std::move(result.module)});
    }
    std::stable_sort(selected_.begin(), selected_.end(),
                     [](const Selected& a, const Selected& b) { return a.priority > b.priority; });
    if (selected_.empty()) {
        return {Errc::not_found,
                fmt::format("no {} component is available{}{}", name_, unavailable.empty() ? "" : ": ",
                            util::join(unavailable, "; "))};
    }
    if (mode_ == SelectMode::single) selected_.resize(1);
    for (const auto& s : selected_) {
        verbose_(5, "selected component {} (priority {})", s.descriptor->name, s.priority);
    }
    return {};
}

void Framework::close()
{
    selected_.clear();  // modules die here; the shared objects stay loaded
    for (auto& c : candidates_) {
        if (c.opened && c.descriptor->close) c.descriptor->close();
    }
    candidates_.clear();
    close_base();
    open_ = false;
}

}  // namespace prte::mca
