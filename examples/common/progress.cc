#include "common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace flowvm::examples {
namespace {

constexpr int kBarWidth = 30;
constexpr double kRedrawSeconds = 0.1;

std::string Printf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

}  // namespace

std::string FormatThousands(double value) {
  if (!std::isfinite(value)) return Printf("%g", value);
  std::string digits = Printf("%.0f", std::fabs(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (value <= -0.5) out.insert(out.begin(), '-');
  return out;
}

namespace {

std::string Metrics(double loss, double accuracy, double examples_per_sec) {
  std::string s = "loss ";
  s += Printf("%.4f", loss);
  s += " acc ";
  s += Printf("%.1f", accuracy * 100);
  s += "% ";
  s += FormatThousands(examples_per_sec);
  s += " ex/s";
  return s;
}

std::string Spaced(const std::string& metrics) { return metrics.empty() ? metrics : " " + metrics; }

}  // namespace

ProgressBar::ProgressBar(int64_t total_steps, std::FILE* out, Style style)
    : total_steps_(total_steps),
      out_(out),
      bar_(style == Style::kBar || (style == Style::kAuto && isatty(fileno(out)))),
      every_steps_(std::max<int64_t>(1, total_steps / 10)),
      last_shown_time_(Clock::now()) {}

void ProgressBar::SetLogInterval(int64_t steps, double seconds) {
  every_steps_ = std::max<int64_t>(1, steps);
  every_seconds_ = seconds;
}

std::string ProgressBar::FormatLine(int64_t step, double loss, double accuracy, double examples_per_sec) const {
  return FormatLine(step, Metrics(loss, accuracy, examples_per_sec));
}

std::string ProgressBar::FormatBar(int64_t step, double loss, double accuracy, double examples_per_sec) const {
  return FormatBar(step, Metrics(loss, accuracy, examples_per_sec));
}

std::string ProgressBar::FormatLine(int64_t step, const std::string& metrics) const {
  std::string s = unit_ + " ";
  s += std::to_string(step);
  if (total_steps_ > 0) {
    s += '/';
    s += std::to_string(total_steps_);
    s += " (";
    s += std::to_string(std::clamp<int64_t>(step * 100 / total_steps_, 0, 100));
    s += "%)";
  }
  return s + Spaced(metrics);
}

std::string ProgressBar::FormatBar(int64_t step, const std::string& metrics) const {
  const double fraction = total_steps_ > 0 ? std::clamp(double(step) / double(total_steps_), 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string s = "[";
  s.append(filled, '#');
  s.append(kBarWidth - filled, '.');
  s += "] ";
  s += Printf("%3.0f", std::floor(fraction * 100));
  s += "% ";
  s += unit_;
  s += ' ';
  s += std::to_string(step);
  if (total_steps_ > 0) {
    s += '/';
    s += std::to_string(total_steps_);
  }
  return s + Spaced(metrics);
}

void ProgressBar::Update(int64_t step, double loss, double accuracy, double examples_per_sec) {
  if (finished_) return;
  metrics_ = Metrics(loss, accuracy, examples_per_sec);
  Record(step);
}

void ProgressBar::Update(int64_t step, const std::string& metrics) {
  if (finished_) return;
  metrics_ = metrics;
  Record(step);
}

void ProgressBar::Record(int64_t step) {
  step_ = step;
  have_update_ = true;
  shown_ = false;
  const double since = std::chrono::duration<double>(Clock::now() - last_shown_time_).count();
  const bool last = total_steps_ > 0 && step >= total_steps_;
  const bool due = bar_ ? since >= kRedrawSeconds || !drawn_
                        : step - last_shown_step_ >= every_steps_ || (every_seconds_ > 0 && since >= every_seconds_);
  if (last || due) Show();
}

void ProgressBar::Show() {
  if (bar_) {
    // "\x1b[K" clears what a longer previous line left behind.
    std::fprintf(out_, "\r%s\x1b[K", FormatBar(step_, metrics_).c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", FormatLine(step_, metrics_).c_str());
  }
  std::fflush(out_);
  shown_ = true;
  last_shown_step_ = step_;
  last_shown_time_ = Clock::now();
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (have_update_ && !shown_) Show();
  if (drawn_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

}  // namespace flowvm::examples
