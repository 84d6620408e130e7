// foreign_tool: a tool that claims to belong to another user connects to the DVM, which must
// refuse it (only the DVM's owner or root may run jobs through it) and go on serving.
//
//   foreign_tool <DVM URI>
//
// PMIx sends the tool's effective uid in its handshake; this program answers libpmix's geteuid()
// with a uid that is neither root nor the DVM's owner (the executable's definition interposes the C
// library's for the shared libraries it links). Prints "refused: <PMIx status>" and exits 0 when
// PMIx_tool_init returns the refusal, "connected" and exits 1 when it is let in. (PMIx 4.2.2's tool
// library does not return after a refusal: it waits for ever once the server closes; the test
// that runs it ends it.)
#include <pmix_tool.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>

#include "client_util.h"

namespace {
const char* const program = "foreign_tool";
}

// Another user's: the real uid plus a margin, never 0.
extern "C" uid_t geteuid(void) { return getuid() + 4242; }

int main(int argc, char** argv)
{
    if (argc != 2) prte_test::fail(program, "usage: foreign_tool <DVM URI>");
    pmix_info_t info[1];
    PMIx_Info_load(&info[0], PMIX_SERVER_URI, argv[1], PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, 1);
    if (rc == PMIX_SUCCESS) {
        std::printf("connected\n");
        PMIx_tool_finalize();
        return 1;
    }
    std::printf("refused: %s\n", PMIx_Error_string(rc));
    return 0;
}
