#include "dist/trainer_parallel.h"

namespace tg::dist {

void TrainerParallel::attach(const std::vector<NamedParameter>& parameters) {
  ddp_ = std::make_unique<DistributedDataParallel>(parameters,
                                                   DdpOptions{.bucket_bytes = bucket_bytes_, .reduce = Op::sum});
}

DistributedDataParallel& TrainerParallel::ddp() const {
  if (!ddp_) throw Error("TrainerParallel", "no model attached yet (the Trainer attaches its model when built)");
  return *ddp_;
}

void TrainerParallel::backward(const Tensor& loss, bool sync) { ddp().backward(loss, {.sync = sync}); }

void TrainerParallel::check_parameters_agree(const std::string& when) { ddp().check_parameters_agree(when); }

}  // namespace tg::dist
