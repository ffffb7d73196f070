// AnswerParser: an HTTP/1.1 response parsed into what the IMDS and etcd clients read (HttpAnswer).
#include "imds/transport/answer_parser.hpp"

namespace cla {

HttpAnswer AnswerParser::release() {
  answer_.keep_alive = keep_alive();
  return std::move(answer_);
}

void AnswerParser::on_response_impl(int code, string_view reason, int, error_code&) {
  answer_.status = code;
  answer_.reason.assign(reason.data(), reason.size());
}

void AnswerParser::on_field_impl(field name, string_view, string_view value, error_code&) {
  if (name == field::location && answer_.location.empty())
    answer_.location.assign(value.data(), value.size());
}

// The body limit is already enforced (basic_parser::body_limit): Content-Length is reserved at once.
void AnswerParser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length, error_code&) {
  if (content_length) answer_.body.reserve(static_cast<std::size_t>(*content_length));
}

std::size_t AnswerParser::on_body_impl(string_view body, error_code&) {
  answer_.body.append(body.data(), body.size());
  return body.size();
}

std::size_t AnswerParser::on_chunk_body_impl(std::uint64_t, string_view body, error_code&) {
  answer_.body.append(body.data(), body.size());
  return body.size();
}

}  // namespace cla
