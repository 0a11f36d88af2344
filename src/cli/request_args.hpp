// The request flags (--prompt-len / --gen-len, and compare's --rank-by) shared by `compare` and `search`
// (docs/model.md "Requests").
#pragma once

#include <optional>
#include <string>

#include "model_args.hpp"

namespace tenet_cost::cli {

struct RequestArgs {
  model::Request request;
  std::string rank_by = "listed";
};

/// --prompt-len, --gen-len and (`rank_by`) --rank-by.
void add_request_options(CLI::App* cmd, RequestArgs& r, bool rank_by);
/// The request the flags ask for (nullopt: none); --prompt-len sets the prefill's prompt (--seq-len) and, without
/// --context, the one-step columns' context is the request's first decode step. --rank-by without a request is an
/// InputError.
std::optional<model::Request> request_of(const CLI::App* cmd, const RequestArgs& r, ModelArgs& args);

}  // namespace tenet_cost::cli
