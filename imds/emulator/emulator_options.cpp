// imds-emulator's command-line values: --vm NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION] and listen
// addresses (loopback only).
#include "imds/emulator/emulator_options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "imds/json_read.hpp"
#include "state/scheduled_event.hpp"

namespace cla {
namespace {

std::optional<unsigned> parse_unsigned(std::string_view s, unsigned max) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value > max) return std::nullopt;
  return value;
}

bool valid_vm_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool valid_region(std::string_view region) {
  return !region.empty() && region.size() <= 32 &&
         std::all_of(region.begin(), region.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

constexpr std::string_view kRegionPrefix = "region=";

// "2,region=a" -> "2", "region=a"; "2," -> "2", "".
std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  for (;;) {
    const auto comma = text.find(',');
    fields.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return fields;
    text = text.substr(comma + 1);
  }
}

}  // namespace

Result<ListenAddress> parse_listen_address(std::string_view text, bool allow_remote) {
  auto fail = [&](std::string why) { return make_error(quoted_excerpt(text) + ": " + why); };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return fail("expected HOST:PORT, e.g. 127.0.0.1:0");
  std::string_view host = text.substr(0, colon);
  const auto port = parse_unsigned(text.substr(colon + 1), 65535);
  if (!port) return fail("the port must be 0..65535 (0 picks a free port)");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  ListenAddress out;
  out.port = static_cast<std::uint16_t>(*port);
  if (host == "localhost") {
    out.address = boost::asio::ip::make_address("127.0.0.1");
  } else {
    boost::system::error_code ec;
    out.address = boost::asio::ip::make_address(std::string(host), ec);
    if (ec) return fail("the host must be an IP address or localhost");
  }
  if (!out.address.is_loopback() && !allow_remote)
    return fail(
        "refusing to listen on a non-loopback address: the emulator has no authentication. Use "
        "127.0.0.1, or pass --allow-remote if you really mean it");
  return out;
}

Result<VmOption> parse_vm_option(std::string_view text, bool allow_remote) {
  auto fail = [&](std::string why) { return make_error("--vm " + quoted_excerpt(text) + ": " + why); };
  const auto first = text.find(',');
  const auto second = first == std::string_view::npos ? first : text.find(',', first + 1);
  if (second == std::string_view::npos)
    return fail("expected NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION], e.g. vm0,0,127.0.0.1:0");
  VmOption vm;
  vm.name = std::string(text.substr(0, first));
  if (!valid_vm_name(vm.name)) return fail("the name must be 1..128 letters, digits, '-', '_' or '.'");
  const auto fd = parse_unsigned(text.substr(first + 1, second - first - 1), 1000);
  if (!fd) return fail("the fault domain must be an integer 0..1000");
  vm.fault_domain = static_cast<int>(*fd);
  const auto third = text.find(',', second + 1);
  auto listen = parse_listen_address(text.substr(second + 1, third - second - 1), allow_remote);
  if (!listen) return fail(listen.error().message);
  vm.listen = *listen;
  if (third == std::string_view::npos) return vm;
  const auto fields = split_fields(text.substr(third + 1));
  std::size_t at = 0;
  if (!fields[at].starts_with(kRegionPrefix)) {
    vm.zone = std::string(fields[at++]);
    const bool plain =
        std::all_of(vm.zone.begin(), vm.zone.end(), [](unsigned char c) { return std::isalnum(c); });
    if (vm.zone.empty() || vm.zone.size() > 16 || !plain)
      return fail("the zone must be 1..16 letters or digits (Azure names zones 1, 2, 3)");
  }
  if (at < fields.size()) {
    if (!fields[at].starts_with(kRegionPrefix))
      return fail(quoted_excerpt(fields[at]) + ": expected region=REGION after the zone");
    vm.region = std::string(fields[at++].substr(kRegionPrefix.size()));
    if (!valid_region(vm.region))
      return fail("the region must be 1..32 letters, digits or '-', e.g. region=eastus2");
  }
  if (at < fields.size())
    return fail("nothing may follow region=REGION (NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION])");
  return vm;
}

Result<std::vector<VmOption>> parse_vm_options(const std::vector<std::string>& texts, bool allow_remote) {
  std::vector<VmOption> vms;
  for (const auto& text : texts) {
    auto vm = parse_vm_option(text, allow_remote);
    if (!vm) return vm.error();
    for (const auto& other : vms) {
      if (other.region != vm->region && iequals(other.region, vm->region))
        return make_error("--vm " + quoted_excerpt(text) + ": region " + quoted_excerpt(vm->region) +
                          " differs from " + other.name + "'s region " + quoted_excerpt(other.region) +
                          " only in case: spell a region one way");
      if (other.region == vm->region && iequals(other.name, vm->name))
        return make_error("--vm " + vm->name + " given twice" +
                          (vm->region.empty() ? "" : " in region " + vm->region) +
                          " (a VM name is unique within its region)");
    }
    vms.push_back(std::move(*vm));
  }
  return vms;
}

std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint) {
  const std::string host = endpoint.address().to_string();
  return (endpoint.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(endpoint.port());
}

}  // namespace cla
