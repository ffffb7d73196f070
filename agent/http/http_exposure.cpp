// The endpoint's exposure: loopback or not, and the warning's text (routes as http_route.cpp answers them).
#include "agent/http/http_exposure.hpp"

#include <string>

#include "imds/endpoint.hpp"

namespace cla {

std::optional<boost::json::object> exposure_warning(std::string_view listen,
                                                    const boost::asio::ip::tcp::endpoint& bound) {
  if (is_loopback(bound.address())) return std::nullopt;
  return boost::json::object{
      {"listen", listen},
      {"serves",
       "/healthz (whether IMDS answers), /metrics (this VM's name, fault domain and rack, its pending "
       "events' ids, types and NotBefore, the node's phase), /state (the agent's state: the events seen "
       "with their ids and the VMs they list, what was drained and approved, when), without "
       "authentication, to anyone who reaches " +
           std::string(bound.address().is_unspecified() ? "any address of this host" : "this address") +
           " on port " + std::to_string(bound.port())},
      {"hint",
       "keep http.listen on 127.0.0.1 unless Prometheus scrapes it from another host; then bind the one "
       "address Prometheus reaches and let only Prometheus reach the port (a firewall rule; in Kubernetes a "
       "NetworkPolicy: deploy/README.md, \"Kubernetes sidecar\")"}};
}

}  // namespace cla
