// Secret files (passwords, TLS client keys) are accessible to their owner alone: any group or other bit is
// refused, naming the file, its mode and the chmod that fixes it.
#include "imds/transport/secret_file.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace {

std::string error_of(const std::string& path) {
  auto read = cla::read_secret_file(path);
  return read ? "(read " + read.value() + ")" : read.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(secret_file_test)

BOOST_AUTO_TEST_CASE(group_access_is_refused_naming_the_file_its_mode_and_the_fix) {
  cla::test::TempDir dir("cla-secret");
  for (const mode_t mode : {0640, 0660, 0604}) {
    char name[16];
    std::snprintf(name, sizeof name, "%04o.pw", static_cast<unsigned>(mode));
    const auto path = dir.file(name, "s3cret\n", mode);
    std::string expected = path;  // appended piecewise: GCC 12 misreports `a + "..." + b`
    expected.append(": is accessible to its group or other users (mode ").append(name, 4);
    expected.append("); a secret file must not be: chmod go-rwx ").append(path);
    BOOST_TEST(error_of(path) == expected);
  }
}

BOOST_AUTO_TEST_CASE(owner_only_files_are_read) {
  cla::test::TempDir dir("cla-secret");
  BOOST_TEST(error_of(dir.file("rw.pw", "s3cret\n", 0600)) == "(read s3cret)");
  BOOST_TEST(error_of(dir.file("ro.pw", "s3cret\n", 0400)) == "(read s3cret)");
}

BOOST_AUTO_TEST_SUITE_END()
