#pragma once
// Figures drawn by gnuplot (Debian's gnuplot-nox): a figure is one or more panels side by side,
// each with line series; write_svg pipes a gnuplot script with the data inline to `gnuplot`
// (core/io/run_program.h, no shell) and writes the SVG it prints atomically (core/io/output_file.h).
#include <filesystem>
#include <string>
#include <vector>

namespace tg::lessons {

struct Series {
  std::string name;
  std::vector<double> x, y;
};

// On a log y axis an exact 0 (a leak that is exactly none) is drawn at the axis floor, a decade
// below the smallest positive value, whose tick is labelled "0".
struct Panel {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  std::vector<std::string> x_labels;  // when set, x[i] = i and these label the ticks
  std::vector<Series> series;
};

struct Figure {
  std::string title;
  std::vector<Panel> panels;
};

std::string gnuplot_script(const Figure& figure);  // the SVG goes to gnuplot's stdout
double log_axis_floor(const Panel& panel);        // where a log_y panel draws 0 (above)
// Throws tg::Error("experiment", ...) when gnuplot is missing (naming the package) or fails.
void write_svg(const Figure& figure, const std::filesystem::path& svg);

}  // namespace tg::lessons
