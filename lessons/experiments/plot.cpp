#include "lessons/experiments/plot.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/io/run_program.h"

namespace tg::lessons {

namespace {

std::string quoted(const std::string& text) {  // a gnuplot single-quoted string: ' doubles
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

bool has_zero(const Panel& panel) {
  return std::any_of(panel.series.begin(), panel.series.end(),  // not std::ranges: libc++ 14 (lab/) lacks them
                     [](const Series& series) { return std::count(series.y.begin(), series.y.end(), 0.0) > 0; });
}

void write_panel(std::string& s, const Panel& panel, size_t p) {
  s += "unset logscale\nset grid\nset key top left box opaque\n";
  s += "set ytics autofreq\nset autoscale y\nset format y '% h'\n";  // undo the last panel's zero floor
  if (panel.log_x) s += "set logscale x 2\n";
  if (panel.log_y) s += "set logscale y 10\n";
  if (panel.log_y && has_zero(panel))
    s += fmt::format("set yrange [{0:.9g}:*]\nset format y '%g'\nset ytics add ('0' {0:.9g})\n",
                     log_axis_floor(panel));
  s += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", quoted(panel.title), quoted(panel.xlabel),
                   quoted(panel.ylabel));
  if (panel.x_labels.empty()) {
    s += "set xtics autofreq\nset autoscale x\n";
  } else {
    std::string tics;
    for (size_t i = 0; i < panel.x_labels.size(); ++i)
      tics += fmt::format("{}{} {}", i ? ", " : "", quoted(panel.x_labels[i]), i);
    s += fmt::format("set xtics ({})\nset xrange [-0.5:{}]\n", tics, panel.x_labels.size() - 0.5);
  }
  std::string plots;
  for (size_t k = 0; k < panel.series.size(); ++k)
    plots += fmt::format("{}$d{}_{} with linespoints lw 2 pt 7 title {}", k ? ", " : "", p, k,
                         quoted(panel.series[k].name));
  s += "plot " + plots + "\n";
}

}  // namespace

double log_axis_floor(const Panel& panel) {
  double smallest = INFINITY;
  for (const Series& series : panel.series)
    for (double y : series.y)
      if (y > 0) smallest = std::min(smallest, y);
  return std::isfinite(smallest) ? std::pow(10.0, std::floor(std::log10(smallest)) - 1) : 0.1;
}

std::string gnuplot_script(const Figure& figure) {
  std::string s;
  for (size_t p = 0; p < figure.panels.size(); ++p) {
    const Panel& panel = figure.panels[p];
    const double zero = panel.log_y ? log_axis_floor(panel) : 0;  // where 0 is drawn
    for (size_t k = 0; k < panel.series.size(); ++k) {
      const Series& series = panel.series[k];
      s += fmt::format("$d{}_{} << EOD\n", p, k);
      for (size_t i = 0; i < series.x.size(); ++i)
        s += fmt::format("{:.9g} {:.9g}\n", series.x[i], series.y[i] == 0 ? zero : series.y[i]);
      s += "EOD\n";
    }
  }
  s += fmt::format("set terminal svg size {},420 noenhanced font 'sans,11' background rgb 'white'\n",
                   460 * figure.panels.size());
  s += fmt::format("set multiplot layout 1,{} title {}\n", figure.panels.size(), quoted(figure.title));
  for (size_t p = 0; p < figure.panels.size(); ++p) write_panel(s, figure.panels[p], p);
  return s + "unset multiplot\nset output\n";
}

void write_svg(const Figure& figure, const std::filesystem::path& svg) {
  const std::string text = run_program("experiment", {"gnuplot"}, gnuplot_script(figure),
                                       "the plots are drawn by Debian's gnuplot-nox (apt-get install gnuplot-nox, "
                                       "or scripts/setup-debian.sh)");
  write_file_atomically("experiment", svg, text);
}

}  // namespace tg::lessons
