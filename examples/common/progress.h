// ProgressBar: training progress on one line, for people and for logs.
//
// On a terminal it redraws one line in place ('\r'), at most ten times a
// second and always for the last step:
//   [#############.................]  45% step 450/1000 loss 0.3121 acc 91.2% 12,345 ex/s
// Anywhere else (CI logs, files, pipes) redrawing would leave a mess, so it
// prints plain lines instead, one when `log_every_steps` steps or
// `log_every_seconds` seconds have passed since the last one, and one for the
// final step:
//   step 450/1000 (45%) loss 0.3121 acc 91.2% 12,345 ex/s
// `step` counts completed steps (total_steps at the end); accuracy is a
// fraction in [0, 1]. Programs that are not trainers pass their own metrics
// text and name their steps (SetUnit):
//   [#########.....................]  30% files 3/10 12.3 MB 45.6 MB/s
// Thread-compatible.
#ifndef FLOWVM_EXAMPLES_COMMON_PROGRESS_H_
#define FLOWVM_EXAMPLES_COMMON_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace flowvm::examples {

class ProgressBar {
 public:
  // kAuto: kBar if `out` is a terminal, kLines otherwise.
  enum class Style { kAuto, kBar, kLines };

  // Plain lines default to every total_steps / 10 steps or 30 seconds.
  explicit ProgressBar(int64_t total_steps, std::FILE* out = stderr, Style style = Style::kAuto);
  ~ProgressBar() { Finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // steps >= 1; seconds <= 0 turns the time trigger off.
  void SetLogInterval(int64_t steps, double seconds);
  bool is_bar() const { return bar_; }

  // What the steps are called ("step" by default, "files", "round", ...).
  void SetUnit(std::string unit) { unit_ = std::move(unit); }

  void Update(int64_t step, double loss, double accuracy, double examples_per_sec);
  // The same with `metrics` shown in place of loss, accuracy and examples/s.
  void Update(int64_t step, const std::string& metrics);
  // Shows the last update if it was not shown and ends the line. Later
  // calls do nothing.
  void Finish();

  // The text of one update, without '\r' or '\n' (for tests and summaries).
  std::string FormatBar(int64_t step, double loss, double accuracy, double examples_per_sec) const;
  std::string FormatLine(int64_t step, double loss, double accuracy, double examples_per_sec) const;
  std::string FormatBar(int64_t step, const std::string& metrics) const;
  std::string FormatLine(int64_t step, const std::string& metrics) const;

 private:
  using Clock = std::chrono::steady_clock;
  void Show();
  void Record(int64_t step);

  int64_t total_steps_;
  std::FILE* out_;
  bool bar_;
  int64_t every_steps_;
  double every_seconds_ = 30;
  bool finished_ = false;
  bool have_update_ = false;
  bool shown_ = true;  // whether the latest update is on screen
  bool drawn_ = false; // whether a bar is on the current line
  int64_t step_ = 0, last_shown_step_ = 0;
  std::string unit_ = "step";
  std::string metrics_;  // "loss ... ex/s" or the caller's text
  Clock::time_point last_shown_time_;
};

// 12345.6 -> "12,346".
std::string FormatThousands(double value);

}  // namespace flowvm::examples

#endif  // FLOWVM_EXAMPLES_COMMON_PROGRESS_H_
