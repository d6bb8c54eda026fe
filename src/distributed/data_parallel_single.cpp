// data_parallel_single.cpp — the collectives of data_parallel.h in a build without MPI: one process is the
// whole job, rank 0 of 1, and summing or broadcasting over one rank changes nothing.
// CMakeLists.txt compiles this file instead of data_parallel_mpi.cpp when find_package(MPI) finds no MPI.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "distributed/data_parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// mpirun -np 4 on this build would start four separate runs, all writing the same run folder: refused.
MpiJob::MpiJob() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) size = std::getenv("PMI_SIZE");
  if (size != nullptr && std::string(size) != "1") {
    throw Error("this attnlab was built without MPI, but was started by mpirun as one of " + std::string(size) +
                " processes (they would be separate runs writing the same folder): install Open MPI "
                "(tools/install-deps.sh installs libopenmpi-dev), configure and build again");
  }
}

MpiJob::~MpiJob() = default;

namespace collective {

bool built_with_mpi() { return false; }
int rank() { return 0; }
int ranks() { return 1; }
int ranks_on_this_machine() { return 1; }
void sum_in_place(real*, int64_t) {}
void sum_in_place_double(double*, int64_t) {}
int max(int value) { return value; }
void broadcast(real*, int64_t) {}
void broadcast(int64_t*, int64_t) {}
void broadcast(std::string&) {}
void reduce_scatter_sum(const real* all, real* mine, int64_t block) { std::copy_n(all, block, mine); }
void all_gather(const real* mine, real* all, int64_t block) { std::copy_n(mine, block, all); }
void gather_to_root(const real* mine, real* all, int64_t block) { std::copy_n(mine, block, all); }
struct SumInFlight::Request {};
SumInFlight::SumInFlight() = default;
SumInFlight::SumInFlight(SumInFlight&&) noexcept = default;
SumInFlight::~SumInFlight() = default;
void SumInFlight::start(real*, int64_t) {}
bool SumInFlight::done() { return true; }
void SumInFlight::wait() {}
void barrier() {}
void abort_job(int exit_code) { std::exit(exit_code); }

}  // namespace collective

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
