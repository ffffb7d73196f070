// make_tls_context loads the client key it checked: the bytes read through the checked descriptor, never the
// path opened again (a key file replaced between the check and the load is not what the context holds).
#include "imds/transport/tls_context.hpp"

#include <sys/stat.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "imds/transport/secret_file.hpp"
#include "tests/support/tls_certificates.hpp"

namespace {

// Replaces `target` with `replacement` (a rename: the checked descriptor keeps the old file) right after
// `target` passed its checks, once.
class SwapAfterCheck {
 public:
  SwapAfterCheck(std::string target, std::string replacement) {
    target_ = std::move(target);
    replacement_ = std::move(replacement);
    swapped_ = false;
    cla::testing::after_file_check = &swap;
  }
  ~SwapAfterCheck() { cla::testing::after_file_check = nullptr; }
  SwapAfterCheck(const SwapAfterCheck&) = delete;
  SwapAfterCheck& operator=(const SwapAfterCheck&) = delete;
  bool swapped() const { return swapped_; }

 private:
  static void swap(const std::string& path) {
    if (path != target_ || swapped_) return;
    swapped_ = std::rename(replacement_.c_str(), target_.c_str()) == 0;
  }
  static inline std::string target_, replacement_;
  static inline bool swapped_ = false;
};

// A world-readable copy of `from` at `to`.
std::string world_readable_copy(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to);
  ::chmod(to.c_str(), 0644);
  return to;
}

std::string failure_of(const cla::TlsSettings& settings) {
  auto context = cla::make_tls_context(settings);
  return context ? "(loaded)" : context.error().detail;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tls_context_test)

// The checked key matches the certificate; the world-readable key swapped in after the check does not. Loaded
// by path again, the pair would not match.
BOOST_AUTO_TEST_CASE(the_key_loaded_is_the_one_read_through_the_checked_descriptor) {
  cla::test::TlsCertificates certs;
  const auto settings = certs.settings();
  const auto impostor = world_readable_copy(certs.file("other-client.key"), certs.file("impostor.key"));
  SwapAfterCheck swap(settings.key_file, impostor);
  BOOST_TEST(failure_of(settings) == "(loaded)");
  BOOST_TEST(swap.swapped());
}

// The checked key does not match the certificate; a world-readable one that does is swapped in after the
// check. It must not be loaded: the context is refused for the key that was checked.
BOOST_AUTO_TEST_CASE(a_world_readable_key_swapped_in_after_the_check_is_never_loaded) {
  cla::test::TlsCertificates certs;
  auto settings = certs.settings();
  settings.key_file = certs.file("other-client.key");
  const auto matching = world_readable_copy(certs.file("client.key"), certs.file("readable.key"));
  SwapAfterCheck swap(settings.key_file, matching);
  BOOST_TEST(failure_of(settings) ==
             "key_file " + settings.key_file + " is not the key of cert_file " + settings.cert_file);
  BOOST_TEST(swap.swapped());
}

BOOST_AUTO_TEST_CASE(a_world_readable_key_is_refused_naming_it) {
  cla::test::TlsCertificates certs;
  const auto settings = certs.settings();
  ::chmod(settings.key_file.c_str(), 0644);
  BOOST_TEST(failure_of(settings) == "key_file " + settings.key_file +
                                         ": is accessible to its group or other users (mode 0644); a secret "
                                         "file must not be: chmod go-rwx " +
                                         settings.key_file);
}

BOOST_AUTO_TEST_SUITE_END()
