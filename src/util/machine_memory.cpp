// machine_memory.cpp — the machine's memory from sysconf, and byte counts as text (see machine_memory.h).
#include "util/machine_memory.h"

#include <unistd.h>

#include <cstdio>

namespace attnlab {

double machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page_size);
}

std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 6) bytes /= 1000, ++unit;
  char text[48];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

}  // namespace attnlab
