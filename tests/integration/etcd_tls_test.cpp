// EtcdClient over TLS to a real etcd with --client-cert-auth (SPEC 9 "TLS"), certificates made by openssl
// (scripts/etcd-tls-certs.sh): the right files work, password auth included; each wrong one is refused with
// its reason, reported to on_tls_failure; a rotated client certificate is used without a new client.
#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "agent/coordination/etcd/etcd_client.hpp"
#include "etcd_client_support.hpp"
#include "etcd_cluster.hpp"
#include "tests/support/tls_certificates.hpp"

namespace {

using namespace cla::test::etcd_client_tests;
namespace fs = std::filesystem;

// One etcd member serving https with client-certificate auth, and the certificates it trusts.
struct TlsEtcd {
  cla::test::TlsCertificates certs;
  EtcdCluster etcd{{.members = 1, .tls_dir = certs.dir()}};

  cla::EtcdClientOptions options(const cla::TlsSettings& tls, std::vector<cla::EtcdFailure>& reported) const {
    auto o = options_for(etcd.endpoints());
    o.tls = tls;
    o.on_tls_failure = [&reported](const cla::EtcdFailure& f) { reported.push_back(f); };
    return o;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_tls_test)

BOOST_AUTO_TEST_CASE(the_right_files_put_read_transact_and_keep_a_lease_and_password_auth_rides_on_tls) {
  TlsEtcd t;
  BOOST_TEST_REQUIRE(t.etcd.endpoint(0).starts_with("https://127.0.0.1:"));
  asio::io_context ioc;
  std::vector<cla::EtcdFailure> reported;
  cla::EtcdClient client(ioc.get_executor(), t.options(t.certs.settings(), reported));

  const auto put = await(ioc, client.put({"/cla-test/tls/a", "1", 0}));
  BOOST_TEST_REQUIRE(put.ok(), why(put));
  const auto read = await(ioc, client.range("/cla-test/tls/a"));
  BOOST_TEST_REQUIRE(read.ok(), why(read));
  BOOST_TEST_REQUIRE(read->kvs.size() == 1u);
  BOOST_TEST(read->kvs[0].value == "1");
  const auto lease = await(ioc, client.lease_grant(std::chrono::seconds(10)));
  BOOST_TEST_REQUIRE(lease.ok(), why(lease));
  const auto kept = await(ioc, client.lease_keepalive(lease.value()));
  BOOST_TEST_REQUIRE(kept.ok(), why(kept));
  BOOST_TEST(kept->count() > 0);
  std::vector<cla::EtcdCompare> compare;
  compare.emplace_back(cla::EtcdCompare::Target::value, cla::EtcdCompare::Op::equal, "/cla-test/tls/a", "", 0,
                       "1");
  std::vector<cla::EtcdOp> success;
  success.emplace_back(cla::EtcdPut("/cla-test/tls/b", "2"));
  const auto txn = await(ioc, client.txn(std::move(compare), std::move(success), {}));
  BOOST_TEST_REQUIRE(txn.ok(), why(txn));
  BOOST_TEST(txn->succeeded);
  BOOST_TEST(has_key(t.etcd, "/cla-test/tls/b"));
  BOOST_TEST(reported.empty());

  // With etcd's password auth on, the password and the token go inside the same TLS connection. etcd's
  // gateway then refuses a client certificate that carries a Common Name, and the failure says so.
  t.etcd.enable_auth("agent", "s3cret", "/cla-test/");
  auto auth_options = t.options(t.certs.settings(), reported);
  auth_options.username = "agent";
  auth_options.password = "s3cret";
  cla::EtcdClient with_cn(ioc.get_executor(), auth_options);
  const auto cn_put = await(ioc, with_cn.put({"/cla-test/tls/c", "3", 0}));
  BOOST_TEST_REQUIRE(!cn_put.ok());
  BOOST_TEST((cn_put.error().kind == Kind::auth), why(cn_put));
  BOOST_TEST(cn_put.error().detail.find("issue coordination.tls.cert_file without a CN") != std::string::npos,
             why(cn_put));
  auth_options.tls = t.certs.settings("nocn-client");
  cla::EtcdClient authenticated(ioc.get_executor(), auth_options);
  const auto auth_put = await(ioc, authenticated.put({"/cla-test/tls/c", "3", 0}));
  BOOST_TEST_REQUIRE(auth_put.ok(), why(auth_put));
  auth_options.password = "wrong";
  cla::EtcdClient refused(ioc.get_executor(), auth_options);
  const auto refused_put = await(ioc, refused.put({"/cla-test/tls/d", "4", 0}));
  BOOST_TEST_REQUIRE(!refused_put.ok());
  BOOST_TEST((refused_put.error().kind == Kind::auth), why(refused_put));
  BOOST_TEST(reported.empty());
}

BOOST_AUTO_TEST_CASE(each_wrong_file_or_name_is_refused_with_its_reason) {
  TlsEtcd t;
  auto wrong_ca = t.certs.settings();
  wrong_ca.ca_file = t.certs.file("other-ca.pem");
  auto wrong_name = t.certs.settings();
  wrong_name.server_name = "etcd.wrong.example";
  auto right_name = t.certs.settings();
  right_name.server_name = "localhost";  // the certificate carries it; the endpoint is 127.0.0.1
  struct Case {
    const char* what;
    cla::TlsSettings tls;
    std::string endpoint;
    const char* reason;  // empty: accepted
  };
  const std::string https = t.etcd.endpoint(0);
  const std::string plain_as_https = "https://127.0.0.1:" + std::to_string(t.etcd.client_port(0));
  const Case cases[] = {
      {"the right files", t.certs.settings(), https, ""},
      {"server_name the certificate carries", right_name, https, ""},
      {"a CA that did not sign the server's certificate", wrong_ca, https, "unknown_ca"},
      {"a server_name the certificate does not carry", wrong_name, https, "name_mismatch"},
      {"an expired client certificate", t.certs.settings("expired-client"), https, "handshake_refused"},
      {"no client certificate", t.certs.settings(""), https, "handshake_refused"},
      {"a client certificate of another CA", t.certs.settings("other-client"), https, "handshake_refused"},
      {"https to etcd's plain listener", t.certs.settings(), plain_as_https, "not_tls"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      asio::io_context ioc;
      std::vector<cla::EtcdFailure> reported;
      auto options = t.options(c.tls, reported);
      options.endpoints = {c.endpoint};
      cla::EtcdClient client(ioc.get_executor(), options);
      const auto r = await(ioc, client.range("/cla-test/tls/x"));
      if (std::string(c.reason).empty()) {
        BOOST_TEST(r.ok(), why(r));
        BOOST_TEST(reported.empty());
        continue;
      }
      BOOST_TEST_REQUIRE(!r.ok());
      BOOST_TEST((r.error().kind == Kind::tls), why(r));
      BOOST_TEST(r.error().tls_reason == c.reason, why(r));
      BOOST_TEST(r.error().endpoint == c.endpoint);
      BOOST_TEST_REQUIRE(reported.size() == 1u);
      BOOST_TEST(reported[0].tls_reason == c.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_rotated_client_certificate_is_used_at_the_next_connection_without_a_new_client) {
  TlsEtcd t;
  // The files the agent is configured with hold a certificate etcd refuses, then are replaced in place.
  const fs::path cert = t.certs.dir() / "rotating.pem";
  const fs::path key = t.certs.dir() / "rotating.key";
  auto install = [&](const std::string& name) {
    fs::copy_file(t.certs.file(name + ".pem"), cert, fs::copy_options::overwrite_existing);
    fs::copy_file(t.certs.file(name + ".key"), key, fs::copy_options::overwrite_existing);
  };
  install("other-client");
  auto tls = t.certs.settings();
  tls.cert_file = cert.string();
  tls.key_file = key.string();
  asio::io_context ioc;
  std::vector<cla::EtcdFailure> reported;
  cla::EtcdClient client(ioc.get_executor(), t.options(tls, reported));

  const auto before = await(ioc, client.range("/cla-test/tls/x"));
  BOOST_TEST_REQUIRE(!before.ok());
  BOOST_TEST(before.error().tls_reason == "handshake_refused", why(before));
  install("client");
  const auto after = await(ioc, client.range("/cla-test/tls/x"));
  BOOST_TEST(after.ok(), why(after));
}

BOOST_AUTO_TEST_SUITE_END()
