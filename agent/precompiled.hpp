// Heavy headers parsed once per target (precompiled header), to keep 2-core builds fast.
#pragma once
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>
