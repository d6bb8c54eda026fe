// machine_memory.h — how much memory this machine has, and a byte count as people read it.
//
// A size read from a config (model.d_model: 1000000000) must be refused before it is allocated: an allocation
// that cannot succeed ends in std::bad_alloc, or worse, in the kernel's out-of-memory killer after the machine
// has swapped for minutes. So attnlab compares what a model would need with the machine's physical memory,
// sysconf(_SC_PHYS_PAGES) · sysconf(_SC_PAGESIZE) (the MemTotal line of /proc/meminfo), and says both.
#pragma once

#include <cstdint>
#include <string>

namespace attnlab {

// The machine's physical memory in bytes, or 0 when the system does not say.
double machine_memory_bytes();

// 512 bytes, 3.4 MB, 7.8 GB, 1.2 TB (powers of 1000, as disks and memory sticks are sold; two figures).
std::string bytes_text(double bytes);

}  // namespace attnlab
