// An MPI return code as a Status naming the call, with MPI's own text. For the comm layer's MPI
// files only (it includes mpi.h).
#ifndef YARDSTICK_COMM_MPI_ERROR_H_
#define YARDSTICK_COMM_MPI_ERROR_H_

#include <mpi.h>

#include <string>

#include "core/status.h"

namespace ys::comm {

inline Status MpiError(const char* call, int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status::Io(std::string(call) + " failed: " + std::string(text, len));
}

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_MPI_ERROR_H_
