// logger: PMIx_Log from a client, as the standard and OpenPMIx's examples use it: a string to
// stderr (PMIX_LOG_STDERR) and a message blob (PMIX_LOG_MSG, a byte object holding text), each
// naming the rank. Prints "logger rank R ok" once PMIx_Log has returned success; any failure is a
// one-line message and exit 1.
#include <cstring>
#include <string>

#include "client_util.h"

int main()
{
    const char* program = "logger";
    pmix_proc_t me = prte_test::init(program);
    std::string text = "logger rank " + std::to_string(me.rank) + " says hello on stderr";
    std::string blob = "logger rank " + std::to_string(me.rank) + " sends a message blob\n";
    pmix_info_t data[2];
    PMIX_INFO_LOAD(&data[0], PMIX_LOG_STDERR, text.c_str(), PMIX_STRING);
    pmix_byte_object_t bo;
    bo.bytes = const_cast<char*>(blob.data());
    bo.size = blob.size() + 1;  // with its NUL, as C programs send strings as blobs
    PMIX_INFO_LOAD(&data[1], PMIX_LOG_MSG, &bo, PMIX_BYTE_OBJECT);
    pmix_status_t rc = PMIx_Log(data, 2, nullptr, 0);
    PMIX_INFO_DESTRUCT(&data[0]);
    PMIX_INFO_DESTRUCT(&data[1]);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Log failed: %s", PMIx_Error_string(rc));
    std::printf("logger rank %u ok\n", me.rank);
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
