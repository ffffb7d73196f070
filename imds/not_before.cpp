// NotBefore: parsing the dates IMDS sends (RFC 1123 and the other HTTP/ISO forms) and formatting RFC 1123.
#include "imds/not_before.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>

#include "imds/json_read.hpp"

namespace cla {
namespace {

using namespace std::chrono;

constexpr std::array<std::string_view, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                      "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kMonthsLong = {"january",   "february", "march",    "april",
                                                          "may",       "june",     "july",     "august",
                                                          "september", "october",  "november", "december"};
constexpr std::array<std::string_view, 7> kWeekdays = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
constexpr std::array<std::string_view, 7> kWeekdaysLong = {"sunday",   "monday", "tuesday", "wednesday",
                                                           "thursday", "friday", "saturday"};

struct Fields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  nanoseconds fraction{0};
  minutes offset{0};  // local time minus UTC
};

bool lower_equals(std::string_view word, std::string_view lower) {
  if (word.size() != lower.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

template <std::size_t N>
int index_of(std::string_view word, const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (lower_equals(word, names[i])) return static_cast<int>(i);
  return -1;
}

int month_number(std::string_view word) {
  int i = index_of(word, kMonths);
  if (i < 0) i = index_of(word, kMonthsLong);
  return i < 0 ? 0 : i + 1;
}

bool is_weekday(std::string_view word) {
  return index_of(word, kWeekdays) >= 0 || index_of(word, kWeekdaysLong) >= 0;
}

// Reads the text left to right; every step either consumes what it expects or records why it could not.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool at_digit() const { return peek() >= '0' && peek() <= '9'; }
  bool at_letter() const { return (peek() | 0x20) >= 'a' && (peek() | 0x20) <= 'z'; }
  std::size_t position() const { return i_; }

  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool skip_blanks() {
    const std::size_t start = i_;
    while (peek() == ' ' || peek() == '\t') ++i_;
    return i_ > start;
  }
  std::string_view word() {
    const std::size_t start = i_;
    while (!done() && at_letter()) ++i_;
    return s_.substr(start, i_ - start);
  }
  // Reads min..max digits; nullopt (nothing consumed) when fewer than min are present.
  std::optional<int> number(int min_digits, int max_digits, int* count = nullptr) {
    const std::size_t start = i_;
    int value = 0, n = 0;
    while (n < max_digits && at_digit()) {
      value = value * 10 + (s_[i_++] - '0');
      ++n;
    }
    if (n < min_digits) {
      i_ = start;
      return std::nullopt;
    }
    if (count) *count = n;
    return value;
  }
  // Up to 9 significant fraction digits; further digits are read and dropped.
  nanoseconds fraction() {
    long long ns = 0;
    int n = 0;
    for (; at_digit(); ++i_, ++n)
      if (n < 9) ns = ns * 10 + (s_[i_] - '0');
    for (int k = n; k < 9; ++k) ns *= 10;
    return nanoseconds(ns);
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

using Step = std::optional<std::string>;  // nullopt: fine; otherwise why the text is not a date

Step read_time(Scanner& sc, Fields& f) {
  auto h = sc.number(1, 2);
  if (!h) return "expected a time HH:MM:SS";
  f.hour = *h;
  if (!sc.eat(':')) return "expected ':' after the hour";
  auto m = sc.number(2, 2);
  if (!m) return "expected two-digit minutes";
  f.minute = *m;
  if (sc.eat(':')) {
    auto s = sc.number(2, 2);
    if (!s) return "expected two-digit seconds";
    f.second = *s;
    if (sc.eat('.') || sc.eat(',')) {
      if (!sc.at_digit()) return "expected digits after the decimal point";
      f.fraction = sc.fraction();
    }
  }
  return std::nullopt;
}

// Optional zone: blanks then GMT/UTC/UT/Z or +HHMM/-HH:MM/+HH. Nothing at all means UTC.
Step read_zone(Scanner& sc, Fields& f, bool& seen) {
  sc.skip_blanks();
  seen = false;
  if (sc.at_letter()) {
    const std::string_view zone = sc.word();
    if (!lower_equals(zone, "gmt") && !lower_equals(zone, "utc") && !lower_equals(zone, "ut") &&
        !lower_equals(zone, "z"))
      return "time zone " + quoted_excerpt(zone, 16) + " is not supported (use GMT, UTC or a numeric offset)";
    seen = true;
    return std::nullopt;
  }
  if (sc.peek() != '+' && sc.peek() != '-') return std::nullopt;
  const int sign = sc.peek() == '-' ? -1 : 1;
  sc.eat(sc.peek());
  auto hh = sc.number(2, 2);
  if (!hh) return "expected a zone offset like +0000 or +00:00";
  int mm = 0;
  const bool colon = sc.eat(':');
  if (colon || sc.at_digit()) {
    auto m = sc.number(2, 2);
    if (!m) return "expected two-digit zone offset minutes";
    mm = *m;
  }
  if (*hh > 14 || mm > 59) return "zone offset out of range";
  f.offset = minutes(sign * (*hh * 60 + mm));
  seen = true;
  return std::nullopt;
}

Step read_year(Scanner& sc, Fields& f) {
  int digits = 0;
  auto y = sc.number(2, 4, &digits);
  if (!y || digits == 3) return "expected a 4-digit year";
  f.year = digits == 2 ? (*y >= 70 ? 1900 + *y : 2000 + *y) : *y;
  return std::nullopt;
}

// "2022-04-11T22:26:58.5Z"
Step read_iso(Scanner& sc, Fields& f) {
  f.year = *sc.number(4, 4);
  if (!sc.eat('-')) return "expected '-' after the year";
  auto m = sc.number(2, 2);
  if (!m || !sc.eat('-')) return "expected a two-digit month and '-'";
  auto d = sc.number(2, 2);
  if (!d) return "expected a two-digit day";
  f.month = *m;
  f.day = *d;
  if (!sc.eat('T') && !sc.eat('t') && !sc.eat(' ')) return "expected 'T' between date and time";
  if (auto e = read_time(sc, f)) return e;
  bool zone = false;
  return read_zone(sc, f, zone);
}

// RFC 1123 / RFC 850 after the optional weekday: "11 Apr 2022 22:26:58 GMT", "11-Apr-22 22:26:58 GMT".
Step read_day_month_year(Scanner& sc, Fields& f) {
  auto d = sc.number(1, 2);
  if (!d) return "expected a day of the month";
  f.day = *d;
  if (!sc.eat('-')) sc.skip_blanks();
  const std::string_view month = sc.word();
  f.month = month_number(month);
  if (f.month == 0) return "expected a month name, found " + quoted_excerpt(month, 16);
  if (!sc.eat('-')) sc.skip_blanks();
  if (auto e = read_year(sc, f)) return e;
  if (!sc.skip_blanks()) return "expected a blank before the time";
  if (auto e = read_time(sc, f)) return e;
  bool zone = false;
  return read_zone(sc, f, zone);
}

// asctime after the optional weekday: "Apr 11 22:26:58 2022", or date(1)'s "Apr 11 22:26:58 UTC 2022".
Step read_asctime(Scanner& sc, Fields& f, std::string_view month) {
  f.month = month_number(month);
  sc.skip_blanks();
  auto d = sc.number(1, 2);
  if (!d) return "expected a day of the month after the month name";
  f.day = *d;
  if (!sc.skip_blanks()) return "expected a blank before the time";
  if (auto e = read_time(sc, f)) return e;
  bool zone_before = false, zone_after = false;
  if (auto e = read_zone(sc, f, zone_before)) return e;
  sc.skip_blanks();
  if (auto e = read_year(sc, f)) return e;
  if (auto e = read_zone(sc, f, zone_after)) return e;
  if (zone_before && zone_after) return "two time zones";
  return std::nullopt;
}

Step read_http_date(Scanner& sc, Fields& f) {
  std::string_view word = sc.word();
  if (!word.empty() && is_weekday(word)) {
    sc.eat(',');
    sc.skip_blanks();
    word = sc.word();
  }
  if (word.empty()) return read_day_month_year(sc, f);
  if (month_number(word) == 0)
    return "expected a weekday, a day or a month, found " + quoted_excerpt(word, 16);
  return read_asctime(sc, f, word);
}

Result<WallTime> to_wall_time(const Fields& f, std::string_view text) {
  auto fail = [&](std::string why) { return make_error(quoted_excerpt(text) + " is not a date: " + why); };
  if (f.year < 1970 || f.year > 2200)
    return fail("year " + std::to_string(f.year) + " out of range 1970..2200");
  const year_month_day ymd{year{f.year}, month{static_cast<unsigned>(f.month)},
                           day{static_cast<unsigned>(f.day)}};
  if (!ymd.ok()) return fail("no such day in that month");
  if (f.hour > 23 || f.minute > 59 || f.second > 60) return fail("no such time of day");
  const auto utc =
      sys_days{ymd} + hours{f.hour} + minutes{f.minute} + seconds{f.second} + f.fraction - f.offset;
  // The offset or a leap second can carry the instant across the range the date itself was in.
  if (utc < sys_days{year{1970} / 1 / 1} || utc >= sys_days{year{2201} / 1 / 1})
    return fail("the instant in UTC is out of range 1970..2200");
  return time_point_cast<WallClock::duration>(utc);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool looks_iso(std::string_view s) {
  return s.size() >= 5 && s[4] == '-' &&
         std::all_of(s.begin(), s.begin() + 4, [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Result<WallTime> parse_not_before(std::string_view text) {
  const std::string_view s = trim(text);
  if (s.empty()) return make_error("empty date");
  if (s.size() > 64) return make_error(quoted_excerpt(s) + " is not a date: longer than 64 characters");
  Scanner sc(s);
  Fields f;
  if (auto why = looks_iso(s) ? read_iso(sc, f) : read_http_date(sc, f))
    return make_error(quoted_excerpt(s) + " is not a date: " + *why + " at character " +
                      std::to_string(sc.position() + 1));
  if (!sc.done())
    return make_error(quoted_excerpt(s) + " is not a date: unexpected text at character " +
                      std::to_string(sc.position() + 1));
  return to_wall_time(f, s);
}

std::string format_not_before(WallTime t) {
  static constexpr std::array<const char*, 7> kDay = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMon = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto secs = floor<seconds>(t);
  const auto days_since_epoch = floor<days>(secs);
  const year_month_day ymd{days_since_epoch};
  const hh_mm_ss hms{secs - days_since_epoch};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02d:%02d:%02d GMT",
                kDay[weekday{days_since_epoch}.c_encoding()], static_cast<unsigned>(ymd.day()),
                kMon[static_cast<unsigned>(ymd.month()) - 1], static_cast<int>(ymd.year()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

}  // namespace cla
