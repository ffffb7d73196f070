// Classified IMDS failures: stable metric labels and which ones are worth retrying.
#include "imds/imds_failure.hpp"

#include <boost/test/unit_test.hpp>
#include <set>

using Kind = cla::ImdsFailure::Kind;

BOOST_AUTO_TEST_SUITE(imds_failure_test)

BOOST_AUTO_TEST_CASE(labels_are_stable_and_distinct) {
  const std::pair<Kind, std::string_view> labels[] = {
      {Kind::connect, "connect"},
      {Kind::timeout, "timeout"},
      {Kind::http_status, "http_status"},
      {Kind::throttled, "http_429"},
      {Kind::server_error, "http_5xx"},
      {Kind::redirect, "http_3xx"},
      {Kind::body_too_large, "body_too_large"},
      {Kind::invalid_json, "invalid_json"},
      {Kind::wrong_shape, "wrong_shape"},
      {Kind::cancelled, "cancelled"},
  };
  std::set<std::string_view> seen;
  for (const auto& [kind, label] : labels) {
    BOOST_TEST(cla::to_string(kind) == label);
    seen.insert(cla::to_string(kind));
  }
  BOOST_TEST(seen.size() == std::size(labels));
}

BOOST_AUTO_TEST_CASE(client_errors_and_cancellation_are_not_retried) {
  BOOST_TEST(!(cla::ImdsFailure{Kind::http_status, 400, ""}.retryable()));
  BOOST_TEST(!(cla::ImdsFailure{Kind::http_status, 404, ""}.retryable()));
  BOOST_TEST(!(cla::ImdsFailure{Kind::cancelled, 0, ""}.retryable()));
  BOOST_TEST((cla::ImdsFailure{Kind::throttled, 429, ""}.retryable()));
  BOOST_TEST((cla::ImdsFailure{Kind::server_error, 503, ""}.retryable()));
  BOOST_TEST((cla::ImdsFailure{Kind::http_status, 204, ""}.retryable()));
  for (Kind k : {Kind::connect, Kind::timeout, Kind::redirect, Kind::body_too_large, Kind::invalid_json,
                 Kind::wrong_shape})
    BOOST_TEST((cla::ImdsFailure{k, 0, ""}.retryable()), cla::to_string(k));
}

BOOST_AUTO_TEST_CASE(describe_reads_well_in_a_log) {
  BOOST_TEST(cla::describe({Kind::throttled, 429, "429 Too Many Requests"}) ==
             "http_429 (HTTP 429): 429 Too Many Requests");
  BOOST_TEST(cla::describe({Kind::timeout, 0, "no response within 5000 ms (read)"}) ==
             "timeout: no response within 5000 ms (read)");
}

BOOST_AUTO_TEST_SUITE_END()
