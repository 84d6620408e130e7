// main() for unit tests that load the build tree's components (component_files.h): GoogleTest's
// own, except that a run whose tests were skipped because no component directory was named exits
// 77, so that CTest reports it skipped rather than passed.
#include <gtest/gtest.h>

#include <cstdio>

#include "component_files.h"

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    int status = RUN_ALL_TESTS();
    if (status == 0 && !prte::test::components_not_located().empty()) {
        std::printf("SKIP: %s\n", prte::test::components_not_located().c_str());
        return 77;
    }
    return status;
}
