// The replication text of describecluster ("<Class> {k=v, ...}"): classes, factors, transient counts, keys.
#include "cassandra/nodetool_output/replication.hpp"

#include <boost/test/unit_test.hpp>

namespace {

cla::Replication parsed(const std::string& text) {
  auto r = cla::parse_replication(text);
  BOOST_REQUIRE_MESSAGE(r.ok(), text << ": " << (r.ok() ? "" : r.error().message));
  return r.value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replication_test)

BOOST_AUTO_TEST_CASE(classes_and_factors) {
  const auto nts = parsed("NetworkTopologyStrategy {dc1=3, dc2=2}");
  BOOST_TEST((nts.kind == cla::StrategyKind::network_topology));
  BOOST_TEST(nts.dc_factors.at("dc1").all == 3);
  BOOST_TEST(nts.dc_factors.at("dc2").all == 2);
  BOOST_TEST(nts.total_factor() == 5);
  BOOST_TEST(nts.placement_key() == "NetworkTopologyStrategy{dc1=3,dc2=2}");
  const auto simple = parsed("SimpleStrategy {replication_factor=2}");
  BOOST_TEST((simple.kind == cla::StrategyKind::simple));
  BOOST_TEST(simple.replication_factor.all == 2);
  BOOST_TEST(simple.placement_key() == "SimpleStrategy{2}");
  BOOST_TEST((parsed("LocalStrategy {}").kind == cla::StrategyKind::local));
  BOOST_TEST((parsed("EverywhereStrategy {}").kind == cla::StrategyKind::everywhere));
  const auto qualified = parsed("org.apache.cassandra.locator.SimpleStrategy {replication_factor=1}");
  BOOST_TEST(qualified.strategy_class == "SimpleStrategy");
  BOOST_TEST((qualified.kind == cla::StrategyKind::simple));
}

BOOST_AUTO_TEST_CASE(transient_factors_count_in_full) {
  const auto t = parsed("NetworkTopologyStrategy {dc1=3/1, dc2=2}");
  BOOST_TEST(t.dc_factors.at("dc1").all == 3);
  BOOST_TEST(t.dc_factors.at("dc1").transient_replicas == 1);
  BOOST_TEST(t.has_transient());
  BOOST_TEST(t.placement_key() == parsed("NetworkTopologyStrategy {dc2=2, dc1=3}").placement_key());
  BOOST_TEST(parsed("SimpleStrategy {replication_factor=3/1}").replication_factor.transient_replicas == 1);
  // A DC without replicas places nothing: the same key as without it.
  BOOST_TEST(parsed("NetworkTopologyStrategy {dc1=3, dc2=0}").placement_key() ==
             "NetworkTopologyStrategy{dc1=3}");
}

BOOST_AUTO_TEST_CASE(options_that_do_not_fit_make_the_kind_other) {
  for (const char* text :
       {"NetworkTopologyStrategy {dc1=three}", "NetworkTopologyStrategy {replication_factor=3}",
        "NetworkTopologyStrategy {dc1=3/3}", "SimpleStrategy {}", "SimpleStrategy {rf=3}",
        "SimpleStrategy {replication_factor=-1}", "NetworkTopologyStrategy {dc1=1234567}", "null",
        "com.example.TheirStrategy {dc1=3}"}) {
    const auto r = parsed(text);
    BOOST_TEST((r.kind == cla::StrategyKind::other), text);
    BOOST_TEST(r.dc_factors.empty(), text);
  }
  BOOST_TEST(parsed("null").strategy_class == "null");
}

BOOST_AUTO_TEST_CASE(printed_back_as_java_does) {
  const auto r = parsed("  NetworkTopologyStrategy {dc1=3, dc2=2/1}  ");
  BOOST_TEST(cla::format_replication_options(r) == "{dc1=3, dc2=2/1}");
  std::ostringstream os;
  os << r;
  BOOST_TEST(os.str() == "NetworkTopologyStrategy {dc1=3, dc2=2/1}");
  BOOST_TEST(cla::format_replication_options(parsed("LocalStrategy {}")) == "{}");
}

// Found by fuzzing: blanks between the package's last dot and the class were kept, and printed back after
// "Replication class: " they were trimmed, so the reprint read as another class.
BOOST_AUTO_TEST_CASE(the_class_after_the_package_is_trimmed_as_the_whole_name_is) {
  BOOST_TEST(parsed("x.\r\rSimpleStrategy\r {replication_factor=1}").strategy_class == "SimpleStrategy");
  const auto odd = parsed("a.\r\r,\r {}");
  BOOST_TEST(odd.strategy_class == ",");
  std::ostringstream os;
  os << odd;
  BOOST_TEST(parsed(os.str()).strategy_class == odd.strategy_class);
}

BOOST_AUTO_TEST_CASE(refused) {
  for (const char* text : {"", "{dc1=3}", "NetworkTopologyStrategy {dc1=3", "NetworkTopologyStrategy {dc1}",
                           "Two Words {x=1}", "org.apache. {x=1}", "a.\r {x=1}"})
    BOOST_TEST(!cla::parse_replication(text).ok(), text);
}

BOOST_AUTO_TEST_SUITE_END()
