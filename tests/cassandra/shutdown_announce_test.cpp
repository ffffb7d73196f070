// The shutdown announce's setting from JVM arguments (SPEC 3.10): the last -D wins as in Java; several JVMs
// on one host tell it only when they agree.
#include "cassandra/shutdown_announce.hpp"

#include <boost/test/unit_test.hpp>

using cla::AnnounceSetting;

namespace {
using Args = std::vector<std::string>;
const Args kDefault{"-ea", "-Xmx512M", "org.apache.cassandra.service.CassandraDaemon"};
const Args kZero{"-Dcassandra.shutdown_announce_in_ms=0", "org.apache.cassandra.service.CassandraDaemon"};
const Args kTwice{"-Dcassandra.shutdown_announce_in_ms=0", "-Dcassandra.shutdown_announce_in_ms=200"};
}  // namespace

BOOST_AUTO_TEST_SUITE(shutdown_announce_test)

BOOST_AUTO_TEST_CASE(one_jvm) {
  BOOST_TEST(!cla::announce_ms_in(kDefault).has_value());
  BOOST_TEST(*cla::announce_ms_in(kZero) == 0);
  BOOST_TEST(*cla::announce_ms_in(kTwice) == 200, "the last one given wins");
  BOOST_TEST(!cla::announce_ms_in({"-Dcassandra.shutdown_announce_in_ms=soon"}).has_value());
  BOOST_TEST(!cla::announce_ms_in({"-Dcassandra.shutdown_announce_in_ms="}).has_value());
  BOOST_TEST(!cla::announce_ms_in({"-Dcassandra.shutdown_announce_in_ms=-1"}).has_value());
  BOOST_TEST(!cla::announce_ms_in({"-Dcassandra.shutdown_announce_in_msx=0"}).has_value());
}

BOOST_AUTO_TEST_CASE(the_jvms_agree_or_nothing_is_said) {
  struct Row {
    std::vector<Args> jvms;
    AnnounceSetting::Kind kind;
    std::int64_t ms;
  };
  const Row rows[] = {
      {{}, AnnounceSetting::Kind::unknown, 0},
      {{kDefault}, AnnounceSetting::Kind::unset, 0},
      {{kDefault, kDefault, kDefault}, AnnounceSetting::Kind::unset, 0},  // three nodes on one host
      {{kZero}, AnnounceSetting::Kind::set, 0},
      {{kZero, kTwice}, AnnounceSetting::Kind::set, 200},
      {{kZero, kDefault}, AnnounceSetting::Kind::unknown, 0},
  };
  for (const Row& row : rows) {
    const AnnounceSetting s = cla::announce_setting(row.jvms);
    BOOST_TEST((s.kind == row.kind), row.jvms.size() << " JVMs");
    BOOST_TEST(s.ms == row.ms);
    BOOST_TEST(s.detail.empty() == (row.kind != AnnounceSetting::Kind::unknown));
  }
}

BOOST_AUTO_TEST_SUITE_END()
