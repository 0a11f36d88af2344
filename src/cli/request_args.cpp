// The request flags (request_args.hpp).
#include "request_args.hpp"

#include "tenet_cost/error.hpp"

namespace tenet_cost::cli {

void add_request_options(CLI::App* cmd, RequestArgs& r, bool rank_by) {
  cmd->add_option("--prompt-len", r.request.prompt_len,
                  "Request prompt tokens P (default: --seq-len, 2048); gives TTFT, TPOT, e2e, requests/s, energy "
                  "per request");
  cmd->add_option("--gen-len", r.request.gen_len,
                  "Request output tokens G (default 256): the first from the prefill, G-1 decode steps at contexts "
                  "P+1 .. P+G-1");
  if (rank_by)
    cmd->add_option("--rank-by", r.rank_by,
                    "listed (default) | ttft | tpot | e2e | energy | edp: order of the rows "
                    "by the request's objective (needs --prompt-len or --gen-len)");
}

std::optional<model::Request> request_of(const CLI::App* cmd, const RequestArgs& r, ModelArgs& args) {
  const bool asked = cmd->count("--prompt-len") > 0 || cmd->count("--gen-len") > 0;
  if (!asked) {
    if (cmd->get_option_no_throw("--rank-by") != nullptr && cmd->count("--rank-by") > 0)
      throw InputError("--rank-by ranks requests: give --prompt-len or --gen-len");
    return std::nullopt;
  }
  model::Request req = r.request;
  if (cmd->count("--prompt-len") == 0) req.prompt_len = args.seq_len;
  else if (cmd->count("--seq-len") == 0) args.seq_len = req.prompt_len;
  // the one-step columns at the request's first decode step unless --context says otherwise
  if (cmd->count("--context") == 0)
    args.context = req.prompt_len + (req.gen_len > 1 && req.prompt_len < model::kMaxTokens ? 1 : 0);
  return req;
}

}  // namespace tenet_cost::cli
