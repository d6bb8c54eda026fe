// attention/checks.h — gradient checks for the attention modules, parameters included ("attention.*").
#pragma once

#include <vector>

#include "autograd/gradcheck.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> softmax_attention_checks();          // checks/softmax_kinds.cpp
std::vector<GradcheckCase> external_linear_attention_checks();  // checks/external_linear.cpp
std::vector<GradcheckCase> local_attention_checks();            // checks/local.cpp
std::vector<GradcheckCase> reader_attention_checks();           // checks/reader.cpp: aoa, as_reader
std::vector<GradcheckCase> hard_attention_checks();             // checks/hard.cpp: the Gumbel-softmax relaxation

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
