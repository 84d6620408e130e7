// A private directory for a test's files, removed with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace prte::test {

class TempDir {
  public:
    TempDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "prte-test-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    // The directory itself, or a file in it.
    std::string path(const std::string& name = {}) const { return name.empty() ? path_.string() : (path_ / name).string(); }

    // Writes `text` to the file `name` in the directory and returns its path.
    std::string write(const std::string& name, const std::string& text) const
    {
        std::string file = path(name);
        std::ofstream(file) << text;
        return file;
    }

  private:
    std::filesystem::path path_;
};

}  // namespace prte::test
