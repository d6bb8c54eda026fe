// data_parallel_mpi.cpp — the collectives of data_parallel.h on MPI (Open MPI: Debian's libopenmpi-dev).
//
// Every rank calls the same collectives in the same order; MPI_COMM_WORLD is the whole job. MPI's default
// error handler (MPI_ERRORS_ARE_FATAL) is kept: a failed call ends the whole job rather than leave a rank
// waiting for a partner that is gone, and mpirun names the rank that failed first.
// A process started without mpirun never calls MPI at all: it is rank 0 of 1 and every collective returns at
// once, so `attnlab train` alone runs exactly as in a build without MPI.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "distributed/data_parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

bool joined = false;   // MPI_Init has run (this process was launched by mpirun or another MPI launcher)

// Open MPI's mpirun, MPICH's and Intel's (Hydra), and PMIx-based launchers (Slurm's srun) set these.
bool launched_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

MPI_Datatype real_type() { return std::is_same_v<real, float> ? MPI_FLOAT : MPI_DOUBLE; }

// MPI counts are int: a buffer larger than that goes in pieces.
template <typename Call>
void in_pieces(int64_t count, Call call) {
  const int64_t piece = std::numeric_limits<int>::max();
  for (int64_t begin = 0; begin < count; begin += piece) call(begin, static_cast<int>(std::min(piece, count - begin)));
}

}  // namespace

MpiJob::MpiJob() {
  if (!launched_by_mpi_launcher()) return;
  // FUNNELED: only the main thread calls MPI; OpenMP's threads work inside the steps, between the calls.
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  joined = true;
}

MpiJob::~MpiJob() {
  if (joined) MPI_Finalize();
  joined = false;
}

namespace collective {

bool built_with_mpi() { return true; }

int rank() {
  int r = 0;
  if (joined) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int ranks() {
  int n = 1;
  if (joined) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int ranks_on_this_machine() {
  if (!joined) return 1;
  MPI_Comm here;   // the ranks that share memory with this one: the ones on this machine
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &here);
  int n = 1;
  MPI_Comm_size(here, &n);
  MPI_Comm_free(&here);
  return n;
}

void sum_in_place(real* values, int64_t count) {
  if (ranks() == 1) return;
  in_pieces(count, [&](int64_t begin, int n) {
    MPI_Allreduce(MPI_IN_PLACE, values + begin, n, real_type(), MPI_SUM, MPI_COMM_WORLD);
  });
}

void sum_in_place_double(double* values, int64_t count) {
  if (ranks() == 1) return;
  in_pieces(count, [&](int64_t begin, int n) {
    MPI_Allreduce(MPI_IN_PLACE, values + begin, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  });
}

int max(int value) {
  if (ranks() == 1) return value;
  int largest = value;
  MPI_Allreduce(&value, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return largest;
}

void broadcast(real* values, int64_t count) {
  if (ranks() == 1) return;
  in_pieces(count, [&](int64_t begin, int n) { MPI_Bcast(values + begin, n, real_type(), 0, MPI_COMM_WORLD); });
}

void broadcast(int64_t* values, int64_t count) {
  if (ranks() == 1) return;
  in_pieces(count, [&](int64_t begin, int n) { MPI_Bcast(values + begin, n, MPI_INT64_T, 0, MPI_COMM_WORLD); });
}

void broadcast(std::string& text) {
  if (ranks() == 1) return;
  int64_t size = static_cast<int64_t>(text.size());
  broadcast(&size, 1);
  text.resize(static_cast<size_t>(size));
  in_pieces(size, [&](int64_t begin, int n) { MPI_Bcast(text.data() + begin, n, MPI_CHAR, 0, MPI_COMM_WORLD); });
}

// One block per rank must fit MPI's int count (2³¹ − 1 numbers: a model of over 2 billion parameters per rank).
int block_count(int64_t block) {
  if (block > std::numeric_limits<int>::max()) {
    throw Error("a shard of " + std::to_string(block) + " numbers is more than one MPI message can count; run on "
                "more ranks");
  }
  return static_cast<int>(block);
}

void reduce_scatter_sum(const real* all, real* mine, int64_t block) {
  if (ranks() == 1) return void(std::copy_n(all, block, mine));
  MPI_Reduce_scatter_block(all, mine, block_count(block), real_type(), MPI_SUM, MPI_COMM_WORLD);
}

void all_gather(const real* mine, real* all, int64_t block) {
  if (ranks() == 1) return void(std::copy_n(mine, block, all));
  MPI_Allgather(mine, block_count(block), real_type(), all, block_count(block), real_type(), MPI_COMM_WORLD);
}

void gather_to_root(const real* mine, real* all, int64_t block) {
  if (ranks() == 1) return void(std::copy_n(mine, block, all));
  MPI_Gather(mine, block_count(block), real_type(), all, block_count(block), real_type(), 0, MPI_COMM_WORLD);
}

struct SumInFlight::Request {
  MPI_Request request = MPI_REQUEST_NULL;
};

SumInFlight::SumInFlight() : request_(std::make_unique<Request>()) {}
SumInFlight::SumInFlight(SumInFlight&&) noexcept = default;
SumInFlight::~SumInFlight() {
  if (request_) wait();
}

void SumInFlight::start(real* values, int64_t count) {
  if (ranks() == 1) return;
  wait();                                                   // one sum at a time per SumInFlight
  MPI_Iallreduce(MPI_IN_PLACE, values, block_count(count), real_type(), MPI_SUM, MPI_COMM_WORLD, &request_->request);
}

bool SumInFlight::done() {
  if (request_->request == MPI_REQUEST_NULL) return true;  // never started, or already arrived
  int arrived = 0;
  MPI_Test(&request_->request, &arrived, MPI_STATUS_IGNORE);   // sets the request to MPI_REQUEST_NULL once done
  return arrived != 0;
}

void SumInFlight::wait() {
  if (request_->request != MPI_REQUEST_NULL) MPI_Wait(&request_->request, MPI_STATUS_IGNORE);
}

void barrier() {
  if (ranks() > 1) MPI_Barrier(MPI_COMM_WORLD);
}

void abort_job(int exit_code) {
  if (joined) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

}  // namespace collective

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
