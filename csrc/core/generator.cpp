#include "core/generator.h"

#include <mutex>
#include <random>

#include "core/error.h"

namespace yaten {

struct Generator::State {
  std::mutex mutex;
  uint64_t seed;
  uint64_t offset = 0;
};

Generator::Generator(uint64_t seed, Device device) : state_(std::make_shared<State>()), device_(device) {
  state_->seed = seed;
}

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

Generator& cuda_default_generator(int index) {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static Generator* generators[kMaxDevices] = {};  // never destroyed, as the CPU's
  YATEN_CHECK(index >= 0 && index < kMaxDevices, RuntimeError, "cuda default generator: no device cuda:", index);
  std::lock_guard<std::mutex> lock(mutex);
  if (generators[index] == nullptr) {
    generators[index] = new Generator(Generator::kDefaultSeed, Device(DeviceType::CUDA, index));
  }
  return *generators[index];
}

Generator generator_for(const char* op, const std::optional<Generator>& g, Device device) {
  if (!g) return device.is_cuda() ? cuda_default_generator(device.index < 0 ? 0 : device.index) : default_generator();
  const Device gd = g->device();
  YATEN_CHECK(gd.type == device.type && (device.is_cpu() || gd.index == device.index), RuntimeError, op,
              ": expected a generator for ", device.str(), " (Generator(device='", device.str(),
              "')), but got one for ",
              gd.str());
  return *g;
}

uint64_t nondeterministic_seed() {
  std::random_device device;
  return (uint64_t(device()) << 32) ^ device();
}

}  // namespace yaten
