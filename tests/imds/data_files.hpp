// Reads test data files under CLA_TEST_DATA_DIR for the imds unit tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cla::test {

inline std::filesystem::path imds_data(const std::string& relative) {
  return std::filesystem::path(CLA_TEST_DATA_DIR) / "imds" / relative;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read test data " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// File names in a data directory, sorted.
inline std::vector<std::string> data_files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(imds_data(dir)))
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace cla::test
