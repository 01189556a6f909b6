// torch.use_deterministic_algorithms: whether kernels whose results can vary from run to run (a floating-point sum
// through atomic adds, whose order the hardware picks) may run. 0: they run; 1: they warn; 2: they raise. Every CPU
// kernel of yaten is deterministic; the CUDA kernels that are not call alert_not_deterministic before they launch,
// and cuDNN then chooses among its deterministic algorithms only.
#pragma once

namespace yaten {

int deterministic_algorithms_mode();
void set_deterministic_algorithms_mode(int mode);
// In mode 2 a RuntimeError naming `what`; in mode 1 a warning; in mode 0 nothing.
void alert_not_deterministic(const char* what);

}  // namespace yaten
