// intervention.cpp — switched-off heads, masked source words and swapped layers (intervention.h says what each
// one means and why a head is switched off by zeroing its block of W_O).
#include "model/intervention.h"

#include <algorithm>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// "cross-attention", "encoder self-attention", "decoder self-attention": how messages name a use.
std::string use_title(AttentionUse use) {
  if (use == AttentionUse::cross) return "cross-attention";
  return std::string(use == AttentionUse::encoder_self ? "encoder" : "decoder") + " self-attention";
}

const AttentionConfig& attention_config(const ModelConfig& config, AttentionUse use) {
  if (use == AttentionUse::encoder_self) return config.encoder_attention;
  return use == AttentionUse::decoder_self ? config.decoder_attention : config.cross_attention;
}

}  // namespace

std::string attention_module_name(AttentionUse use, int64_t layer) {
  const std::string side = use == AttentionUse::encoder_self ? "encoder" : "decoder";
  return side + ".layers." + std::to_string(layer) + (use == AttentionUse::cross ? ".encoder_attn" : ".self_attn");
}

int64_t heads_of(const ModelConfig& config, AttentionUse use) {
  return attention_config(config, use).kind == AttentionKind::sagan ? 1 : config.heads;
}

int64_t layers_of(const ModelConfig& config, AttentionUse use) {
  return use == AttentionUse::encoder_self ? config.encoder_layers : config.decoder_layers;
}

void check_head(const ModelConfig& config, const HeadRef& head) {
  const int64_t layers = layers_of(config, head.use), heads = heads_of(config, head.use);
  if (head.layer < 0 || head.layer >= layers) {
    throw Error(use_title(head.use) + " has layers 0 … " + std::to_string(layers - 1) + " (model." +
                (head.use == AttentionUse::encoder_self ? "encoder" : "decoder") + "_layers = " +
                std::to_string(layers) + "), not " + std::to_string(head.layer));
  }
  if (head.head < 0 || head.head >= heads) {
    throw Error(use_title(head.use) + " has heads 0 … " + std::to_string(heads - 1) +
                (heads == 1 ? " (sagan attention has one head)" : " (model.heads = " + std::to_string(heads) + ")") +
                ", not " + std::to_string(head.head));
  }
}

std::vector<int32_t> mask_source(std::vector<int32_t> source_ids, const std::vector<int64_t>& masked) {
  const auto S = static_cast<int64_t>(source_ids.size());
  for (int64_t s : masked) {
    if (s < 0 || s >= S) {
      throw Error("source position " + std::to_string(s) + " is not in the sentence: it has " + std::to_string(S) +
                  " tokens" + (S > 0 ? " (positions 0 … " + std::to_string(S - 1) + ")" : ""));
    }
    source_ids[static_cast<size_t>(s)] = unk_id;                              // x_s ← <unk>
  }
  return source_ids;
}

// ---------------------------------------------------------------- the scope that changes parameters

InterventionScope::InterventionScope(Seq2Seq& model, const Intervention& intervention) {
  if (intervention.switched_off.empty() && intervention.swaps.empty()) return;   // nothing to change
  std::map<std::string, Tensor> parameters;
  for (const NamedParameter& p : model.named_parameters()) parameters.emplace(p.name, p.tensor);
  try {
    for (const LayerSwap& swap : intervention.swaps) swap_layer(parameters, swap);
    for (const HeadRef& head : intervention.switched_off) switch_off(parameters, model.config(), head);
  } catch (...) {
    restore();                                                                // an error changes nothing
    throw;
  }
}

InterventionScope::~InterventionScope() { restore(); }

void InterventionScope::restore() {
  for (auto& [name, saved] : saved_) std::copy(saved.second.begin(), saved.second.end(), saved.first.data());
  saved_.clear();
}

void InterventionScope::save(const std::string& name, const Tensor& tensor) {
  if (saved_.count(name) > 0) return;                                         // keep the original
  saved_.emplace(name, std::pair(tensor, std::vector<real>(tensor.data(), tensor.data() + tensor.numel())));
}

// Every parameter of the layer takes the other checkpoint's value; the other must have exactly the layer's names
// and shapes (a checkpoint of another shape was refused when it was loaded, so this guards the caller).
void InterventionScope::swap_layer(const std::map<std::string, Tensor>& parameters, const LayerSwap& swap) {
  const std::string prefix = swap.layer + ".";
  const auto in_layer = std::count_if(parameters.begin(), parameters.end(),
                                      [&](const auto& p) { return p.first.rfind(prefix, 0) == 0; });
  if (in_layer == 0 || in_layer != static_cast<int64_t>(swap.parameters.size())) {
    throw Error("cannot swap " + swap.layer + ": the model has " + std::to_string(in_layer) +
                " parameters there and the other checkpoint " + std::to_string(swap.parameters.size()));
  }
  for (const NamedParameter& other : swap.parameters) {
    const auto found = parameters.find(other.name);
    if (other.name.rfind(prefix, 0) != 0 || found == parameters.end() ||
        found->second.shape() != other.tensor.shape()) {
      throw Error("cannot swap " + swap.layer + ": the other checkpoint's " + other.name + " " +
                  other.tensor.shape().str() + " has no parameter of that name and shape in the layer");
    }
    Tensor target = found->second;                                            // a handle: the model's own numbers
    save(other.name, target);
    std::copy(other.tensor.data(), other.tensor.data() + other.tensor.numel(), target.data());
  }
}

// head_h's term of Σ_h head_h W_O,hᵀ removed: W_O [d_model, H · d_v] gets zeros in columns h·d_v … (h+1)·d_v − 1
// (sagan: γ = 0, its one head).
void InterventionScope::switch_off(const std::map<std::string, Tensor>& parameters, const ModelConfig& config,
                                   const HeadRef& head) {
  check_head(config, head);
  const std::string module = attention_module_name(head.use, head.layer);
  if (heads_of(config, head.use) == 1 && parameters.count(module + ".gamma") > 0) {
    Tensor gamma = parameters.at(module + ".gamma");                          // [1]
    save(module + ".gamma", gamma);
    std::fill(gamma.data(), gamma.data() + gamma.numel(), real(0));
    return;
  }
  const auto found = parameters.find(module + ".out_proj.weight");
  if (found == parameters.end()) throw Error(module + " has no output projection W_O to switch a head off in");
  Tensor W_O = found->second;                                                 // [d_model, H · d_v]
  const int64_t rows = W_O.size(0), columns = W_O.size(1), d_v = columns / heads_of(config, head.use);
  save(found->first, W_O);
  real* w = W_O.data();
  for (int64_t r = 0; r < rows; ++r) {
    std::fill(w + r * columns + head.head * d_v, w + r * columns + (head.head + 1) * d_v, real(0));   // W_O,h = 0
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
