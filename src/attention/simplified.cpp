// simplified.cpp — simplified (projection-free) multi-head self-attention.
//   score_ij = x_i · m_j / √d_k                   scaled_dot's score with Q = x, K = V = m
// The idea: drop the query, key and value projections and let the token vectors attend to each other as
// they are. Scaled dot-product attention (scaled_dot.cpp) with W_Q = W_K = W_V = identity:
//   Q = x,  K = V = m                                         split into heads: [B, h, T, d_k], d_k = d_model / h
//   head_h = softmax(Q_h K_hᵀ / √d_k + mask) V_h              (the √d_k only when config.scale)
//   out    = concat(head_1 … head_h) W_Oᵀ                     the output projection stays
// The score of query i and key j is then the plain similarity x_i · m_j of their embeddings: a token attends
// most to tokens that already look like it (in self-attention often to itself, since x_i · x_i = |x_i|²), and
// what it gathers is the keys' own vectors. With no projections the heads differ only in which d_k features
// they compare. It is the "Q = K = V = X" self-attention many explanations start from before they introduce
// the learned projections, kept here as a kind of its own so that the projections can be switched off.
// Cost: O(n² · d) time and O(h · n²) memory for the weights, like scaled_dot, but 3 · (d² + d) fewer parameters
// (only W_O and its bias are left) and three fewer matrix products per layer.
// When it is worth using: as an ablation, to see what the learned projections buy (compare with scaled_dot on
// the same run); in very small models where parameters are scarce. Its limit: a query can only look for keys
// that resemble it, never for something else (a verb for its subject, say), which is what W_Q and W_K allow.
#include "attention/scaled_dot.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// scaled_dot's score and chain; multi_head.cpp projects through no Linear where there is none.
std::unique_ptr<Attention> make_simplified_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init) {
  return std::make_unique<ScaledDotAttention>(c, d_model, heads, dropout, init,
                                              ScaledDotAttention::Projections::identity);   // Q = x, K = V = m
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
