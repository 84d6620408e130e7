#include "tools/prun/mca_routing.h"

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::prun {
namespace {

struct Claim {
    bool open_mpi, pmix, prte;
};
constexpr Claim kOpenMpi{true, false, false};
constexpr Claim kPmix{false, true, false};
constexpr Claim kPrte{false, false, true};
constexpr Claim kOpenMpiAndPrte{true, false, true};

// Who reads a parameter, by the first part of its name (its project or framework), or by its
// first two parts where one project's framework shares its name with another project
// ("pmix_server_" is ours, "pmix_" Open MPI's framework). Open MPI 4.1's are its projects (opal,
// ompi, orte, oshmem) and frameworks (ompi_info lists them); PMIx 4.2's its frameworks
// (pmix_info). Where two claim a name:
//  - Open MPI 4.1's runtime frameworks (ORTE's: plm, ras, rmaps, odls, oob, errmgr, grpcomm,
//    state, rml, iof) are prte's: the DVM is the job's runtime, as mpirun was;
//  - hwloc_ and mca_ go to both: each reads its own topology and component settings;
//  - pmix_, pstat_, dl_, if_ and reachable_ go to Open MPI, as PRRTE's ompi personality sends them.
const std::map<std::string, Claim, std::less<>>& claims()
{
    static const std::map<std::string, Claim, std::less<>> table = {
        // Open MPI 4.1: projects, then OPAL's, OMPI's, OSHMEM's and ORTE's own frameworks.
        {"opal", kOpenMpi}, {"ompi", kOpenMpi}, {"orte", kOpenMpi}, {"oshmem", kOpenMpi},
        {"allocator", kOpenMpi}, {"backtrace", kOpenMpi}, {"btl", kOpenMpi}, {"compress", kOpenMpi},
        {"crs", kOpenMpi}, {"dl", kOpenMpi}, {"event", kOpenMpi}, {"if", kOpenMpi}, {"installdirs", kOpenMpi},
        {"memchecker", kOpenMpi}, {"memcpy", kOpenMpi}, {"memory", kOpenMpi}, {"mpool", kOpenMpi},
        {"patcher", kOpenMpi}, {"pmix", kOpenMpi}, {"pstat", kOpenMpi}, {"rcache", kOpenMpi},
        {"reachable", kOpenMpi}, {"shmem", kOpenMpi}, {"timer", kOpenMpi}, {"threads", kOpenMpi},
        {"mpi", kOpenMpi}, {"bml", kOpenMpi}, {"coll", kOpenMpi}, {"fbtl", kOpenMpi}, {"fcoll", kOpenMpi},
        {"fs", kOpenMpi}, {"hook", kOpenMpi}, {"io", kOpenMpi}, {"mtl", kOpenMpi}, {"op", kOpenMpi},
        {"osc", kOpenMpi}, {"pml", kOpenMpi}, {"rte", kOpenMpi}, {"sharedfp", kOpenMpi}, {"topo", kOpenMpi},
        {"vprotocol", kOpenMpi}, {"atomic", kOpenMpi}, {"memheap", kOpenMpi}, {"scoll", kOpenMpi},
        {"spml", kOpenMpi}, {"sshmem", kOpenMpi}, {"ess", kOpenMpi}, {"filem", kOpenMpi}, {"regx", kOpenMpi},
        {"routed", kOpenMpi}, {"rtc", kOpenMpi}, {"schizo", kOpenMpi}, {"snapc", kOpenMpi}, {"sstore", kOpenMpi},
        // PMIx 4.2's frameworks.
        {"bfrops", kPmix}, {"gds", kPmix}, {"pcompress", kPmix}, {"pdl", kPmix}, {"pfexec", kPmix},
        {"pif", kPmix}, {"pinstalldirs", kPmix}, {"plog", kPmix}, {"pmdl", kPmix}, {"pnet", kPmix},
        {"preg", kPmix}, {"prm", kPmix}, {"psec", kPmix}, {"psensor", kPmix}, {"pshmem", kPmix},
        {"psquash", kPmix}, {"pstrg", kPmix}, {"ptl", kPmix}, {"ploc", kPmix}, {"pgpu", kPmix},
        // prte: its own project and frameworks, then the runtime frameworks Open MPI 4.1 also had.
        {"prte", kPrte}, {"pmi", kPrte}, {"pmix_server", kPrte},
        {"plm", kPrte}, {"ras", kPrte}, {"rmaps", kPrte}, {"odls", kPrte}, {"oob", kPrte}, {"errmgr", kPrte},
        {"grpcomm", kPrte}, {"state", kPrte}, {"rml", kPrte}, {"iof", kPrte},
        {"hwloc", kOpenMpiAndPrte}, {"mca", kOpenMpiAndPrte},
    };
    return table;
}

// The name's first part ("btl" of "btl_tcp_if_include"), and its first two ("btl_tcp").
std::string_view parts(std::string_view name, int count)
{
    size_t end = 0;
    for (int i = 0; i < count; ++i) {
        end = name.find('_', end ? end + 1 : 0);
        if (end == std::string_view::npos) return i + 1 == count ? name : std::string_view{};
    }
    return name.substr(0, end);
}

const Claim* claim_of(std::string_view name)
{
    for (int count : {2, 1}) {
        std::string_view key = parts(name, count);
        if (key.empty()) continue;
        auto it = claims().find(key);
        if (it != claims().end()) return &it->second;
    }
    return nullptr;
}

bool listed_prefix(std::string_view name, const char* prefixes)
{
    for (const std::string& p : util::split(prefixes, ',')) {
        std::string prefix(util::trim(p));
        if (!prefix.empty() && name.substr(0, prefix.size()) == prefix) return true;
    }
    return false;
}

Status bad_line(const std::string& path, int line, const std::string& why)
{
    return {Errc::bad_param, fmt::format("{}:{}: {}", path, line, why)};
}

bool is_name(const std::string& s)
{
    if (s.empty()) return false;
    for (unsigned char c : s) {
        if (!std::isalnum(c) && c != '_') return false;
    }
    return true;
}

}  // namespace

McaOwners mca_owners(std::string_view name, Personality personality, const char* ompi_prefixes)
{
    const Claim* claim = claim_of(name);
    McaOwners owners;
    if (personality == Personality::prte) {
        // As before routing: prte's, unless a PMIx framework's.
        if (claim && claim->pmix) owners.pmix = true;
        else owners.prte = true;
        return owners;
    }
    if (claim) owners = {claim->open_mpi, claim->pmix, claim->prte};
    if (ompi_prefixes) owners.open_mpi = listed_prefix(name, ompi_prefixes);
    return owners;
}

Status read_param_file(const std::string& path, std::vector<McaSetting>& mca)
{
    std::ifstream in(path);
    if (!in) return {Errc::not_found, fmt::format("-am {}: cannot read the file", path)};
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        std::string body(util::trim(text.substr(0, text.find('#'))));
        if (body.empty()) continue;
        size_t eq = body.find('=');
        std::string name(eq == std::string::npos ? std::string_view{} : util::trim(std::string_view(body).substr(0, eq)));
        if (!is_name(name)) return bad_line(path, line, fmt::format("expected 'name = value', found '{}'", body));
        mca.emplace_back(name, std::string(util::trim(std::string_view(body).substr(eq + 1))));
    }
    return {};
}

Status read_tune_file(const std::string& path, std::vector<McaSetting>& mca, std::vector<std::string>& exports)
{
    std::ifstream in(path);
    if (!in) return {Errc::not_found, fmt::format("--tune {}: cannot read the file", path)};
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        std::istringstream words(text.substr(0, text.find('#')));
        std::string word;
        while (words >> word) {
            if (word == "-mca" || word == "--mca") {
                std::string name, value;
                if (!(words >> name >> value) || !is_name(name)) {
                    return bad_line(path, line, fmt::format("{} needs a parameter name and a value", word));
                }
                mca.emplace_back(name, value);
            } else if (word == "-x") {
                std::string var;
                if (!(words >> var) || !is_name(var.substr(0, var.find('=')))) {
                    return bad_line(path, line, "-x needs NAME or NAME=value");
                }
                exports.push_back(var);
            } else {
                return bad_line(path, line, fmt::format("'{}': a tune file holds only -mca NAME VALUE and -x NAME[=VALUE]", word));
            }
        }
    }
    return {};
}

}  // namespace prte::prun
