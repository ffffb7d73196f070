// The state file's place: refused when another user could write to it or swap the file (see the header).
#include "state/state_location.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace cla {
namespace {

std::string octal(unsigned mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", mode & 07777);
  return text;
}

// "uid 999 (cassandra)", or "uid 12345" when no account has it.
std::string describe_uid(uid_t uid) {
  std::string out = "uid " + std::to_string(uid);
  std::vector<char> buf(4096);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buf.data(), buf.size(), &found) == 0 && found)
    out += std::string(" (") + found->pw_name + ")";
  return out;
}

std::string facts_text(const DirectoryFacts& facts) {
  return "mode " + octal(facts.mode) + ", owner " + describe_uid(facts.owner);
}

}  // namespace

std::optional<std::string> judge_state_directory(const std::string& dir, const DirectoryFacts& facts,
                                                 std::optional<uid_t> agent_uid) {
  const bool group = (facts.mode & S_IWGRP) != 0, others = (facts.mode & S_IWOTH) != 0;
  if (group || others)
    return "state directory " + dir + " is writable by " +
           (group && others ? "its group and others"
            : group         ? "its group"
                            : "others") +
           " (" + facts_text(facts) +
           "): another user could replace the state file; make it the agent's own (chmod " + "0700 " + dir +
           ")";
  if (agent_uid && facts.owner != *agent_uid)
    return "state directory " + dir + " is not owned by " + describe_uid(*agent_uid) +
           ", the agent's user (" + facts_text(facts) +
           "): chown it to the agent's user, or run the agent as its owner";
  return std::nullopt;
}

Result<bool> check_state_location(const std::string& state_file, std::optional<uid_t> agent_uid) {
  const std::filesystem::path file(state_file);
  const std::string dir = file.has_parent_path() ? file.parent_path().string() : ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return true;  // the first write creates it, mode 0700
    return make_error("cannot stat state directory " + dir + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return make_error("state directory " + dir + " is not a directory");
  if (auto problem = judge_state_directory(dir, {st.st_mode & 07777u, st.st_uid}, agent_uid))
    return make_error(*problem);
  if (::lstat(state_file.c_str(), &st) != 0) {
    if (errno == ENOENT) return true;  // first start
    return make_error("cannot stat state file " + state_file + ": " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    return make_error(
        "state file " + state_file +
        " is a symbolic link: the agent writes a regular file of its own (mode 0600); remove the "
        "link, and move the file it points to in its place if it is the agent's state");
  if (!S_ISREG(st.st_mode))
    return make_error("state file " + state_file + " is not a regular file (" +
                      facts_text({st.st_mode & 07777u, st.st_uid}) + ")");
  return true;
}

}  // namespace cla
