/* mpi_abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while the other ranks wait in a barrier
 * that never completes. Open MPI 4.1 says why through PMIx_Log ("MPI_ABORT was invoked on rank 1
 * ...") before PMIx_Abort; the job must end with status 3 and the user must see that text. Run
 * with at least 2 ranks. Built with mpicc. */
#include <mpi.h>

int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
