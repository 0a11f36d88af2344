// estimate --convention scalesim: the plan's GEMMs counted as SCALE-Sim v3 counts them (docs/validation.md).
#pragma once

#include <string>

#include "model_args.hpp"

namespace tenet_cost::cli {

/// The output of `estimate --convention scalesim` (table | csv | json) for the flags in `a`.
std::string scalesim_convention_report(const ModelArgs& a);

}  // namespace tenet_cost::cli
