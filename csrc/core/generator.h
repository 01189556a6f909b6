// Random numbers: a counter-based Philox4x32-10 generator (Salmon, Moraes, Dror, Shaw: "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011), as torch uses on CUDA.
//
// A Generator is a handle (copies share one state) to a 64-bit seed, the Philox key, and a 64-bit offset, the next
// unused counter. A random op reserves the counters it needs with reserve(n) under the state's lock and then derives
// element i's bits from counter (first + i / lanes) alone, so any split of the work between threads gives the same
// numbers, and the same seed gives the same numbers on every machine.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

namespace yaten {

// One Philox4x32-10 block: 128 random bits for a 64-bit key and a 128-bit counter (`high` is zero for yaten's own
// draws; it is there for the published known-answer vectors).
inline std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter, uint64_t high = 0) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(high), c3 = static_cast<uint32_t>(high >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
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
  return {c0, c1, c2, c3};
}

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // torch's default CPU seed
  explicit Generator(uint64_t seed = kDefaultSeed);

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
};

// The CPU default generator (yaten.manual_seed, yaten.default_generator).
Generator& default_generator();
inline Generator generator_or_default(const std::optional<Generator>& g) { return g ? *g : default_generator(); }
// A seed from the OS's entropy source (yaten.seed()).
uint64_t nondeterministic_seed();

}  // namespace yaten
