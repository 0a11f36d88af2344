// estimate --convention scalesim | timeloop: the plan's GEMMs counted as SCALE-Sim v3 or Timeloop counts them
// (docs/validation.md).
#pragma once

#include <string>

#include "model_args.hpp"

namespace tenet_cost::cli {

/// The output of `estimate --convention scalesim` (table | csv | json) for the flags in `a`.
std::string scalesim_convention_report(const ModelArgs& a);

/// The output of `estimate --convention timeloop` (table | csv | json) for the flags in `a`.
std::string timeloop_convention_report(const ModelArgs& a);

}  // namespace tenet_cost::cli
