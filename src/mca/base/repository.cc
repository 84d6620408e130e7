#include "mca/base/repository.h"

#include <dirent.h>
#include <dlfcn.h>
#include <ltdl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "mca/base/param.h"
#include "util/output.h"
#include "util/strings.h"

#ifndef PRTE_PKGLIBDIR
#define PRTE_PKGLIBDIR "/usr/local/lib/prte"
#endif

namespace prte::mca {
namespace {

// "mca_ras_hosts.so" -> {"ras", "hosts"}. Framework names have no '_'; component names may.
bool parse_component_filename(const std::string& filename, std::string& framework, std::string& name)
{
    static constexpr std::string_view prefix = "mca_";
    static constexpr std::string_view suffix = ".so";
    if (filename.size() <= prefix.size() + suffix.size()) return false;
    if (!util::starts_with(filename, prefix)) return false;
    if (filename.compare(filename.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
    std::string stem = filename.substr(prefix.size(), filename.size() - prefix.size() - suffix.size());
    size_t us = stem.find('_');
    if (us == std::string::npos || us == 0 || us + 1 == stem.size()) return false;
    framework = stem.substr(0, us);
    name = stem.substr(us + 1);
    return true;
}

std::string expand_home(const std::string& dir)
{
    if (dir.empty() || dir[0] != '~') return dir;
    const char* home = std::getenv("HOME");
    return std::string(home ? home : "") + dir.substr(1);
}

void ensure_ltdl()
{
    static bool initialized = [] { return lt_dlinit() == 0; }();
    (void)initialized;
}

}  // namespace

Module::~Module() = default;

std::string LoadFailure::describe() const
{
    return fmt::format("component {} {} ({}) refused: {}", file.framework, file.name, file.path, reason);
}

namespace {

// libltdl says "file not found" for a file that is there but is no shared object (it goes on to
// try other names): say what is wrong with the file itself, in the dynamic linker's words when it
// is an ELF object that does not load (an undefined symbol, a missing library).
std::string why_not_loadable(const std::string& path, const std::string& ltdl_error)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return fmt::format("cannot read it: {}", std::strerror(errno));
    unsigned char magic[4] = {};
    size_t n = std::fread(magic, 1, sizeof(magic), f);
    std::fclose(f);
    if (n < sizeof(magic) || magic[0] != 0x7f || magic[1] != 'E' || magic[2] != 'L' || magic[3] != 'F') {
        return "not a shared object (no ELF header)";
    }
    void* probe = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (probe) {
        dlclose(probe);
        return fmt::format("cannot be loaded: {}", ltdl_error);
    }
    const char* err = dlerror();
    return fmt::format("cannot be loaded: {}", err ? err : ltdl_error);
}

}  // namespace

ComponentRepository& ComponentRepository::instance()
{
    static ComponentRepository repository;
    return repository;
}

void ComponentRepository::register_params(ParamRegistry& registry)
{
    registry.register_string({"mca", "base", "component_path"}, PRTE_PKGLIBDIR,
                             "Colon-separated directories searched for component shared objects "
                             "(mca_<framework>_<name>.so); the first directory holding a component wins");
    registry.register_bool({"mca", "base", "component_show_load_errors"}, true,
                           "Warn about component files that cannot be loaded (broken, foreign, or built "
                           "for another interface version or other runtime types)");
}

std::vector<std::string> ComponentRepository::component_path(const ParamRegistry& registry)
{
    std::vector<std::string> out;
    const Param* p = registry.find("mca_base_component_path");
    std::string value = p ? p->as_string() : PRTE_PKGLIBDIR;
    for (auto& dir : util::split(value, ':', true)) out.push_back(expand_home(dir));
    return out;
}

void ComponentRepository::scan(const std::vector<std::string>& directories, uint64_t runtime_types)
{
    runtime_types_ = runtime_types;
    for (const auto& dir : directories) {
        DIR* d = opendir(dir.c_str());
        if (!d) continue;  // a path entry that does not exist is not an error: it may be optional
        std::vector<std::string> entries;
        while (dirent* e = readdir(d)) entries.emplace_back(e->d_name);
        closedir(d);
        std::sort(entries.begin(), entries.end());
        for (const auto& entry : entries) {
            ComponentFile file;
            if (!parse_component_filename(entry, file.framework, file.name)) continue;
            file.path = dir + "/" + entry;
            auto& by_name = files_[file.framework];
            auto it = by_name.find(file.name);
            if (it == by_name.end()) {
                by_name.emplace(file.name, file);
            } else if (it->second.path != file.path) {
                shadowed_.push_back(file);
            }
        }
    }
}

std::vector<std::string> ComponentRepository::names(const std::string& framework) const
{
    std::vector<std::string> out;
    auto it = files_.find(framework);
    if (it == files_.end()) return out;
    for (const auto& [name, file] : it->second) out.push_back(name);
    return out;
}

bool ComponentRepository::load_one(const ComponentFile& file, uint32_t interface_version)
{
    ensure_ltdl();
    auto refuse = [&](std::string reason) {
        failures_.push_back({file, std::move(reason)});
        return false;
    };
    // Never closed: a component's objects may be alive anywhere (Ceph's rule, STYLE.md).
    lt_dlhandle handle = lt_dlopen(file.path.c_str());
    if (!handle) {
        const char* err = lt_dlerror();
        return refuse(why_not_loadable(file.path, err ? err : "unknown libltdl error"));
    }
    void* sym = lt_dlsym(handle, kDescriptorSymbol);
    if (!sym) {
        return refuse(fmt::format("not a prte component: it exports no {}() function", kDescriptorSymbol));
    }
    auto fn = reinterpret_cast<prte_mca_component_descriptor_fn>(sym);
    const ComponentDescriptor* d = fn();
    if (!d || d->magic != kDescriptorMagic) {
        return refuse(fmt::format("not a prte component: {}() returned no prte descriptor", kDescriptorSymbol));
    }
    if (d->abi_version != kDescriptorAbiVersion) {
        return refuse(fmt::format("built with component descriptor ABI {}, this prte uses ABI {}: rebuild it "
                                  "against this prte's headers", d->abi_version, kDescriptorAbiVersion));
    }
    if (!d->framework || file.framework != d->framework || !d->name || file.name != d->name) {
        return refuse(fmt::format("its descriptor names {} {}, which does not match its file name",
                                  d->framework ? d->framework : "(none)", d->name ? d->name : "(none)"));
    }
    if (d->interface_version != interface_version) {
        return refuse(fmt::format("built for {} interface version {}, this prte provides version {}: rebuild it "
                                  "against this prte's headers", file.framework, d->interface_version,
                                  interface_version));
    }
    if (d->runtime_types != runtime_types_) {
        return refuse(fmt::format("built against runtime types {:016x}, this prte's are {:016x}: rebuild it "
                                  "against this prte's headers", d->runtime_types, runtime_types_));
    }
    if (!d->query) return refuse("its descriptor has no query hook");
    loaded_[file.framework][file.name] = LoadedComponent{file, d};
    return true;
}

std::vector<const LoadedComponent*> ComponentRepository::load(const std::string& framework,
                                                              uint32_t interface_version)
{
    if (!framework_loaded_[framework]) {
        framework_loaded_[framework] = true;
        auto it = files_.find(framework);
        if (it != files_.end()) {
            for (const auto& [name, file] : it->second) load_one(file, interface_version);
        }
    }
    std::vector<const LoadedComponent*> out;
    auto it = loaded_.find(framework);
    if (it != loaded_.end()) {
        for (const auto& [name, component] : it->second) out.push_back(&component);
    }
    return out;
}

const LoadFailure* ComponentRepository::failure_for(const std::string& framework, const std::string& name) const
{
    for (const auto& f : failures_) {
        if (f.file.framework == framework && f.file.name == name) return &f;
    }
    return nullptr;
}

}  // namespace prte::mca
