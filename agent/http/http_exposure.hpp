// Whether the HTTP endpoint answers beyond this host, and what the agent then warns about at start
// (`http_listen_exposed`): what the endpoint gives away to whoever reaches it, and how to restrict it.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string_view>

namespace cla {

// The fields of `http_listen_exposed` (`listen` as configured, `serves`, `hint`) for an endpoint bound to
// `bound`, or nothing when it is a loopback address.
std::optional<boost::json::object> exposure_warning(std::string_view listen,
                                                    const boost::asio::ip::tcp::endpoint& bound);

}  // namespace cla
