// factory.cpp — from a config's kind name to an attention module, with the checks a user needs.
#include "attention/attention.h"
#include "util/error.h"
#include "util/suggest.h"

namespace attnlab::inline ATTNLAB_PRECISION {

const char* use_name(AttentionUse use) {
  switch (use) {
    case AttentionUse::encoder_self: return "encoder";
    case AttentionUse::decoder_self: return "decoder";
    case AttentionUse::cross: return "cross";
  }
  return "?";
}

const std::vector<std::string>& attention_kinds() {
  static const std::vector<std::string> kinds{"scaled_dot", "additive", "simplified", "sagan", "external", "linear",
                                                "local_m",    "local_p",  "hard"};
  return kinds;
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
  if (c.has_window && (c.kind == "external" || c.kind == "linear")) {
    throw Error(where + ".window: a window restricts a softmax over keys, and '" + c.kind +
                "' attention has none; use it with scaled_dot, additive, simplified, sagan or hard");
  }
  if (c.kind == "scaled_dot") return make_scaled_dot_attention(c, use, d_model, heads, dropout, init);
  if (c.kind == "additive") return make_additive_attention(c, use, d_model, heads, dropout, init);
  if (c.kind == "simplified") return make_simplified_attention(c, use, d_model, heads, dropout, init);
  if (c.kind == "sagan") return make_sagan_attention(c, use, d_model, heads, dropout, init);
  if (c.kind == "external") {
    if (use == AttentionUse::cross) {
      throw Error(where + ": external attention cannot be cross-attention — its keys and values are learned "
                  "memories, not the encoder's output, so the decoder would never see the source sentence. "
                  "Use it for encoder or decoder self-attention");
    }
    if (c.memory_slots <= 0) throw Error(where + ".memory_slots must be positive");
    return make_external_attention(c, use, d_model, heads, dropout, init);
  }
  if (c.kind == "linear") return make_linear_attention(c, use, d_model, heads, dropout, init);
  if (c.kind == "local_m" || c.kind == "local_p") {
    if (c.has_window) {
      throw Error(where + ".window: " + c.kind + " has its own window [p_i − D, p_i + D] around its centre p_i; "
                  "set its half-width D with " + where + ".local_width instead");
    }
    if (c.local_width < 1) {
      throw Error(where + ".local_width must be a whole number ≥ 1 (D, the window's half-width), got " +
                  std::to_string(c.local_width));
    }
    return make_local_attention(c, use, d_model, heads, dropout, init);
  }
  if (c.kind == "hard") {
    if (c.hard_eval != "argmax" && c.hard_eval != "expectation") {
      throw Error(where + ".hard_eval: expected argmax or expectation, got '" + c.hard_eval + "'");
    }
    if (!(c.hard_expectation >= 0 && c.hard_expectation <= 1) || !(c.hard_entropy >= 0) ||
        !(c.hard_baseline_decay >= 0 && c.hard_baseline_decay < 1)) {
      throw Error(where + ": hard_expectation must be in [0, 1], hard_entropy ≥ 0 and hard_baseline_decay in "
                  "[0, 1); got " + std::to_string(c.hard_expectation) + ", " + std::to_string(c.hard_entropy) +
                  ", " + std::to_string(c.hard_baseline_decay));
    }
    return make_hard_attention(c, use, d_model, heads, dropout, init);
  }

  throw Error(where + ".kind: unknown attention kind '" + c.kind + "' (did you mean '" +
              closest_match(c.kind, attention_kinds()) + "'?); the kinds are " + join(attention_kinds()));
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
