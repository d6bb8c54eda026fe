// Exercise gradient_clipping (chapter train): clip the gradients by their global norm.
//
// One bad batch can give a gradient a hundred times the usual size, and one step along it can undo a thousand
// good ones. Clipping bounds the step's size and keeps its direction (Pascanu et al. 2013; PyTorch's
// torch.nn.utils.clip_grad_norm_). Treat the gradients of all the parameters as one long vector g:
//
//   ‖g‖ = √( Σ over the parameters k, Σ over their numbers i, g_k,i² )          one number for the whole model
//   if ‖g‖ > max_norm:   g_k,i ← g_k,i · max_norm / (‖g‖ + 10⁻⁶)               every number, the same factor
//   return ‖g‖ (before clipping: the trainer logs it)
//
// One norm for all, not one per parameter: scaling each parameter by its own factor would turn the vector, and
// a parameter whose gradient is small on its own would keep it while the others shrink. Below max_norm nothing
// changes. The 10⁻⁶ is the library's (and PyTorch's): it keeps the division finite and the clipped norm just
// under max_norm.
//
// Shapes: gradients[k] holds the n_k numbers of parameter k's gradient, laid flat (a [2, 3] weight is 6 numbers).
// Sum the squares in double.
//
// Check:  tools/exercise.sh gradient_clipping
//   gives the same gradients to the library's clip_grad_norm (src/train/clip.h) and to yours, and compares the
//   gradients after clipping and the norm returned: three parameters clipped, then gradients below max_norm.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

double clip_by_global_norm(std::vector<std::vector<real>>& gradients, double max_norm) {
  // TODO: ‖g‖ over all the gradients, then scale every one of them when ‖g‖ > max_norm.
  return 0;
}

}  // namespace attnlab::exercises
