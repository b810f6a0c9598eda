// docs/tutorial.md, "Xavier initialisation": the signal through 8 Linear layers.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  const int64_t width = 64;
  for (double std : {0.0, 1.0, 0.001}) {  // 0: Xavier uniform, the default of nn::Linear
    Tensor h = randn({256, width});
    for (int layer = 0; layer < 8; ++layer) {
      nn::Linear linear(width, width, /*bias=*/false);
      if (std > 0) nn::init::normal_(linear.weight, 0, std);
      h = linear.forward(h);
    }
    double rms = std::sqrt(mean(mul(h, h)).item());
    fmt::print("{:<13} activation RMS after 8 layers: {:.3g}\n", std > 0 ? fmt::format("N(0,{})", std) : "Xavier", rms);
  }
}
