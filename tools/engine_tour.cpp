// engine_tour.cpp — docs/course/02-autograd.md, as a program you can run and change.
//
// One layer y = softmax(xW + b), a squared-error loss against target probabilities, one backward pass,
// and the gradient ∂loss/∂W printed next to W. Run: ./build/release/engine_tour
#include <iostream>

#include "autograd/ops.h"

using namespace attnlab;

int main() {
  Generator gen(0);                                                  // seeded: same numbers every run
  Tensor x = Tensor::randn({4, 3}, gen);                             // [4, 3]  four inputs of 3 features
  Tensor W = Tensor::randn({3, 2}, gen, 0.5, /*requires_grad=*/true);  // [3, 2]  a parameter
  Tensor b = Tensor::zeros({2}, /*requires_grad=*/true);             // [2]     a parameter
  Tensor t = Tensor::from_values({4, 2}, {1, 0, 0, 1, 0, 1, 1, 0});  // [4, 2]  target probabilities

  Tensor z = add(matmul(x, W), b);                                   // [4, 2]  b is broadcast to every row
  Tensor y = softmax(z);                                             // [4, 2]  each row sums to 1
  Tensor e = sub(y, t);                                              // [4, 2]
  Tensor loss = mean(mul(e, e));                                     // [1]     mean squared error

  loss.backward();                                                   // fills W.grad and b.grad

  std::cout << "loss = " << loss.item() << "\n\n";
  std::cout << "W =\n" << W.matrix() << "\n\n";
  std::cout << "dloss/dW =\n" << W.grad_matrix() << "\n\n";
  std::cout << "dloss/db =\n" << b.grad_matrix() << "\n";
}
