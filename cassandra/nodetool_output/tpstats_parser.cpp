// Parser for `nodetool tpstats`: the pool table's header names the columns ("All time blocked" is one), each
// row is a pool name and one integer per column, and the table ends at the first blank line.
#include "cassandra/nodetool_output/tpstats_parser.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "state/text.hpp"

namespace cla {

namespace {

// The column names after "Pool Name", the three words of "All time blocked" as one.
std::vector<std::string> column_names(std::string_view header) {
  std::vector<std::string> names;
  const auto words = split_words(header);
  for (std::size_t i = 2; i < words.size(); ++i) {
    if (words[i] == "All" && i + 2 < words.size() && words[i + 1] == "time" && words[i + 2] == "blocked") {
      names.emplace_back("All time blocked");
      i += 2;
    } else {
      names.emplace_back(words[i]);
    }
  }
  return names;
}

}  // namespace

Result<StageCounts> parse_tpstats(std::string_view stdout_text) {
  const auto lines = split_lines(stdout_text);
  std::size_t at = 0;
  while (at < lines.size() && !trim(lines[at]).starts_with("Pool Name")) ++at;
  if (at == lines.size())
    return make_error("no thread pool table (no \"Pool Name\" header) in nodetool tpstats");
  const std::vector<std::string> columns = column_names(trim(lines[at]));
  std::size_t completed = columns.size();
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == "Completed") completed = i;
  if (completed == columns.size())
    return make_error("no Completed column in nodetool tpstats' header: \"" + std::string(trim(lines[at])) +
                      "\"");

  StageCounts counts;
  for (++at; at < lines.size() && !trim(lines[at]).empty(); ++at) {
    const std::string_view line = trim(lines[at]);
    const auto words = split_words(line);
    if (words.size() != columns.size() + 1)
      return make_error("nodetool tpstats: a pool row of " + std::to_string(words.size()) + " fields, not " +
                        std::to_string(columns.size() + 1) + ": \"" + std::string(line) + "\"");
    for (std::size_t i = 1; i < words.size(); ++i)
      if (!is_integer_text(words[i]))
        return make_error("nodetool tpstats: not a count in \"" + std::string(line) + "\"");
    std::int64_t value = 0;
    const std::string_view field = words[completed + 1];
    if (std::from_chars(field.data(), field.data() + field.size(), value).ec != std::errc{} || value < 0)
      return make_error("nodetool tpstats: Completed out of range in \"" + std::string(line) + "\"");
    if (words[0] == "ReadStage") counts.read = value;
    if (words[0] == "MutationStage") counts.mutation = value;
    if (words[0] == "CounterMutationStage") counts.counter_mutation = value;
  }
  return counts;
}

}  // namespace cla
