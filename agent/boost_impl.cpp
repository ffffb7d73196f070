// The one translation unit that compiles Asio, Beast and Process v2 (separate compilation).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
#include <boost/process/v2/src.hpp>
