// Fuzzes the decoders of etcd's JSON gateway answers: the first byte picks the decoder, the second the HTTP
// status, the rest is the body. A non-200 answer is never a success, and every failure is one the codec
// can give (not the client's connect/timeout/size/cancel kinds) and can be described.
#include <array>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using Kind = cla::EtcdFailure::Kind;
namespace codec = cla::etcd_codec;

void check_failure(const cla::EtcdFailure& failure, int status) {
  FUZZ_CHECK(failure.kind != Kind::connect && failure.kind != Kind::timeout &&
             failure.kind != Kind::body_too_large && failure.kind != Kind::cancelled);
  FUZZ_CHECK(!cla::to_string(failure.kind).empty() && !cla::describe(failure).empty());
  if (failure.kind == Kind::invalid_json || failure.kind == Kind::wrong_shape) FUZZ_CHECK(status == 200);
}

template <class T>
void check(const cla::Result<T, cla::EtcdFailure>& result, int status) {
  if (result.ok()) {
    FUZZ_CHECK(status == 200);
    return;
  }
  check_failure(result.error(), status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::array<int, 12> kStatuses{200, 200, 200, 200, 400, 401, 403, 404, 412, 429, 500, 503};
  if (size < 2) return 0;
  const int status = kStatuses[data[1] % kStatuses.size()];
  const std::string_view body = cla::fuzz::as_text(data + 2, size - 2);
  switch (data[0] % 9) {
    case 0:
      if (const auto failure = codec::answer_failure(status, body))
        check_failure(*failure, status);
      else
        FUZZ_CHECK(status == 200);
      break;
    case 1:
      check(codec::decode_range(status, body), status);
      break;
    case 2:
      check(codec::decode_put(status, body), status);
      break;
    case 3:
      check(codec::decode_delete_range(status, body), status);
      break;
    case 4:
      check(codec::decode_txn(status, body), status);
      break;
    case 5:
      check(codec::decode_lease_grant(status, body), status);
      break;
    case 6:
      check(codec::decode_lease_keepalive(status, body), status);
      break;
    case 7:
      check(codec::decode_lease_revoke(status, body), status);
      break;
    case 8:
      check(codec::decode_authenticate(status, body), status);
      break;
  }
  return 0;
}
