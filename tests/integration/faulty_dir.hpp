// Integration-test helper: a directory whose writes a test can stop and resume, or (as root) run out of
// space. Root ignores permission bits, so as root the directory is a small tmpfs of its own (remounted
// read-only, or filled up); without root, read-only is chmod and filling up is not available.
#pragma once

#include <filesystem>

namespace cla::test {

class FaultyDir {
 public:
  explicit FaultyDir(std::filesystem::path dir);  // creates it; as root mounts a 64 KiB tmpfs there
  ~FaultyDir();                                   // unmounts it (lazily: the agent may still hold files)
  FaultyDir(const FaultyDir&) = delete;
  FaultyDir& operator=(const FaultyDir&) = delete;

  static bool can_fill();  // whether full() works here (root)
  void read_only(bool on);
  void full(bool on);  // a filler file as large as the tmpfs takes, or removed again

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
};

}  // namespace cla::test
