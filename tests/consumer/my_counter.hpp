// Production code templated on its primitives: std_types in the product, model_types in
// the tests. Types::name labels the object in atomcheck's reports and costs nothing in
// production.
#pragma once

template <class Types>
class Counter {
 public:
  Counter() { Types::name(n_, "n"); }
  void increment() {
    int seen = n_.load();
    while (!n_.compare_exchange_weak(seen, seen + 1)) {
    }
  }
  int get() const { return n_.load(); }

 private:
  typename Types::template atomic<int> n_{0};
};
