// A fresh directory under the system's temp dir for one test, removed with everything in it at the end.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace cla::test {

struct TempDir {
  std::filesystem::path path;
  // `prefix` names the directory ("cla-config" gives /tmp/cla-config-XXXXXX).
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` to the file `name` in the directory with `mode`; its path.
  std::string file(const std::string& name, const std::string& content, mode_t mode) const {
    const auto p = (path / name).string();
    std::ofstream(p, std::ios::binary) << content;
    ::chmod(p.c_str(), mode);
    return p;
  }
};

}  // namespace cla::test
