// Test helper: the recorded etcd gateway answers under tests/data/etcd/, parsed from their raw HTTP bytes.
#pragma once

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cla::test {

inline std::filesystem::path etcd_data_dir() {
  return std::filesystem::path(CLA_TEST_DATA_DIR) / "etcd";
}

// The raw bytes of tests/data/etcd/NAME.http.
inline std::string etcd_raw_answer(const std::string& name) {
  const auto path = etcd_data_dir() / (name + ".http");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read test data " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct EtcdAnswer {
  int status = 0;
  std::string body;  // de-chunked, as the client's parser hands it over
  bool chunked = false;
};

// Parses the recorded response with Beast's parser, as EtcdClient does on the socket.
inline EtcdAnswer etcd_answer(const std::string& name) {
  const std::string raw = etcd_raw_answer(name);
  boost::beast::http::response_parser<boost::beast::http::string_body> parser;
  parser.eager(true);
  boost::beast::error_code ec;
  std::size_t used = 0;
  while (!parser.is_done() && !ec && used < raw.size())
    used += parser.put(boost::asio::buffer(raw.data() + used, raw.size() - used), ec);
  if (ec || !parser.is_done()) throw std::runtime_error(name + ".http: not a complete HTTP response");
  EtcdAnswer answer;
  answer.chunked = parser.chunked();
  const auto response = parser.release();
  answer.status = static_cast<int>(response.result_int());
  answer.body = response.body();
  return answer;
}

// The names (without .http) of every recorded answer, sorted.
inline std::vector<std::string> etcd_answer_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(etcd_data_dir()))
    if (entry.path().extension() == ".http") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace cla::test
