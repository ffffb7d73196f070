// The one translation unit that compiles Asio (with its TLS layer), Beast and Process v2 (separate
// compilation).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
#include <boost/process/v2/src.hpp>
