// Integration suites run the real binaries on 127.0.0.1; this one checks they were built beside the tests.
#include <boost/test/unit_test.hpp>
#include <filesystem>

BOOST_AUTO_TEST_SUITE(binaries_test)

BOOST_AUTO_TEST_CASE(all_three_binaries_are_built) {
  for (const char* name : {"cassandra-lifecycle-agent", "imds-emulator", "nodetool-sim"})
    BOOST_TEST(std::filesystem::exists(std::filesystem::path(CLA_BIN_DIR) / name), name);
}

BOOST_AUTO_TEST_SUITE_END()
