#include "core/generator.h"

#include <mutex>
#include <random>

namespace yaten {

struct Generator::State {
  std::mutex mutex;
  uint64_t seed;
  uint64_t offset = 0;
};

Generator::Generator(uint64_t seed) : state_(std::make_shared<State>()) { state_->seed = seed; }

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->seed;
}
void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->seed = seed;
  state_->offset = 0;
}
uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->offset;
}
void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->offset = offset;
}
uint64_t Generator::reserve(uint64_t n, uint64_t* key) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  *key = state_->seed;
  const uint64_t first = state_->offset;
  state_->offset += n;
  return first;
}

Generator& default_generator() {
  static Generator* g = new Generator();  // never destroyed: ops may run while the process exits
  return *g;
}

uint64_t nondeterministic_seed() {
  std::random_device device;
  return (uint64_t(device()) << 32) ^ device();
}

}  // namespace yaten
