// Random numbers: a counter-based Philox4x32-10 generator (Salmon, Moraes, Dror, Shaw: "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011), as torch uses on CUDA.
//
// A Generator is a handle (copies share one state) to a 64-bit seed, the Philox key, and a 64-bit offset, the next
// unused counter. A random op reserves the counters it needs with reserve(n) under the state's lock and then derives
// element i's bits from counter (first + i / lanes) alone, so any split of the work between threads gives the same
// numbers, and the same seed gives the same numbers on every machine and on every device (the CUDA kernels derive
// their elements from the same counters with the same math: kernels/random_math.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/device.h"
#include "core/half.h"  // YATEN_HOST_DEVICE

namespace yaten {

// One Philox4x32-10 block: 128 random bits for a 64-bit key and a 128-bit counter (`high` is zero for yaten's own
// draws; it is there for the published known-answer vectors). Host and device code both call it, so the CPU and
// CUDA kernels draw the same bits for the same counter.
// Philox4x32's multipliers and Weyl increments (also used by the CPU's SIMD lanes: kernels/cpu/random_ops.h).
namespace philox {
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
constexpr int kRounds = 10;
}  // namespace philox
YATEN_HOST_DEVICE inline void philox4x32(uint64_t key, uint64_t counter, uint64_t high, uint32_t out[4]) {
  using philox::kM0, philox::kM1, philox::kW0, philox::kW1;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(high), c3 = static_cast<uint32_t>(high >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < philox::kRounds; ++round) {
    const uint64_t p0 = uint64_t(kM0) * c0, p1 = uint64_t(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += kW0;
    k1 += kW1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

inline std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter, uint64_t high = 0) {
  std::array<uint32_t, 4> r;
  philox4x32(key, counter, high, r.data());
  return r;
}

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // torch's default CPU seed
  explicit Generator(uint64_t seed = kDefaultSeed, Device device = Device());

  // The device whose random ops take this generator (a CPU generator for CPU tensors, cuda:N for tensors there).
  Device device() const { return device_; }

  uint64_t initial_seed() const;
  void manual_seed(uint64_t seed);  // also rewinds the offset
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // Reserves `n` consecutive counters for one call and returns the first; with it, the key to use.
  uint64_t reserve(uint64_t n, uint64_t* key);
  bool same_as(const Generator& other) const { return state_ == other.state_; }

 private:
  struct State;
  std::shared_ptr<State> state_;
  Device device_;
};

// The CPU default generator (yaten.manual_seed, yaten.default_generator).
Generator& default_generator();
// CUDA device `index`'s default generator (yaten.cuda.default_generators[index]): the same Philox stream as the
// CPU's, so with one seed a CUDA random op draws what the CPU op draws.
Generator& cuda_default_generator(int index);
// The generator a random op on `device` uses: `g` (RuntimeError naming `op` when it is another device's generator)
// or the device's default one.
Generator generator_for(const char* op, const std::optional<Generator>& g, Device device);

// A seed from the OS's entropy source (yaten.seed()).
uint64_t nondeterministic_seed();

}  // namespace yaten
