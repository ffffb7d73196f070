// Case-insensitive comparison of Azure names and EventIds.
#include "state/scheduled_event.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(scheduled_event_test)

BOOST_AUTO_TEST_CASE(ids_compare_case_insensitively) {
  BOOST_TEST(cla::ids_equal("C7061BAC-AFDC-4513-B24B-AA5F13A16123", "c7061bac-afdc-4513-b24b-aa5f13a16123"));
  BOOST_TEST(!cla::ids_equal("C7061BAC", "C7061BAD"));
  BOOST_TEST(!cla::iequals("vm1", "vm10"));
  BOOST_TEST(cla::to_upper("WestNO_0") == "WESTNO_0");
}

BOOST_AUTO_TEST_SUITE_END()
