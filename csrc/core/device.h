// Where a tensor's memory lives: the CPU, or one CUDA device.
#pragma once

#include <cstdint>
#include <string>

namespace yaten {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1 on the CPU; for CUDA, -1 means "the current device" only while parsing

  Device() = default;
  Device(DeviceType t, int index_ = -1) : type(t), index(static_cast<int8_t>(index_)) {}
  // Parses "cpu", "cuda", "cuda:1"; raises ValueError otherwise.
  static Device parse(const std::string& text);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  // "cpu", "cuda:0": the form torch prints and parses.
  std::string str() const;
};

}  // namespace yaten
