// Scheduled Events document parsing: every real/seed document, odd-but-valid ones, and broken ones.
#include "imds/document_parser.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <random>

#include "data_files.hpp"
#include "imds/not_before.hpp"

namespace {

cla::EventsDocument parse_good(const std::string& name) {
  const auto r = cla::parse_scheduled_events(cla::test::read_file(cla::test::imds_data("good/" + name)));
  BOOST_TEST_REQUIRE(r.ok(), name << ": " << (r.ok() ? "" : r.error().message));
  return *r;
}

std::string parse_error(const std::string& text) {
  const auto r = cla::parse_scheduled_events(text);
  BOOST_TEST_REQUIRE(!r.ok());
  return r.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(document_parser_test)

BOOST_AUTO_TEST_CASE(every_good_file_parses) {
  const auto names = cla::test::data_files("good");
  BOOST_TEST(names.size() >= 20u);
  for (const auto& name : names) parse_good(name);
}

BOOST_AUTO_TEST_CASE(freeze_lifecycle_from_the_docs) {
  const auto empty = parse_good("seed003_freeze_1_pretty.json");
  BOOST_TEST(empty.incarnation == 1);
  BOOST_TEST(empty.events.empty());

  const auto scheduled = parse_good("seed003_freeze_2_pretty.json");
  BOOST_TEST(scheduled.incarnation == 2);
  BOOST_TEST_REQUIRE(scheduled.events.size() == 1u);
  const auto& e = scheduled.events[0];
  BOOST_TEST(e.id == "C7061BAC-AFDC-4513-B24B-AA5F13A16123");
  BOOST_TEST(e.type == "Freeze");
  BOOST_TEST(e.resource_type == "VirtualMachine");
  BOOST_TEST((e.resources == std::vector<std::string>{"WestNO_0", "WestNO_1"}));
  BOOST_TEST((e.status == cla::EventStatus::scheduled));
  BOOST_TEST(e.status_text == "Scheduled");
  BOOST_TEST_REQUIRE(e.not_before.has_value());
  BOOST_TEST(cla::format_not_before(*e.not_before) == "Mon, 11 Apr 2022 22:26:58 GMT");
  BOOST_TEST(e.not_before_text == "Mon, 11 Apr 2022 22:26:58 GMT");
  BOOST_TEST(e.description ==
             "Virtual machine is being paused because of a memory-preserving Live Migration operation.");
  BOOST_TEST((e.source == cla::EventSource::platform));
  BOOST_TEST(e.source_text == "Platform");
  BOOST_TEST(e.duration_s == 5);

  const auto started = parse_good("seed003_freeze_3_pretty.json");
  BOOST_TEST(started.incarnation == 3);
  BOOST_TEST_REQUIRE(started.events.size() == 1u);
  BOOST_TEST((started.events[0].status == cla::EventStatus::started));
  BOOST_TEST(!started.events[0].not_before.has_value());
  BOOST_TEST(started.events[0].not_before_text.empty());

  BOOST_TEST(parse_good("seed003_freeze_4_pretty.json").incarnation == 4);
  // Minified copies parse to the same events.
  BOOST_TEST(parse_good("B1-01b_freeze_scheduled.json").events[0].id == e.id);
}

BOOST_AUTO_TEST_CASE(weekday_that_mismatches_the_date_is_ignored) {
  const auto doc = parse_good("B1-01_docs2026_saturday_pretty.json");
  BOOST_TEST_REQUIRE(doc.events[0].not_before.has_value());
  BOOST_TEST(cla::format_not_before(*doc.events[0].not_before) == "Sat, 11 Apr 2026 22:26:58 GMT");
}

BOOST_AUTO_TEST_CASE(older_api_versions_omit_fields) {
  const auto preempt = parse_good("B1-02_spot_preempt.json").events.at(0);  // 2019-08-01: no duration
  BOOST_TEST(preempt.type == "Preempt");
  BOOST_TEST(preempt.duration_s == -1);
  BOOST_TEST(preempt.description.empty());

  const auto redeploy = parse_good("B1-07_redeploy_old_api.json").events.at(0);  // 2017-08-01
  BOOST_TEST(redeploy.type == "Redeploy");
  BOOST_TEST(redeploy.source_text.empty());
  BOOST_TEST((redeploy.source == cla::EventSource::unknown));
  BOOST_TEST(redeploy.description.empty());
  BOOST_TEST(redeploy.duration_s == -1);
  BOOST_TEST(cla::format_not_before(*redeploy.not_before) == "Thu, 17 Jan 2019 05:57:06 GMT");

  const auto two = parse_good("B1-06_two_reboot_events.json");
  BOOST_TEST(two.incarnation == 192);
  BOOST_TEST_REQUIRE(two.events.size() == 2u);
  BOOST_TEST(two.events[1].resources.at(0) == "sample_1");
}

BOOST_AUTO_TEST_CASE(user_events_and_started_freeze) {
  const auto reboot = parse_good("B1-04_user_reboot_pretty.json").events.at(0);
  BOOST_TEST((reboot.source == cla::EventSource::user));
  BOOST_TEST(reboot.duration_s == -1);
  const auto freeze = parse_good("B1-05a_tabs.json");
  BOOST_TEST(freeze.incarnation == 208);
  BOOST_TEST((freeze.events.at(0).status == cla::EventStatus::started));
  BOOST_TEST(!freeze.events.at(0).not_before.has_value());
  BOOST_TEST(parse_good("B1-05b_tabs.json").events.at(0).description ==
             "Virtual machine is going to be restarted as requested by authorized user.");
  BOOST_TEST(parse_good("B1-08_terminate_CONSTRUCTED.json").events.at(0).type == "Terminate");
}

BOOST_AUTO_TEST_CASE(odd_documents_are_read_tolerantly) {
  const auto unknown = parse_good("odd_unknown_fields_and_type.json").events.at(0);
  BOOST_TEST(unknown.type == "LiveMigrate");
  BOOST_TEST((unknown.status == cla::EventStatus::unknown));
  BOOST_TEST(unknown.status_text == "Completed");
  BOOST_TEST((unknown.source == cla::EventSource::unknown));
  BOOST_TEST(unknown.source_text == "Azure");
  BOOST_TEST(unknown.duration_s == 0);

  const auto strings = parse_good("odd_numeric_strings.json");
  BOOST_TEST(strings.incarnation == 208);
  BOOST_TEST(strings.events.at(0).duration_s == 9);
  BOOST_TEST((strings.events.at(0).status == cla::EventStatus::scheduled));  // case-insensitive, text kept
  BOOST_TEST(strings.events.at(0).status_text == "scheduled");
  BOOST_TEST((strings.events.at(0).source == cla::EventSource::platform));

  const auto nulls = parse_good("odd_nulls.json").events.at(0);
  BOOST_TEST(nulls.duration_s == -1);
  BOOST_TEST(!nulls.not_before.has_value());
  BOOST_TEST(nulls.resources.empty());

  BOOST_TEST(parse_good("odd_huge_incarnation.json").incarnation == 9223372036854775807LL);
  BOOST_TEST(parse_good("odd_1000_events.json").events.size() == 1000u);
}

BOOST_AUTO_TEST_CASE(every_bad_file_is_rejected_naming_the_field) {
  const std::map<std::string, std::string> expected = {
      {"B1-08_docs_template_not_json.txt", "invalid JSON at byte"},
      {"deeply_nested.json", "invalid JSON"},
      {"description_too_long.json", "Events[0].Description: string longer than 4096 characters"},
      {"duration_bool.json", "Events[0].DurationInSeconds: expected an integer, found a boolean"},
      {"empty_body.json", "invalid JSON at byte 0"},
      {"event_id_number.json", "Events[0].EventId: expected a string, found an integer"},
      {"event_missing_id.json", "Events[0].EventId: missing"},
      {"event_not_object.json", "Events[0]: expected an object, found a string"},
      {"events_object.json", "Events: expected an array, found an object"},
      {"html_404.json", "invalid JSON"},
      {"incarnation_double.json",
       "DocumentIncarnation: expected a non-negative integer, found a decimal number"},
      {"incarnation_negative.json", "DocumentIncarnation: expected a non-negative integer"},
      {"incarnation_string_abc123.json",
       "DocumentIncarnation: expected a non-negative integer, found \"abc123\""},
      {"invalid_utf8.json", "invalid JSON"},
      {"missing_events.json", "Events: missing"},
      {"missing_incarnation.json", "DocumentIncarnation: missing"},
      {"notbefore_31_feb.json",
       "Events[0].NotBefore: \"Thu, 31 Feb 2022 10:00:00 GMT\" is not a date: no such day"},
      {"notbefore_compact_20170702.json", "Events[0].NotBefore: \"20170702\" is not a date"},
      {"notbefore_pst.json",
       "Events[0].NotBefore: \"Mon, 11 Apr 2022 22:26:58 PST\" is not a date: time zone"},
      {"resources_numbers.json", "Events[0].Resources: expected an array of strings"},
      {"resources_string.json", "Events[1].Resources: expected an array of strings"},
      {"second_event_missing_resources.json", "Events[1].Resources: missing"},
      {"too_many_events.json", "Events: 1001 events, more than the 1000 accepted"},
      {"top_level_array.json", "document: expected a JSON object, found an array"},
      {"trailing_garbage.json", "invalid JSON"},
      {"truncated.json", "invalid JSON"},
  };
  const auto names = cla::test::data_files("bad");
  BOOST_TEST(names.size() == expected.size());
  for (const auto& name : names) {
    BOOST_TEST_CONTEXT(name) {
      const auto it = expected.find(name);
      BOOST_TEST_REQUIRE((it != expected.end()), "no expectation for bad/" << name);
      const std::string message = parse_error(cla::test::read_file(cla::test::imds_data("bad/" + name)));
      BOOST_TEST(message.find(it->second) != std::string::npos, message);
    }
  }
}

BOOST_AUTO_TEST_CASE(any_prefix_of_a_document_is_handled_without_throwing) {
  const std::string doc = cla::test::read_file(cla::test::imds_data("good/B1-01b_freeze_scheduled.json"));
  for (std::size_t n = 0; n < doc.size(); ++n) {
    std::string cut = doc.substr(0, n);
    BOOST_CHECK_NO_THROW(cla::parse_scheduled_events(cut));
    cut[n / 2 < cut.size() ? n / 2 : 0] ^= 0x5a;  // and one flipped byte
    BOOST_CHECK_NO_THROW(cla::parse_scheduled_events(cut));
  }
}

BOOST_AUTO_TEST_CASE(random_mutations_of_real_documents_never_throw) {
  std::mt19937 random(20240611);
  std::size_t accepted = 0, rejected = 0;
  for (const auto& name : cla::test::data_files("good")) {
    const std::string original = cla::test::read_file(cla::test::imds_data("good/" + name));
    if (original.size() > 10000) continue;
    for (int round = 0; round < 300; ++round) {
      std::string doc = original;
      const int edits = 1 + static_cast<int>(random() % 4);
      for (int e = 0; e < edits && !doc.empty(); ++e) {
        const std::size_t at = random() % doc.size();
        switch (random() % 3) {
          case 0:
            doc[at] = static_cast<char>(random() % 256);
            break;
          case 1:
            doc.erase(at, 1 + random() % 8);
            break;
          default:
            doc.insert(at, 1, "{}[]\",:0-9eE\\ "[random() % 14]);
        }
      }
      cla::Result<cla::EventsDocument> r = cla::make_error("");
      BOOST_REQUIRE_NO_THROW(r = cla::parse_scheduled_events(doc));
      (r.ok() ? accepted : rejected)++;
    }
  }
  BOOST_TEST(accepted > 0u);  // some edits land in text and keep the document valid
  BOOST_TEST(rejected > accepted);
}

BOOST_AUTO_TEST_SUITE_END()
