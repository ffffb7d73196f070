// Boost.Test entry point shared by the unit and integration test binaries.
#define BOOST_TEST_DYN_LINK
#define BOOST_TEST_MODULE cassandra_lifecycle_agent_tests
#include <boost/test/unit_test.hpp>
