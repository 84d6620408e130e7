// locality: what the DVM tells a process about where it is bound, against what the kernel says.
// Prints
//   rank R cpuset C allowed A locality L peer0 P
// C: PMIX_CPUSET ("none" when not given), A: this process's Cpus_allowed_list, L: its
// PMIX_LOCALITY_STRING ("none"), P: PMIx_Get_relative_locality against rank 0's string, as Open MPI
// computes its peers' locality ("-" for rank 0 itself or when either string is missing). Exits 1
// with a one-line message when PMIx_Init fails.
#include <fstream>

#include "client_util.h"

namespace {

std::string optional_string(const pmix_proc_t* proc, const char* key)
{
    pmix_value_t* v = nullptr;
    if (PMIx_Get(proc, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return "none";
    std::string out = v->type == PMIX_STRING && v->data.string ? v->data.string : "none";
    PMIX_VALUE_RELEASE(v);
    return out;
}

std::string allowed_cpus()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
    }
    return "?";
}

}  // namespace

int main()
{
    const char* program = "locality";
    pmix_proc_t me = prte_test::init(program);
    std::string cpuset = optional_string(&me, PMIX_CPUSET);
    std::string locality = optional_string(&me, PMIX_LOCALITY_STRING);
    std::string relative = "-";
    if (me.rank != 0 && locality != "none") {
        pmix_proc_t first;
        PMIX_LOAD_PROCID(&first, me.nspace, 0);
        std::string theirs = optional_string(&first, PMIX_LOCALITY_STRING);
        pmix_locality_t rel = 0;
        if (theirs != "none" && PMIx_Get_relative_locality(locality.c_str(), theirs.c_str(), &rel) == PMIX_SUCCESS) {
            relative = std::to_string(rel);
        }
    }
    std::printf("rank %u cpuset %s allowed %s locality %s peer0 %s\n", me.rank, cpuset.c_str(), allowed_cpus().c_str(),
                locality.c_str(), relative.c_str());
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
