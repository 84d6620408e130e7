// A PMIx server for the length of a test program: the wire format (rml/buffer.h) packs with
// PMIx's data buffer API, which needs PMIx initialised, as it is in every daemon. Its files go to
// a private directory removed at the end. Include from exactly one file of a test program.
#pragma once

#include <pmix.h>
#include <pmix_server.h>

#include <gtest/gtest.h>

#include <memory>

#include "temp_dir.h"

namespace prte::test {

class PmixServerEnvironment : public ::testing::Environment {
  public:
    void SetUp() override
    {
        dir_ = std::make_unique<TempDir>();
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, dir_->path().c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, dir_->path().c_str(), PMIX_STRING);
        pmix_status_t rc = PMIx_server_init(nullptr, info, 2);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        ASSERT_EQ(rc, PMIX_SUCCESS) << "PMIx_server_init: " << PMIx_Error_string(rc);
    }
    void TearDown() override
    {
        PMIx_server_finalize();
        dir_.reset();
    }

  private:
    std::unique_ptr<TempDir> dir_;
};

inline ::testing::Environment* const pmix_server_environment =
    ::testing::AddGlobalTestEnvironment(new PmixServerEnvironment);

}  // namespace prte::test
