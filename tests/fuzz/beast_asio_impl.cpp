// Asio (with its TLS context: the config's TLS files are loaded at validation) and Beast compiled once for
// the fuzz targets (agent/boost_impl.cpp also compiles Process v2, which they do not need).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
