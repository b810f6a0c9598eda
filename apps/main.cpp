// The tapegrad program: see apps/cli.h.
#include <string>
#include <vector>

#include "apps/cli.h"

int main(int argc, char** argv) { return tg::cli::run(std::vector<std::string>(argv, argv + argc)); }
