// cassandra_command_lines over a process list of the test's own: only CassandraDaemon JVMs, their arguments
// split at NUL; entries that are not processes, or vanish, are skipped.
#include "cassandra/nodetool/cassandra_processes.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace {

void process(const std::filesystem::path& proc, const std::string& pid, const std::string& cmdline) {
  std::filesystem::create_directories(proc / pid);
  std::ofstream(proc / pid / "cmdline", std::ios::binary) << cmdline;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cassandra_processes_test)

BOOST_AUTO_TEST_CASE(only_cassandra_jvms_with_their_arguments) {
  cla::test::TempDir dir("cla-proc");
  const auto proc = dir.path / "proc";
  using namespace std::string_literals;
  process(proc, "101",
          "/usr/bin/java\0-Dcassandra.shutdown_announce_in_ms=0\0-Xmx512M\0"
          "org.apache.cassandra.service.CassandraDaemon\0"s);
  process(proc, "202",
          "/bin/sh\0-c\0echo org.apache.cassandra.service.CassandraDaemon\0"s);  // not as an argument
  process(proc, "303", "/usr/bin/java\0-cp\0x.jar\0org.apache.cassandra.tools.NodeTool\0status\0"s);
  process(proc, "404", "");  // a kernel thread: no command line
  process(proc, "self", "/usr/bin/java\0org.apache.cassandra.service.CassandraDaemon\0"s);  // not a pid
  // A command line that cannot be read (here a directory: EISDIR; on a live host a process that exited after
  // the listing: ESRCH) is skipped, not a failure of the whole list.
  std::filesystem::create_directories(proc / "505" / "cmdline");
  const auto found = cla::cassandra_command_lines(proc);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(
      found[0] == (std::vector<std::string>{"/usr/bin/java", "-Dcassandra.shutdown_announce_in_ms=0",
                                            "-Xmx512M", "org.apache.cassandra.service.CassandraDaemon"}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(no_process_list_is_no_jvm) {
  BOOST_TEST(cla::cassandra_command_lines("/nonexistent/proc").empty());
}

BOOST_AUTO_TEST_SUITE_END()
