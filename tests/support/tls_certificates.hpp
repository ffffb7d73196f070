// Test certificates for TLS to etcd, made by scripts/etcd-tls-certs.sh (openssl) in a temp dir that lives as
// long as the object: ca.pem, server.*, client.*, expired-client.*, other-ca.pem, other-client.* (see the
// script's header).
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "imds/transport/tls_settings.hpp"

namespace cla::test {

class TlsCertificates {
 public:
  TlsCertificates() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "cla-tls-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::string command = CLA_SOURCE_DIR "/scripts/etcd-tls-certs.sh '";
    command.append(dir_.string()).append("'");
    if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  }
  ~TlsCertificates() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TlsCertificates(const TlsCertificates&) = delete;
  TlsCertificates& operator=(const TlsCertificates&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  // The agent's settings: ca.pem, and `client`.pem/.key ("client", "expired-client", "other-client"; empty:
  // no client certificate).
  cla::TlsSettings settings(const std::string& client = "client") const {
    cla::TlsSettings s;
    s.ca_file = file("ca.pem");
    if (!client.empty()) {
      s.cert_file = file(client + ".pem");
      s.key_file = file(client + ".key");
    }
    return s;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace cla::test
