// Integration-test helper: a directory that refuses writes on demand (tmpfs as root, chmod otherwise).
#include "faulty_dir.hpp"

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <fstream>

#include "cassandra_support.hpp"
#include "imds/process/process_runner.hpp"

namespace cla::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

CommandOutcome run(const std::vector<std::string>& argv) {
  return run_blocking(run_command(argv, 10s));
}

void run_or_fail(const std::vector<std::string>& argv) {
  const auto out = run(argv);
  BOOST_REQUIRE_MESSAGE(out.ok(), argv.at(0) << " " << argv.at(argv.size() - 2) << ": " << out.summary());
}

}  // namespace

FaultyDir::FaultyDir(fs::path dir) : dir_(std::move(dir)) {
  fs::create_directories(dir_);
  if (can_fill()) {
    run_or_fail({"mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir_.string()});
    mounted_ = true;
  }
}

FaultyDir::~FaultyDir() {
  if (mounted_) run({"umount", "-l", dir_.string()});
}

bool FaultyDir::can_fill() {
  return ::geteuid() == 0;
}

void FaultyDir::read_only(bool on) {
  if (mounted_)
    run_or_fail({"mount", "-o", on ? "remount,ro" : "remount,rw", dir_.string()});
  else
    fs::permissions(dir_, on ? fs::perms::owner_read | fs::perms::owner_exec : fs::perms::owner_all);
}

void FaultyDir::full(bool on) {
  BOOST_REQUIRE_MESSAGE(mounted_, "filling a directory up needs the tmpfs (root)");
  const fs::path filler = dir_ / "filler";
  if (!on) {
    fs::remove(filler);
    return;
  }
  std::ofstream out(filler, std::ios::binary);
  const std::string block(4096, 'x');
  for (int i = 0; i < 64 && out.write(block.data(), static_cast<std::streamsize>(block.size())); ++i)
    out.flush();
}

}  // namespace cla::test
