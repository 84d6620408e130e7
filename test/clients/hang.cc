// hang: prints "hang rank R pid P node N" (PMIX_RANK, its pid, the test-bed's node name), then
// blocks for ever in hang_in_recognisable_frame, a frame a debugger names: built with -g -O0 and
// never inlined, for prun --get-stack-traces (test job_timeout_reports). Needs no PMIx: it only
// has to be a job's process that never ends by itself.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

extern "C" __attribute__((noinline)) void hang_in_recognisable_frame()
{
    for (;;) pause();
}

int main()
{
    const char* rank = std::getenv("PMIX_RANK");
    const char* node = std::getenv("PRTE_MCA_prte_node_name");
    std::printf("hang rank %s pid %d node %s\n", rank ? rank : "?", static_cast<int>(getpid()), node ? node : "?");
    std::fflush(stdout);
    hang_in_recognisable_frame();
    return 0;
}
