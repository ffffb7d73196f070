// Quiet before approval (SPEC 3.10): after disablegossip a peer that took in the node's state during
// Cassandra's shutdown announce marks it up again and keeps sending it reads until its failure detector
// convicts it, 10-20 s later. An approval starts the impact at once, so the core approves only once the
// node's replica stages have completed no task for policy.quiet: two readings policy.quiet apart, equal.
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

namespace {
constexpr std::chrono::seconds kUnreadableRetry{1};

boost::json::object stage_fields(const StageCounts& c) {
  return {
      {"read_stage", c.read}, {"mutation_stage", c.mutation}, {"counter_mutation_stage", c.counter_mutation}};
}
}  // namespace

void Core::reset_quiet() {
  quiet_ = quiet_logged_ = stages_in_flight_ = stages_failure_logged_ = false;
  stages_reads_ = 0;
  stages_asked_at_.reset();
  stages_next_read_.reset();
  quiet_wait_from_.reset();
  quiet_since_.reset();
  stages_last_.reset();
}

// Whether `rec` may be approved as far as the node's traffic goes; asks for a reading when one is due. A
// reading is a read like the gate's: with nodetool, a JVM start, hence one every policy.quiet, not every
// poll.
bool Core::node_quiet(const EventRecord& rec, WallTime now, Actions& out) {
  if (policy_.quiet.count() == 0) return true;
  if (quiet_) {
    if (!quiet_logged_) {
      quiet_logged_ = true;
      boost::json::object f = stage_fields(*stages_last_);
      f["wait_ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(now - *quiet_wait_from_).count();
      f["quiet_s"] = policy_.quiet.count();
      f["readings"] = stages_reads_;
      log_event(out, Severity::info, "drain_quiet", rec, std::move(f));
    }
    return true;
  }
  if (!quiet_wait_from_) quiet_wait_from_ = now;
  if (stages_in_flight_) return false;
  // At NotBefore the impact comes without an approval: nothing to read for any more.
  if (rec.event.not_before && now >= *rec.event.not_before) return false;
  if (stages_next_read_ && now < *stages_next_read_) return false;
  stages_in_flight_ = true;
  stages_asked_at_ = now;
  out.push_back(ReadStages{});
  return false;
}

Actions Core::on_stages(const StagesOutcome& outcome, WallTime now) {
  Actions out;
  if (!stages_in_flight_) return out;  // the node came back meanwhile: a reading of no drain
  stages_in_flight_ = false;
  ++stages_reads_;
  if (!outcome.counts) {
    // No proof that the node left the request path: no approval (the impact still comes at NotBefore).
    if (!stages_failure_logged_) {
      stages_failure_logged_ = true;
      log(out, Severity::warning, "stages_unreadable",
          {{"detail", outcome.detail}, {"retry_in_s", kUnreadableRetry.count()}});
    }
    stages_next_read_ = now + kUnreadableRetry;
  } else if (!stages_last_ || *stages_last_ != *outcome.counts) {
    // Moved (or first read): the quiet period starts at this answer, and the next reading is asked after it.
    stages_last_ = outcome.counts;
    quiet_since_ = now;
    stages_next_read_ = now + policy_.quiet;
  } else if (*stages_asked_at_ >= *quiet_since_ + policy_.quiet) {
    quiet_ = true;  // unchanged from an answer to a reading asked policy.quiet later
  } else {
    stages_next_read_ = *quiet_since_ + policy_.quiet;
  }
  advance(now, out);
  return out;
}

}  // namespace cla
