// NotBefore: parsing the dates IMDS sends (RFC 1123 and the other HTTP/ISO forms) and formatting RFC 1123.
#pragma once

#include <string>
#include <string_view>

#include "state/result.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

// Parses a NotBefore value. Accepted, case-insensitively, with surrounding blanks ignored:
//   RFC 1123  "Mon, 11 Apr 2022 22:26:58 GMT"  (weekday optional and never checked against the date;
//             1- or 2-digit day; seconds and fractional seconds optional)
//   RFC 850   "Monday, 11-Apr-22 22:26:58 GMT" (2-digit years: 70-99 -> 19xx, 00-69 -> 20xx)
//   asctime   "Mon Apr 11 22:26:58 2022", also date(1)'s "Mon Apr 11 22:26:58 UTC 2022"
//   ISO 8601  "2022-04-11T22:26:58Z", "2022-04-11 22:26:58.125+00:00"
// Zones: GMT, UTC, UT, Z, or a numeric offset (+0200, -05:30) which is applied; no zone means UTC (IMDS
// documents NotBefore as UTC). Named zones other than UTC (PST, CET...) are rejected: their meaning is
// ambiguous. Impossible dates and times (31 Feb, 25:00) and years outside 1970..2200 are rejected.
// The empty string is an error here; the document parser maps "" to "no NotBefore" before calling this.
Result<WallTime> parse_not_before(std::string_view text);

// Formats an instant as IMDS does: "Mon, 11 Apr 2022 22:26:58 GMT" (sub-second part dropped).
std::string format_not_before(WallTime t);

}  // namespace cla
