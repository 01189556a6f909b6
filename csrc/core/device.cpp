// Definitions for core/device.h: parsing and printing devices.
#include <string>

#include "core/device.h"
#include "core/error.h"

namespace yaten {

// ---------------------------------------------------------------------------------------------------- devices

Device Device::parse(const std::string& text) {
  if (text == "cpu") return Device(DeviceType::CPU);
  if (text == "cuda") return Device(DeviceType::CUDA, -1);
  if (text.rfind("cuda:", 0) == 0 && text.size() > 5) {
    int index = 0;
    for (size_t i = 5; i < text.size(); ++i) {
      YATEN_CHECK(text[i] >= '0' && text[i] <= '9' && index < 100, RuntimeError,
                  "device: expected 'cpu', 'cuda' or 'cuda:N', got '", text, "'");
      index = index * 10 + (text[i] - '0');
    }
    return Device(DeviceType::CUDA, index);
  }
  YATEN_FAIL(RuntimeError, "device: expected 'cpu', 'cuda' or 'cuda:N', got '", text, "'");
}

std::string Device::str() const {
  if (is_cpu()) return "cpu";
  return index < 0 ? std::string("cuda") : "cuda:" + std::to_string(index);
}

}  // namespace yaten
