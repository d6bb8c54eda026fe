// kernels/checks.h — gradient checks for the fused ops (src/kernels/checks/<file>.cpp). Each kernel is also
// checked against the chain of ops it replaces (tests/model/test_two_paths.cpp, tests/model/f64_two_paths.cpp).
#pragma once

#include <vector>

#include "autograd/gradcheck.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> linear_checks();                 // checks/fused_linear.cpp
std::vector<GradcheckCase> linear_cross_entropy_checks();   // checks/fused_linear.cpp
std::vector<GradcheckCase> fused_dropout_checks();          // checks/fused_dropout.cpp
std::vector<GradcheckCase> scaled_dot_attention_checks();   // checks/scaled_dot_attention.cpp
std::vector<GradcheckCase> banded_attention_checks();       // checks/banded_attention.cpp
std::vector<GradcheckCase> fused_layer_norm_checks();       // checks/layer_norm.cpp

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
