// factory.cpp — from a config's attention kind to an attention module, with the checks a user needs.
#include "attention/attention.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

const char* use_name(AttentionUse use) {
  switch (use) {
    case AttentionUse::encoder_self: return "encoder";
    case AttentionUse::decoder_self: return "decoder";
    case AttentionUse::cross: return "cross";
  }
  return "?";
}

const std::vector<std::string>& choice_names(AttentionKind) {
  static const std::vector<std::string> names{"scaled_dot", "additive", "simplified", "sagan", "external",
                                              "linear",     "local_m",  "local_p",    "hard"};
  return names;
}
std::vector<AttentionKind> attention_kinds() { return all_choices<AttentionKind>(); }

const std::vector<std::string>& choice_names(HardEval) {
  static const std::vector<std::string> names{"argmax", "expectation", "sample"};
  return names;
}
const std::vector<std::string>& choice_names(HardEstimator) {
  static const std::vector<std::string> names{"reinforce", "gumbel_st"};
  return names;
}
const std::vector<std::string>& choice_names(HardReward) {
  static const std::vector<std::string> names{"sentence", "position"};
  return names;
}
const std::vector<std::string>& choice_names(HardBaseline) {
  static const std::vector<std::string> names{"moving", "others"};
  return names;
}

std::unique_ptr<Attention> make_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                          int64_t heads, double dropout, Generator& init) {
  const std::string where = std::string("model.attention.") + use_name(use);
  if (heads <= 0 || d_model <= 0 || d_model % heads != 0) {
    throw Error(where + ": d_model (" + std::to_string(d_model) + ") must be a positive multiple of heads (" +
                std::to_string(heads) + ")");
  }
  if (c.has_window && (c.window_left < 0 || c.window_right < 0)) {
    throw Error(where + ".window: both sides must be ≥ 0, got [" + std::to_string(c.window_left) + ", " +
                std::to_string(c.window_right) + "]");
  }
  const std::string& kind = name_of(c.kind);
  if (c.has_window && (c.kind == AttentionKind::external || c.kind == AttentionKind::linear)) {
    throw Error(where + ".window: a window restricts a softmax over keys, and '" + kind +
                "' attention has none; use it with scaled_dot, additive, simplified, sagan or hard");
  }
  switch (c.kind) {
    case AttentionKind::scaled_dot: return make_scaled_dot_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::additive: return make_additive_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::simplified: return make_simplified_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::sagan: return make_sagan_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::external: return make_external_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::linear: return make_linear_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::local_m:
    case AttentionKind::local_p:
      if (c.has_window) {
        throw Error(where + ".window: " + kind + " has its own window [p_i − D, p_i + D] around its centre p_i; "
                    "set its half-width D with " + where + ".local_width instead");
      }
      if (c.local_width < 1) {
        throw Error(where + ".local_width must be a whole number ≥ 1 (D, the window's half-width), got " +
                    std::to_string(c.local_width));
      }
      return make_local_attention(c, use, d_model, heads, dropout, init);
    case AttentionKind::hard:
      if (!(c.hard_expectation >= 0 && c.hard_expectation <= 1) || !(c.hard_entropy >= 0) ||
          !(c.hard_baseline_decay >= 0 && c.hard_baseline_decay < 1)) {
        throw Error(where + ": hard_expectation must be in [0, 1], hard_entropy ≥ 0 and hard_baseline_decay in "
                    "[0, 1); got " + std::to_string(c.hard_expectation) + ", " + std::to_string(c.hard_entropy) +
                    ", " + std::to_string(c.hard_baseline_decay));
      }
      if (!(c.hard_discount >= 0 && c.hard_discount <= 1) || !(c.hard_clip >= 0)) {
        throw Error(where + ": hard_discount must be in [0, 1] and hard_clip ≥ 0; got " +
                    std::to_string(c.hard_discount) + ", " + std::to_string(c.hard_clip));
      }
      if (!(c.hard_temperature > 0) || !(c.hard_temperature_min > 0) || !(c.hard_temperature_decay >= 0)) {
        throw Error(where + ": hard_temperature and hard_temperature_min must be > 0 and hard_temperature_decay "
                    "≥ 0; got " + std::to_string(c.hard_temperature) + ", " + std::to_string(c.hard_temperature_min) +
                    ", " + std::to_string(c.hard_temperature_decay));
      }
      if (use == AttentionUse::encoder_self && c.hard_reward == HardReward::position) {
        throw Error(where + ".hard_reward: position credits each target position's samples; the encoder's queries "
                    "are source words: use hard_reward: sentence there");
      }
      return make_hard_attention(c, use, d_model, heads, dropout, init);
  }
  throw Error(where + ".kind: no attention kind numbered " + std::to_string(static_cast<int>(c.kind)));
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
