// Request bodies for etcd's v3 JSON gateway: base64 keys and values, int64s as decimal strings.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "imds/transport/base64.hpp"

namespace cla::etcd_codec {
namespace {

namespace json = boost::json;

// The gateway reads int64 fields from strings (it writes them so too: JSON numbers lose precision above
// 2^53).
json::string int64_text(std::int64_t n) {
  return json::string(std::to_string(n));
}

// {"key": ..., "range_end": ...}: range_end only when given.
json::object key_range(std::string_view key, std::string_view range_end) {
  json::object o{{"key", base64_encode(key)}};
  if (!range_end.empty()) o["range_end"] = base64_encode(range_end);
  return o;
}

json::object put_object(const EtcdPut& put) {
  json::object o{{"key", base64_encode(put.key)}, {"value", base64_encode(put.value)}};
  if (put.lease != 0) o["lease"] = int64_text(put.lease);
  return o;
}

std::string_view target_name(EtcdCompare::Target target) {
  switch (target) {
    case EtcdCompare::Target::version:
      return "VERSION";
    case EtcdCompare::Target::create:
      return "CREATE";
    case EtcdCompare::Target::mod:
      return "MOD";
    case EtcdCompare::Target::value:
      return "VALUE";
    case EtcdCompare::Target::lease:
      return "LEASE";
  }
  return "VERSION";
}

std::string_view op_name(EtcdCompare::Op op) {
  switch (op) {
    case EtcdCompare::Op::equal:
      return "EQUAL";
    case EtcdCompare::Op::greater:
      return "GREATER";
    case EtcdCompare::Op::less:
      return "LESS";
    case EtcdCompare::Op::not_equal:
      return "NOT_EQUAL";
  }
  return "EQUAL";
}

json::object compare_object(const EtcdCompare& c) {
  json::object o = key_range(c.key, c.range_end);
  o["target"] = target_name(c.target);
  o["result"] = op_name(c.op);
  switch (c.target) {
    case EtcdCompare::Target::version:
      o["version"] = int64_text(c.number);
      break;
    case EtcdCompare::Target::create:
      o["create_revision"] = int64_text(c.number);
      break;
    case EtcdCompare::Target::mod:
      o["mod_revision"] = int64_text(c.number);
      break;
    case EtcdCompare::Target::value:
      o["value"] = base64_encode(c.value);
      break;
    case EtcdCompare::Target::lease:
      o["lease"] = int64_text(c.number);
      break;
  }
  return o;
}

struct OpObject {
  json::object operator()(const EtcdPut& put) const { return {{"request_put", put_object(put)}}; }
  json::object operator()(const EtcdDelete& del) const {
    return {{"request_delete_range", key_range(del.key, del.range_end)}};
  }
  json::object operator()(const EtcdGet& get) const {
    json::object range = key_range(get.key, get.range_end);
    if (get.answer == EtcdGet::Answer::keys) range["keys_only"] = true;
    if (get.answer == EtcdGet::Answer::count) range["count_only"] = true;
    if (get.serializable) range["serializable"] = true;
    return {{"request_range", std::move(range)}};
  }
};

json::array op_array(const std::vector<EtcdOp>& ops) {
  json::array out;
  for (const auto& op : ops) out.emplace_back(std::visit(OpObject{}, op));
  return out;
}

}  // namespace

std::string encode_range(std::string_view key, std::string_view range_end) {
  return json::serialize(key_range(key, range_end));
}

std::string encode_put(const EtcdPut& put) {
  return json::serialize(put_object(put));
}

std::string encode_delete_range(const EtcdDelete& del) {
  return json::serialize(key_range(del.key, del.range_end));
}

std::string encode_txn(const std::vector<EtcdCompare>& compare, const std::vector<EtcdOp>& success,
                       const std::vector<EtcdOp>& failure) {
  json::array compares;
  for (const auto& c : compare) compares.emplace_back(compare_object(c));
  return json::serialize(json::object{
      {"compare", std::move(compares)}, {"success", op_array(success)}, {"failure", op_array(failure)}});
}

std::string encode_lease_grant(std::chrono::seconds ttl) {
  return json::serialize(json::object{{"TTL", int64_text(ttl.count())}});
}

std::string encode_lease_id(std::int64_t id) {
  return json::serialize(json::object{{"ID", int64_text(id)}});
}

std::string encode_authenticate(std::string_view name, std::string_view password) {
  return json::serialize(json::object{{"name", name}, {"password", password}});
}

}  // namespace cla::etcd_codec
