// alloc_cycles: a PMIx tool that grows and shrinks a DVM N times over one connection, for
// bench/elastic's memory figure (a new tool per request would measure PMIx's own per-connection
// cost instead, ~6.7 KB each in PMIx 4.2.2). Usage: alloc_cycles <DVM URI> <N> <node>...
// Each cycle grows onto the next node (round robin), waits for `ready`, releases it, waits for
// `released`. Prints "cycles N ok" or a one-line error.
#include <pmix_tool.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "client_util.h"

namespace {

const char* const kProgram = "alloc_cycles";

void wait_for(const std::string& id, const char* word)
{
    std::string want = id + ": " + word;
    for (int i = 0; i < 20000; ++i) {
        std::string s = prte_test::alloc_status(id);
        if (s.compare(0, want.size(), want) == 0) return;
        if (s.find(": failed") != std::string::npos) prte_test::fail(kProgram, "%s", s.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    prte_test::fail(kProgram, "allocation %s never became %s", id.c_str(), word);
}

std::string request(pmix_alloc_directive_t directive, const char* node, const std::string& id)
{
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_NODE_LIST, node, PMIX_STRING);
    if (!id.empty()) PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_ID, id.c_str(), PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t n = 0;
    pmix_status_t rc = PMIx_Allocation_request(directive, info, ninfo, &results, &n);
    if (rc != PMIX_SUCCESS) prte_test::fail(kProgram, "request for %s refused: %s", node, PMIx_Error_string(rc));
    std::string out = id;
    for (size_t i = 0; i < n; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_ALLOC_ID)) out = results[i].value.data.string;
    }
    if (results) PMIX_INFO_FREE(results, n);
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4) prte_test::fail(kProgram, "usage: alloc_cycles <DVM URI> <N> <node>...");
    pmix_info_t info[1];
    PMIx_Info_load(&info[0], PMIX_SERVER_URI, argv[1], PMIX_STRING);
    pmix_proc_t me;
    if (PMIx_tool_init(&me, info, 1) != PMIX_SUCCESS) prte_test::fail(kProgram, "cannot connect to %s", argv[1]);
    long cycles = std::strtol(argv[2], nullptr, 10);
    for (long i = 0; i < cycles; ++i) {
        const char* node = argv[3 + i % (argc - 3)];
        std::string id = request(PMIX_ALLOC_NEW, node, {});
        wait_for(id, "ready");
        request(PMIX_ALLOC_RELEASE, node, id);
        wait_for(id, "released");
    }
    std::printf("cycles %ld ok\n", cycles);
    PMIx_tool_finalize();
    return 0;
}
