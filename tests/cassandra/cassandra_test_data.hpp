// Reads files of tests/data/cassandra for the cassandra unit suites.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cla::test {

inline std::string cassandra_data(const std::string& relative) {
  std::string path =
      CLA_TEST_DATA_DIR;  // appended piecewise: GCC 12 misreports `a + "..." + b` (-Warray-bounds)
  path.append("/cassandra/").append(relative);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing test data file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace cla::test
